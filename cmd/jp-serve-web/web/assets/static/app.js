// jp serve web: the conversation page. Sends a message as a delegated
// turn, follows it with server-sent events, answers tool approvals and
// stops turns. Where a turn runs (docs/web.md): continue in the
// checkout it last ran in; without a live record, ask. The message box is
// the conversation's draft (QUERY_MESSAGE.md, which jp q -c ID opens).
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
  const draftNotice = document.getElementById('draft-notice');
  const draftStatus = document.getElementById('draft-status');
  // The browser's copy of text jp's draft does not hold (yet): unsaved,
  // not saved because a save failed or the draft changed elsewhere, or
  // kept from before the box was jp's draft.
  const draftKey = 'jp-web-draft:' + state.workspace + ':' + state.conversation;
  const saveDelay = 400; // ms after the last keystroke

  let target = null;   // the checkout a send runs in
  let picking = false; // the picker is open on a live record
  let turn = null;     // the turn being followed
  let sending = false; // a send is on its way (Ctrl+Enter again does nothing)

  const h = window.jpH; // page.js
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
    // The default workspace has no checkout: its turns run with root "".
    if (state.default) { target = ''; return; }
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
    if (state.default) {
      wherePanel.append(h('p', { class: 'line', id: 'default-ws' }, 'Runs in the default workspace, as jp does outside any workspace.'));
      targetLine.replaceChildren('Runs outside any workspace');
      return;
    }
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

  // busy: while a turn runs, Send queues the box's text as the reply
  // sent when the turn ends (live.js).
  function busy(on) {
    sendBtn.disabled = false;
    sendBtn.textContent = on ? 'Queue reply' : 'Send';
    stopBtn.hidden = !on;
    stopBtn.disabled = false;
    stopBtn.textContent = 'Stop';
    page.classList.toggle('running', on);
  }

  async function post(url, body) {
    const resp = await jpFetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    let data = {};
    try { data = await resp.json(); } catch (e) { data = { error: resp.status + ' ' + resp.statusText }; }
    return { resp, data };
  }

  // The draft: the box saves into jp's draft as the user types, naming
  // the revision it last saw, so that jp refuses to overwrite a draft
  // changed elsewhere (a terminal). Nothing typed is lost: until jp holds
  // the box's text, the browser keeps a copy.
  const draft = {
    rev: state.draft.revision || '', // the revision the page last saw
    saved: state.draft.text || '',   // the text jp's draft holds, as far as the page knows
    changed: null,   // why saving stopped: jp's draft changed elsewhere
    trouble: null,   // why the last save failed
    leftover: null,  // text the browser kept that jp's draft does not hold, offered
    timer: null,
    chain: Promise.resolve(), // saves, one at a time
  };

  function local() { try { return localStorage.getItem(draftKey) || ''; } catch (e) { return ''; } }
  function setLocal(text) {
    try {
      if (text) localStorage.setItem(draftKey, text); else localStorage.removeItem(draftKey);
    } catch (e) { /* storage refused (full, or disabled): jp's draft is the copy */ }
  }
  // keepLocal keeps the box's text in the browser while jp's draft does
  // not hold it. Text offered from an earlier visit stays until the user
  // chooses.
  function keepLocal() {
    if (draft.leftover !== null) return;
    setLocal(box.value !== draft.saved || draft.changed ? box.value : '');
  }

  function draftState(text) { draftStatus.textContent = text; }

  function preview(text) {
    const line = text.trim().split('\n')[0];
    return line.length > 80 ? line.slice(0, 79) + '…' : line;
  }

  // showDraft shows what needs saying about the draft, most pressing
  // first.
  function showDraft() {
    let content = null;
    let kind = 'warn';
    if (draft.changed) {
      content = [draft.changed, ': ',
        h('button', { type: 'button', class: 'linkish', id: 'draft-reload', onclick: () => location.reload() }, 'reload'),
        box.value ? ' to see it; your text stays here.' : ' to see it.'];
      kind = 'warn conflict';
    } else if (draft.trouble) {
      content = [draft.trouble, box.value ? ' Your text is kept in this browser.' : ''];
      kind = 'error';
    } else if (draft.leftover !== null) {
      content = ['This browser kept text that is not in the draft: ', h('q', null, preview(draft.leftover)), ' ',
        h('button', { type: 'button', class: 'linkish', id: 'draft-use', onclick: useLeftover }, 'Use it instead'), ' · ',
        h('button', { type: 'button', class: 'linkish', id: 'draft-discard', onclick: dropLeftover }, 'Discard it')];
    }
    draftNotice.hidden = !content;
    draftNotice.className = 'notice' + (content ? ' ' + kind : '');
    draftNotice.replaceChildren(...(content || []));
  }

  function useLeftover() {
    box.value = draft.leftover;
    draft.leftover = null;
    keepLocal();
    showDraft();
    saveSoon();
    box.focus();
  }
  function dropLeftover() {
    draft.leftover = null;
    keepLocal();
    showDraft();
  }

  function saveSoon() {
    clearTimeout(draft.timer);
    draft.timer = setTimeout(() => { draft.timer = null; saveDraft(false); }, saveDelay);
  }

  // saveDraft queues a save of the box (one runs at a time). leaving:
  // the page is being hidden or unloaded, so the request must outlive it.
  function saveDraft(leaving) {
    draft.chain = draft.chain.then(() => putDraft(leaving));
    return draft.chain;
  }

  // putDraft saves the box's text into jp's draft unless jp holds it
  // already. It never throws.
  async function putDraft(leaving) {
    const text = box.value;
    if (draft.changed || text === draft.saved) return;
    const body = JSON.stringify({ workspace: state.workspace, root: state.viewed, conversation: state.conversation, text, revision: draft.rev });
    draftState('Saving draft…');
    let resp;
    let data = {};
    try {
      // keepalive lets a save outlive the page, for bodies up to 64 KiB.
      const keepalive = leaving && new TextEncoder().encode(body).length < 60000;
      resp = await jpFetch('/api/draft', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body, keepalive });
      try { data = await resp.json(); } catch (e) { data = { error: resp.status + ' ' + resp.statusText }; }
    } catch (e) {
      draft.trouble = 'Could not reach jp serve web to save the draft: ' + e.message + '.';
      draftState('Kept in this browser only');
      keepLocal();
      showDraft();
      return;
    }
    if (resp.ok) {
      draft.rev = data.revision || '';
      draft.saved = text;
      draft.trouble = null;
      draftState(text ? 'Draft saved' : '');
    } else if (resp.status === 409 && data.code === 'draft_changed') {
      draft.changed = 'The draft changed in another place (a terminal?)';
      draftState('Kept in this browser only');
    } else {
      draft.trouble = 'jp did not save the draft: ' + (data.error || resp.statusText) + '.';
      draftState('Kept in this browser only');
    }
    keepLocal();
    showDraft();
  }

  // settleDraft saves what waits for a save, now, and lets it finish: the
  // draft holds the message being sent (kept there if jp refuses the
  // turn), and the send names the draft's latest revision.
  async function settleDraft() {
    clearTimeout(draft.timer);
    draft.timer = null;
    await saveDraft(false);
  }

  // sentDraft follows what jp did with the draft when the sent message
  // started a turn.
  function sentDraft(d) {
    if (!d) {
      // The page knew no draft (nothing in jp to empty), or the draft
      // had changed elsewhere (left as it is).
      if (draft.changed) draft.changed = 'Sent. The draft changed in another place (a terminal?) and was left as it is';
    } else if (d.cleared) {
      draft.rev = d.revision || '';
      draft.saved = '';
      draft.trouble = null;
      draftState('');
    } else if (d.code === 'draft_changed') {
      draft.changed = 'Sent. The draft changed in another place (a terminal?) meanwhile and was left as it is';
      draftState('');
    } else {
      draft.trouble = 'Sent, but ' + (d.error || 'jp could not empty the draft') + '.';
      saveSoon(); // empties it, as the box is
    }
    showDraft();
  }

  // restore puts a message back in the box (a turn failed before jp
  // stored it): it is the draft again.
  function restore(text) {
    box.value = text;
    keepLocal();
    saveSoon();
  }

  // startDraft fills the box: jp's draft; without one, what the browser
  // kept (saved into jp's draft then). When both hold different text, the
  // box shows jp's and offers the other.
  function startDraft() {
    const kept = local();
    const jp = draft.saved;
    if (state.draft_error) {
      draft.trouble = state.draft_error + '.';
      box.value = kept;
    } else if (jp) {
      box.value = jp;
      draftState('Draft saved');
      if (kept && kept !== jp) draft.leftover = kept;
      else setLocal('');
    } else if (kept) {
      box.value = kept;
      saveSoon();
    }
    showDraft();
  }

  async function send(ev) {
    if (ev) ev.preventDefault();
    if (turn) page.dispatchEvent(new CustomEvent('jp:queue'));
    if (turn || sending) return;
    const text = box.value;
    if (!text.trim()) { say('Type a message first.', 'warn'); box.focus(); return; }
    if (target === null) { say('Pick the checkout to run this conversation in.', 'warn'); return; }
    quiet();
    sendBtn.disabled = true;
    box.readOnly = true; // the text being sent is the text to empty
    sending = true;
    let r;
    try {
      await settleDraft();
      const body = { workspace: state.workspace, root: target, conversation: state.conversation, content: text };
      const exp = expected();
      if (exp) body.expected_last_root = exp;
      // Once the turn started, jp's draft is emptied if it is still the
      // one the page saw.
      if (!draft.changed && draft.rev) body.draft_revision = draft.rev;
      r = await post('/api/query', body);
    } catch (e) {
      sendBtn.disabled = false;
      say('Could not reach jp serve web: ' + e.message + '. Your message is still in the box.', 'error');
      return;
    } finally {
      box.readOnly = false;
      sending = false;
    }
    if (!r.resp.ok) {
      sendBtn.disabled = false;
      if (r.data.last_root) refused(r.data);
      else say(['jp did not run the turn: ', r.data.error || r.resp.statusText, '. Your message is still in the box.'], 'error');
      return;
    }
    box.value = '';
    keepLocal();
    sentDraft(r.data.draft);
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
      if (!t.sawRequest && t.text && !box.value) restore(t.text);
    }
    scrollDown();
    page.dispatchEvent(new CustomEvent('jp:turn-complete', { detail: v }));
  }

  // follow reads the turn's event stream (server-sent events) with fetch,
  // which can send the token in a header (EventSource cannot), and
  // reconnects from the last event it got while the turn runs.
  function follow(id, text) {
    turn = { id, text, sawRequest: false, done: false, textBlock: null, reasoningBlock: null };
    busy(true);
    const mine = turn;
    const ctl = new AbortController();
    turn.es = { close: () => ctl.abort() };
    const url = '/api/turns/' + encodeURIComponent(id) + '/events';
    let last = null;
    const lost = () => {
      if (turn !== mine || mine.done) return;
      turn = null;
      busy(false);
      say('Lost this turn (jp serve web stopped or restarted): reload the page to see what it saved.', 'error');
      if (!mine.sawRequest && mine.text && !box.value) restore(mine.text);
      page.dispatchEvent(new CustomEvent('jp:turn-complete', { detail: { outcome: 'lost' } }));
    };
    const reconnecting = () => say('Connection to jp serve web lost; reconnecting…', 'warn');
    (async () => {
      while (turn === mine && !mine.done) {
        let resp = null;
        try {
          const headers = { Accept: 'text/event-stream' };
          if (last !== null) headers['Last-Event-ID'] = last;
          resp = await jpFetch(url, { headers, cache: 'no-store', signal: ctl.signal });
        } catch (e) {
          if (ctl.signal.aborted) return;
        }
        if (resp && !resp.ok) { lost(); return; }
        if (resp) {
          if (notice.classList.contains('warn') && /reconnecting/.test(notice.textContent)) quiet();
          const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
          let buf = '';
          try {
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              buf += value;
              let i;
              while ((i = buf.indexOf('\n\n')) >= 0) {
                const block = buf.slice(0, i);
                buf = buf.slice(i + 2);
                const data = [];
                for (const line of block.split('\n')) {
                  if (line.startsWith('id:')) last = line.slice(3).trim();
                  else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
                }
                if (data.length && turn === mine) handle(JSON.parse(data.join('\n')));
                if (turn !== mine || mine.done) return;
                // One message at a time, as EventSource delivers them:
                // what watches the page sees each step.
                await null;
              }
            }
          } catch (e) {
            if (ctl.signal.aborted) return;
          }
        }
        if (turn !== mine || mine.done) return;
        reconnecting();
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
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

  // The record moved by a turn elsewhere (a terminal), as live.js's
  // watch saw it: the next send runs where it says, and expects it.
  page.addEventListener('jp:record', (e) => {
    const r = e.detail;
    const cur = state.record;
    if (turn || sending || (!r && !cur) || (r && cur && r.path === cur.path && r.last_used === cur.last_used)) return;
    state.record = r;
    if (r) state.fresh = false;
    defaults();
    render();
  });

  document.getElementById('composer').addEventListener('submit', send);
  stopBtn.addEventListener('click', stop);
  box.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) send(e); });
  box.addEventListener('input', () => {
    keepLocal();
    if (draft.changed) {
      showDraft();
    } else {
      draftState('');
      saveSoon();
    }
  });
  // Leaving (or hiding) the page saves at once what waits for a save.
  const flush = () => {
    if (draft.timer === null && box.value === draft.saved) return;
    clearTimeout(draft.timer);
    draft.timer = null;
    saveDraft(true);
  };
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') flush(); });
  window.addEventListener('pagehide', flush);

  startDraft();
  defaults();
  render();
  if (state.running) follow(state.running, '');
  scrollDown();
})();
