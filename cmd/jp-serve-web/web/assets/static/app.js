// jp serve web: the conversation page. Sends a message as a delegated
// turn, follows it with server-sent events, answers tool approvals and
// stops turns. Where a turn runs follows seed 003: continue in the
// checkout it last ran in; without a live record, ask.
'use strict';
(function () {
  const page = document.getElementById('conv');
  if (!page) return;
  const state = JSON.parse(page.dataset.state);
  const events = document.getElementById('events');
  const box = document.getElementById('message');
  const sendBtn = document.getElementById('send');
  const stopBtn = document.getElementById('stop');
  const wherePanel = document.getElementById('where');
  const targetLine = document.getElementById('target');
  const notice = document.getElementById('notice');
  const draftKey = 'jp-web-draft:' + state.workspace + ':' + state.conversation;

  let target = null;   // the checkout a send runs in
  let picking = false; // the picker is open on a live record
  let turn = null;     // the turn being followed

  function h(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) e.append(k);
    return e;
  }
  const code = (t) => h('code', null, t);
  const pad = (n) => String(n).padStart(2, '0');
  // when formats a time as the server's pages do: local, to the second.
  const when = (iso) => {
    const d = new Date(iso);
    if (isNaN(d)) return iso;
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' +
      pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  };

  function live(rec) {
    if (!rec) return false;
    if (rec.live === true || rec.live === false) return rec.live;
    return state.roots.some((r) => r.path === rec.path);
  }

  // defaults picks where a send runs from the record: its checkout when
  // it is live, here for a conversation this page just created, else
  // nothing until the user picks.
  function defaults() {
    const rec = state.record;
    picking = false;
    if (rec && live(rec)) target = rec.path;
    else if (!rec && state.fresh && state.roots.some((r) => r.path === state.viewed)) target = state.viewed;
    else target = null;
  }

  // expected is the record the user was shown: sent with every turn
  // while one exists, so jp refuses if it moved meanwhile (and a dead
  // one is confirmed by sending it).
  function expected() {
    const rec = state.record;
    return rec ? { path: rec.path, last_used: rec.last_used } : null;
  }

  function picker() {
    const list = h('div', { class: 'picker', role: 'radiogroup', 'aria-label': 'Checkout to run in' });
    for (const r of state.roots) {
      const notes = [];
      if (r.path === state.viewed) notes.push('the checkout you are viewing');
      if (state.record && state.record.path === r.path) notes.push('where it last ran');
      const input = h('input', { type: 'radio', name: 'target', value: r.path });
      input.checked = target === r.path;
      input.addEventListener('change', () => { target = r.path; render(); });
      list.append(h('label', null, input, code(r.path), notes.length ? h('span', { class: 'muted small' }, notes.join(', ')) : null));
    }
    if (state.roots.length === 0) list.append(h('span', { class: 'muted' }, 'This workspace has no live checkout.'));
    return list;
  }

  function render() {
    wherePanel.replaceChildren();
    const rec = state.record;
    if (rec && live(rec)) {
      if (rec.path === state.viewed) {
        wherePanel.append(h('p', { class: 'line' }, 'Continues here, where this conversation last ran.'));
      } else {
        wherePanel.append(h('p', { class: 'line', id: 'continuing' }, 'Continuing in ', code(rec.path),
          ', where this conversation last ran (you are viewing ', code(state.viewed), ').'));
      }
      if (state.roots.length > 1) {
        wherePanel.append(h('button', { type: 'button', class: 'linkish small', id: 'choose',
          onclick: () => { picking = !picking; render(); } }, picking ? 'Hide checkouts' : 'Run in another checkout…'));
      }
      if (picking) wherePanel.append(picker());
    } else if (rec) {
      wherePanel.append(h('div', { class: 'warnbox', id: 'gone' },
        h('p', { class: 'line' }, 'This conversation last ran in ', code(rec.path), ', a worktree that no longer exists.'),
        h('p', { class: 'line' }, 'Pick a checkout to run it in, or confirm running here.'),
        h('div', { class: 'choices' },
          h('button', { type: 'button', id: 'confirm-here', onclick: () => { target = state.viewed; render(); box.focus(); } },
            'Confirm running here'))));
      wherePanel.append(picker());
    } else if (state.fresh && target === state.viewed && !picking) {
      wherePanel.append(h('p', { class: 'line' }, 'A new conversation: it runs here. ',
        h('button', { type: 'button', class: 'linkish small', onclick: () => { picking = true; render(); } }, 'Pick another checkout…')));
    } else {
      wherePanel.append(h('p', { class: 'line', id: 'norecord' }, 'jp has no record of where this conversation last ran: pick the checkout to run it in.'));
      wherePanel.append(picker());
    }
    targetLine.replaceChildren(...(target ? ['Runs in ', code(target)] : ['Pick a checkout to send']));
  }

  function say(content, kind) {
    notice.className = 'notice' + (kind ? ' ' + kind : '');
    notice.replaceChildren(...[].concat(content));
    notice.hidden = false;
  }
  function quiet() { notice.hidden = true; notice.replaceChildren(); }

  function scrollDown() { window.scrollTo({ top: document.body.scrollHeight }); }

  function busy(on) {
    sendBtn.disabled = on;
    stopBtn.hidden = !on;
    stopBtn.disabled = false;
    stopBtn.textContent = 'Stop';
    page.classList.toggle('running', on);
  }

  async function post(url, body) {
    const resp = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    let data = {};
    try { data = await resp.json(); } catch (e) { data = { error: resp.status + ' ' + resp.statusText }; }
    return { resp, data };
  }

  async function send(ev) {
    if (ev) ev.preventDefault();
    if (turn) return;
    const text = box.value;
    if (!text.trim()) { say('Type a message first.', 'warn'); box.focus(); return; }
    if (!target) { say('Pick the checkout to run this conversation in.', 'warn'); return; }
    quiet();
    sendBtn.disabled = true;
    const body = { workspace: state.workspace, root: target, conversation: state.conversation, content: text };
    const exp = expected();
    if (exp) body.expected_last_root = exp;
    let r;
    try {
      r = await post('/api/query', body);
    } catch (e) {
      sendBtn.disabled = false;
      say('Could not reach jp serve web: ' + e.message + '. Your message is still in the box.', 'error');
      return;
    }
    if (!r.resp.ok) {
      sendBtn.disabled = false;
      if (r.data.last_root) refused(r.data);
      else say(['jp did not run the turn: ', r.data.error || r.resp.statusText, '. Your message is still in the box.'], 'error');
      return;
    }
    box.value = '';
    localStorage.removeItem(draftKey);
    follow(r.data.turn, text);
  }

  // refused shows jp's refusal and the record as it is now, and asks
  // again: the text stays in the box.
  function refused(data) {
    state.record = data.last_root;
    defaults();
    render();
    const rec = data.last_root;
    say([
      h('strong', null, 'jp refused to run this turn: '),
      'where this conversation last ran changed since the page showed it.',
      h('div', { id: 'new-record' }, 'It last ran in ', code(rec.path), ' at ' + when(rec.last_used) +
        (live(rec) ? '' : ', a worktree that no longer exists') + '. Check where it runs below, and send again.'),
      h('div', { class: 'muted small' }, 'jp said: ' + data.error),
    ], 'refusal');
    scrollDown();
  }

  function streamingBlock(reasoning) {
    const key = reasoning ? 'reasoningBlock' : 'textBlock';
    if (!turn[key]) {
      const body = h('div', { class: 'body plain' });
      turn[key] = reasoning
        ? h('details', { class: 'ev reasoning streaming', open: '' }, h('summary', null, 'Reasoning…'), body)
        : h('div', { class: 'ev msg assistant streaming' }, h('div', { class: 'who' }, 'Assistant'), body);
      turn[key].body = body;
      events.append(turn[key]);
    }
    return turn[key];
  }
  function endStreaming(reasoning) {
    const key = reasoning ? 'reasoningBlock' : 'textBlock';
    if (turn[key]) { turn[key].remove(); turn[key] = null; }
  }

  function insert(html) {
    const t = document.createElement('template');
    t.innerHTML = html;
    const node = t.content.firstElementChild;
    if (node) events.append(node);
    return node;
  }

  function handle(v) {
    const empty = document.getElementById('noevents');
    if (empty) empty.remove();
    switch (v.kind) {
      case 'delta':
        streamingBlock(v.reasoning).body.append(v.text);
        break;
      case 'event':
        if (v.type === 'chat_request') turn.sawRequest = true;
        if (v.type === 'chat_response') endStreaming(!!v.reasoning);
        if (v.id && events.querySelector('[data-event-id="' + CSS.escape(v.id) + '"]')) break;
        insert(v.html);
        break;
      case 'approval': {
        if (events.querySelector('[data-approval="' + CSS.escape(v.call_id) + '"]')) break;
        const node = insert(v.html);
        if (node) node.dataset.turn = turn.id;
        break;
      }
      case 'answered':
        markAnswered(v.call_id, v.outcome);
        break;
      case 'notice':
        say(v.text, 'warn');
        break;
      case 'complete':
        complete(v);
        return;
    }
    scrollDown();
  }

  // markAnswered shows an approval question as answered with action.
  function markAnswered(callID, action) {
    const card = events.querySelector('[data-approval="' + CSS.escape(callID) + '"]');
    if (!card) return;
    card.classList.add('answered', action === 'approve' ? 'approved' : 'rejected');
    for (const b of card.querySelectorAll('button')) b.disabled = true;
    card.querySelector('.answer').textContent = action === 'approve' ? 'Approved' : 'Rejected';
  }

  function complete(v) {
    const t = turn;
    t.done = true;
    t.es.close();
    for (const b of [t.textBlock, t.reasoningBlock]) if (b) b.classList.remove('streaming');
    for (const a of events.querySelectorAll('.ev.approval:not(.answered)')) {
      a.classList.add('answered');
      for (const b of a.querySelectorAll('button')) b.disabled = true;
    }
    turn = null;
    busy(false);
    if (v.last_root) state.record = v.last_root;
    state.fresh = false;
    defaults();
    render();
    if (v.outcome === 'completed') {
      quiet();
    } else if (v.outcome === 'stopped') {
      say('Turn stopped: what it had is saved.', 'warn');
    } else {
      say(['Turn ', v.outcome || 'ended', v.error ? ': ' + v.error : '', '.'], 'error');
      if (!t.sawRequest && t.text && !box.value) box.value = t.text;
    }
    scrollDown();
  }

  function follow(id, text) {
    turn = { id, text, sawRequest: false, done: false, textBlock: null, reasoningBlock: null };
    busy(true);
    const es = new EventSource('/api/turns/' + encodeURIComponent(id) + '/events');
    turn.es = es;
    const mine = turn;
    es.onmessage = (m) => { if (turn === mine) handle(JSON.parse(m.data)); };
    es.onerror = () => {
      if (turn !== mine || mine.done) return;
      if (es.readyState === EventSource.CLOSED) {
        turn = null;
        busy(false);
        say('Lost this turn (jp serve web stopped or restarted): reload the page to see what it saved.', 'error');
        if (!mine.sawRequest && mine.text && !box.value) box.value = mine.text;
      } else {
        say('Connection to jp serve web lost; reconnecting…', 'warn');
      }
    };
    es.onopen = () => { if (notice.classList.contains('warn') && /reconnecting/.test(notice.textContent)) quiet(); };
  }

  async function stop() {
    if (!turn) return;
    stopBtn.disabled = true;
    stopBtn.textContent = 'Stopping…';
    try {
      const r = await post('/api/turns/' + encodeURIComponent(turn.id) + '/interrupt', {});
      if (!r.resp.ok) { say('Could not stop the turn: ' + (r.data.error || r.resp.statusText), 'error'); stopBtn.disabled = false; stopBtn.textContent = 'Stop'; }
    } catch (e) {
      say('Could not reach jp serve web: ' + e.message, 'error');
      stopBtn.disabled = false;
      stopBtn.textContent = 'Stop';
    }
  }

  events.addEventListener('click', async (e) => {
    const btn = e.target.closest('.ev.approval button[data-action]');
    if (!btn) return;
    const card = btn.closest('.ev.approval');
    const action = btn.dataset.action;
    for (const b of card.querySelectorAll('button')) b.disabled = true;
    const answer = card.querySelector('.answer');
    try {
      const r = await post('/api/turns/' + encodeURIComponent(card.dataset.turn) + '/respond', { call_id: card.dataset.approval, action });
      if (!r.resp.ok) throw new Error(r.data.error || r.resp.statusText);
      markAnswered(card.dataset.approval, action);
    } catch (err) {
      answer.textContent = 'Not answered: ' + err.message;
      for (const b of card.querySelectorAll('button')) b.disabled = false;
    }
  });

  document.getElementById('composer').addEventListener('submit', send);
  stopBtn.addEventListener('click', stop);
  box.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) send(e); });
  box.addEventListener('input', () => {
    if (box.value) localStorage.setItem(draftKey, box.value); else localStorage.removeItem(draftKey);
  });

  box.value = localStorage.getItem(draftKey) || '';
  defaults();
  render();
  if (state.running) follow(state.running, '');
  scrollDown();
})();
