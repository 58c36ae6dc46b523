// jp serve web: what keeps the conversation page live, beside app.js.
//
// The watch: every event jp stores in this conversation shows here as it
// is stored, whoever runs the turn (jp q in a terminal, another page), by
// following GET /api/watch. Events the page has already (its own turn's
// stream shows them too) are skipped by their ID. The answer a terminal's
// turn is streaming shows as it grows (jp checkpoints it every 200 ms).
//
// The queued reply, by the terminal's rules (docs/interrupts.md): Send
// while a turn runs queues the box's text (the box is the draft, and the
// draft is the slot); when the turn completes, a countdown runs and then
// sends it, unless the user sends it now, edits, keeps or discards it.
'use strict';
(function () {
  const page = document.getElementById('conv');
  if (!page) return;
  const state = JSON.parse(page.dataset.state);
  const events = document.getElementById('events');
  const box = document.getElementById('message');
  const composer = document.getElementById('composer');
  const queuePanel = document.getElementById('queue');
  const liveLine = document.getElementById('live');

  const h = window.jpH; // page.js
  const btn = (id, text, onclick) => h('button', { type: 'button', id, class: 'linkish', onclick }, text);

  // ---- the watch ----

  const nearBottom = () => window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;

  function insert(html) {
    const t = document.createElement('template');
    t.innerHTML = html;
    const node = t.content.firstElementChild;
    if (node) events.append(node);
    return node;
  }

  // The block in flight of a turn this page does not run: the answer so
  // far, replaced as it grows and removed when jp stores the answer.
  const partialSel = '[data-event-id^="partial-"]';
  function partial(v) {
    for (const old of events.querySelectorAll(partialSel)) old.remove();
    if (!v.html || page.classList.contains('running')) return; // the page's own turn streams its deltas
    const node = insert(v.html);
    if (node) node.classList.add('streaming');
  }

  // elsewhere says a turn this page does not run is running (a turn_start
  // arrived with no turn of the page's), until it ends.
  function elsewhere(on) {
    if (!liveLine) return;
    liveLine.hidden = !on;
    liveLine.textContent = on ? 'A turn started in another place (a terminal?) is running: its events appear as jp stores them.' : '';
  }

  function watched(v) {
    switch (v.kind) {
      case 'event': {
        if (v.type === 'chat_request' && v.text) page.dispatchEvent(new CustomEvent('jp:sent', { detail: v.text }));
        if (v.type === 'chat_response') for (const old of events.querySelectorAll(partialSel)) old.remove();
        if (v.id && events.querySelector('[data-event-id="' + CSS.escape(v.id) + '"]')) return;
        const empty = document.getElementById('noevents');
        if (empty) empty.remove();
        const follow = nearBottom();
        const mine = page.classList.contains('running');
        if (v.type === 'turn_start' && !mine) elsewhere(true);
        if (v.type === 'turn_end') elsewhere(false);
        page.dispatchEvent(new CustomEvent('jp:stored', { detail: v.type }));
        insert(v.html);
        if (follow) window.scrollTo({ top: document.body.scrollHeight });
        return;
      }
      case 'record':
        // app.js shows where the next turn runs from it.
        page.dispatchEvent(new CustomEvent('jp:record', { detail: v.last_root || null }));
        return;
      case 'partial': {
        const follow = nearBottom();
        partial(v);
        if (follow) window.scrollTo({ top: document.body.scrollHeight });
        return;
      }
      case 'reset':
      case 'stop':
      case 'notice':
        say(v.text || '');
    }
  }

  // say shows one line about the watch where the live line is ('' hides
  // it: jp reads the conversation again).
  function say(text) {
    if (liveLine) { liveLine.hidden = !text; liveLine.textContent = text; }
  }

  // watch follows /api/watch with fetch (it sends the token in a header,
  // which EventSource cannot), reconnecting from the last event it got.
  function watch() {
    const ctl = new AbortController();
    window.addEventListener('pagehide', () => ctl.abort());
    let after = state.count || 0;
    let ended = false;
    let lost = false; // the last try failed to connect (said on the page)
    const url = () => '/api/watch?workspace=' + encodeURIComponent(state.workspace) + '&root=' + encodeURIComponent(state.viewed) +
      '&conversation=' + encodeURIComponent(state.conversation) + '&after=' + after;
    (async () => {
      while (!ended && page.isConnected) {
        try {
          const resp = await jpFetch(url(), { headers: { Accept: 'text/event-stream' }, cache: 'no-store', signal: ctl.signal });
          if (!resp.ok) { // the server refused: nothing to follow (reload)
            let why = 'HTTP ' + resp.status;
            try { why = (await resp.json()).error || why; } catch (e) { /* not JSON */ }
            say('This page stopped following the conversation: jp serve web refused (' + why + '). Reload the page.');
            return;
          }
          if (lost) { lost = false; say(''); }
          const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
          let buf = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buf += value;
            let i;
            while ((i = buf.indexOf('\n\n')) >= 0) {
              const block = buf.slice(0, i);
              buf = buf.slice(i + 2);
              let data = '';
              for (const line of block.split('\n')) {
                if (line.startsWith('id:')) after = Number(line.slice(3).trim()) + 1;
                else if (line.startsWith('data:')) data += line.slice(5).replace(/^ /, '');
              }
              if (!data) continue;
              const v = JSON.parse(data);
              if (v.kind === 'reset' || v.kind === 'stop') ended = true;
              watched(v);
            }
          }
        } catch (e) {
          if (ctl.signal.aborted) return;
          lost = true;
          say('Lost the connection to jp serve web: trying again every 2 s.');
        }
        if (!ended) await new Promise((r) => setTimeout(r, 2000));
      }
    })();
  }

  // ---- the queued reply ----

  const rules = state.queue || { loop: 'if_pending', countdown_secs: 10 };
  const queue = { on: false, timer: null, left: 0 };

  function showQueue(...content) {
    queuePanel.replaceChildren(...content);
    queuePanel.hidden = content.length === 0;
  }

  function stopCountdown() {
    clearTimeout(queue.timer);
    queue.timer = null;
  }

  // withdraw ends the queue with a line (or none).
  function withdraw(line) {
    stopCountdown();
    queue.on = false;
    showQueue(...(line ? [line] : []));
  }

  page.addEventListener('jp:queue', () => {
    if (!box.value.trim()) {
      withdraw(queue.on ? 'Queued reply withdrawn.' : 'Type a reply to queue it: it is sent when this turn ends.');
      return;
    }
    queue.on = true;
    showQueue('Reply queued: it is sent when this turn ends. Editing the box edits it. ',
      btn('queue-withdraw', 'Withdraw', () => withdraw('Queued reply withdrawn; it stays in the box.')));
  });

  function sendNow() {
    withdraw('');
    composer.requestSubmit();
  }

  // menu is the countdown's menu, as the terminal's: with the countdown
  // running, or without it (after Edit).
  function menu() {
    const line = queue.timer !== null
      ? h('span', { id: 'countdown' }, 'Sending queued reply in ' + queue.left + 's… ')
      : h('span', { id: 'countdown' }, 'Queued reply (no countdown): ');
    showQueue(line,
      btn('queue-send', 'Send now', sendNow), ' · ',
      btn('queue-edit', 'Edit', () => { stopCountdown(); menu(); box.focus(); }), ' · ',
      btn('queue-keep', 'Keep draft', () => withdraw('Queued reply kept as the draft: send it when you are ready.')), ' · ',
      btn('queue-discard', 'Discard draft', () => {
        box.value = '';
        box.dispatchEvent(new Event('input')); // app.js saves the emptied draft
        withdraw('Queued reply discarded.');
      }));
  }

  function tick() {
    if (queue.left <= 0) { sendNow(); return; }
    menu();
    queue.left--;
    queue.timer = setTimeout(tick, 1000);
  }

  page.addEventListener('jp:turn-complete', (e) => {
    if (!queue.on) return;
    if (!box.value.trim()) { withdraw('Queued reply withdrawn (the box is empty).'); return; }
    if (e.detail.outcome !== 'completed') {
      withdraw('Your queued reply is kept as the draft (the turn ended ' + (e.detail.outcome || 'early') + '): send it when you are ready.');
      return;
    }
    if (rules.loop === 'never') {
      withdraw('A reply is queued; query.loop = "never" keeps it as the draft: send it when you are ready.');
      return;
    }
    queue.left = rules.countdown_secs;
    queue.timer = 0; // running
    tick();
  });

  // ---- the context meter and Compact ----

  const meterLine = document.getElementById('meter');
  const compactBtn = document.getElementById('compact');
  const compactPanel = document.getElementById('compact-panel');
  const where = () => ({ workspace: state.workspace, root: state.viewed, conversation: state.conversation });

  // meter shows the conversation's context meter as jp conversation show
  // ends with; a failure leaves the line empty and says why on hover.
  async function meter() {
    const q = new URLSearchParams(where());
    try {
      const resp = await jpFetch('/api/meter?' + q, { cache: 'no-store' });
      const data = await resp.json();
      if (!resp.ok) throw new Error(data.error || resp.statusText);
      const pct = data.window ? ' (' + Math.round(100 * data.tokens / data.window) + '%)' : '';
      meterLine.textContent = data.text + pct;
      meterLine.classList.toggle('high', !!data.window && data.tokens > 0.8 * data.window);
      meterLine.removeAttribute('data-error');
    } catch (e) {
      meterLine.textContent = '';
      meterLine.dataset.error = 'No context meter: ' + e.message;
    }
  }

  function showCompact(...content) {
    compactPanel.replaceChildren(...content);
    compactPanel.hidden = content.length === 0;
  }

  async function compactCall(dryRun) {
    const resp = await jpFetch('/api/compact', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(Object.assign(where(), { dry_run: dryRun })) });
    let data = {};
    try { data = await resp.json(); } catch (e) { data = { error: resp.status + ' ' + resp.statusText }; }
    if (!resp.ok) throw new Error(data.error || resp.statusText);
    return data;
  }

  const tokens = (n) => (n >= 1000 ? Math.round(n / 1000) + 'k' : String(n));

  // Compact first shows what the configured rules would change (a dry
  // run), then compacts on confirmation.
  async function compactPreview() {
    if (page.classList.contains('running')) { showCompact('Compact when the turn is over.'); return; }
    compactBtn.disabled = true;
    try {
      const d = await compactCall(true);
      if (!d.added) {
        showCompact('Nothing to compact: conversation.compaction.rules change nothing in these ' + d.turns + ' turns.');
        return;
      }
      showCompact(h('span', { id: 'compact-preview' }, 'Compacting by conversation.compaction.rules adds ' + d.added +
        ' overlay' + (d.added === 1 ? '' : 's') + ' over ' + d.turns + ' turns: the model would see ~' + tokens(d.tokens_before) +
        ' → ~' + tokens(d.tokens_after) + ' tokens of history. Nothing is removed. '),
      btn('compact-confirm', 'Compact', compactConfirm), ' · ', btn('compact-cancel', 'Cancel', () => showCompact()));
    } catch (e) {
      showCompact('jp did not compact: ' + e.message + '.');
    } finally {
      compactBtn.disabled = false;
    }
  }

  async function compactConfirm() {
    showCompact('Compacting…');
    try {
      const d = await compactCall(false);
      showCompact(h('span', { id: 'compact-done' }, 'Compacted: ~' + tokens(d.tokens_before) + ' → ~' + tokens(d.tokens_after) +
        ' tokens of history (jp conversation compact --reset undoes it).'));
    } catch (e) {
      showCompact('jp did not compact: ' + e.message + '.');
    }
    meter();
  }

  compactBtn.addEventListener('click', compactPreview);
  page.addEventListener('jp:turn-complete', meter);
  page.addEventListener('jp:stored', (e) => { if (e.detail === 'turn_end') meter(); });

  // ---- Up recalls earlier messages ----

  // recall is newest first: this conversation's messages, then the
  // session's history (the terminal composer's order), and what this page
  // sends is put in front. Up on the box's first line goes back, Down on
  // its last line forward, past the newest to what was in the box.
  const recall = state.recall || [];
  let ri = -1;      // the recalled message shown, -1: the box's own text
  let stash = '';   // the box's own text, while recalling

  function showRecalled(text, atStart) {
    box.value = text;
    const at = atStart ? 0 : text.length;
    box.setSelectionRange(at, at);
    box.dispatchEvent(new Event('input')); // the box is the draft: app.js saves it
  }

  box.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.isComposing) return;
    if (e.key === 'ArrowUp') {
      if (box.value.slice(0, box.selectionStart).includes('\n') || ri + 1 >= recall.length) return;
      if (ri === -1) stash = box.value;
      ri++;
      showRecalled(recall[ri], true);
      e.preventDefault();
    } else if (e.key === 'ArrowDown') {
      if (ri === -1 || box.value.slice(box.selectionEnd).includes('\n')) return;
      ri--;
      showRecalled(ri === -1 ? stash : recall[ri], false);
      e.preventDefault();
    }
  });
  box.addEventListener('input', (e) => { if (e.isTrusted) ri = -1; }); // typing makes the text the box's own
  // remember puts a sent message in front (once).
  function remember(text) {
    if (!text.trim()) return;
    const i = recall.indexOf(text);
    if (i === 0) return;
    if (i > 0) recall.splice(i, 1);
    recall.unshift(text);
    if (ri >= 0) ri = Math.min(ri + 1, recall.length - 1); // the recalled message stays the one shown
  }
  composer.addEventListener('submit', () => { remember(box.value); ri = -1; });
  // A message stored by a turn elsewhere (a terminal) joins the recall too.
  page.addEventListener('jp:sent', (e) => remember(e.detail));

  // ---- Rewind to a turn ----

  // Each turn's Rewind undoes it and every later turn, as jp conversation
  // rewind --turn N does (N: the complete turns before it): it first shows
  // the dry run (the files that would change, the conflicts), then asks
  // Rewind / Cancel; the rewind restores the files and forks the
  // conversation before the turn, and the page opens the fork.
  const rewindPanel = document.getElementById('rewind-panel');
  function showRewind(...content) {
    rewindPanel.replaceChildren(...content);
    rewindPanel.hidden = content.length === 0;
  }
  // kept is the number of complete turns before the turn row.
  const kept = (row) => [...events.querySelectorAll('.ev.turn-end.completed')]
    .filter((e) => row.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_PRECEDING).length;
  function decorate() {
    for (const row of events.querySelectorAll('.ev.turn:not([data-rewind])')) {
      row.dataset.rewind = '1';
      row.append(h('button', { type: 'button', class: 'linkish small rewind', title: 'Undo this turn and every later one: restore the files they changed and fork the conversation before it (jp conversation rewind). You see what would change first.',
        onclick: () => rewindPreview(kept(row)) }, 'Rewind…'));
    }
  }
  async function rewindCall(turn, dryRun) {
    const resp = await jpFetch('/api/rewind', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(Object.assign(where(), { turn, dry_run: dryRun })) });
    let data = {};
    try { data = await resp.json(); } catch (e) { data = { error: resp.status + ' ' + resp.statusText }; }
    if (!resp.ok) throw new Error(data.error || resp.statusText);
    return data;
  }
  const fileList = (files) => h('ul', { class: 'rewind-files' }, ...files.map((f) => h('li', {}, f.action + ' ', h('code', {}, f.path))));
  async function rewindPreview(turn) {
    try {
      const d = await rewindCall(turn, true);
      const parts = [h('span', { id: 'rewind-preview' }, 'Rewind to turn ' + turn + ': undo turn ' + d.undone.join(', ') + ' and fork the conversation there (this one stays whole). ' +
        (d.files.length ? 'Files:' : 'No file changes to undo.')), d.files.length ? fileList(d.files) : null];
      if (d.conflicts.length) parts.push(h('span', { class: 'conflict' }, 'Changed since jp wrote them (the rewind refuses; jp conversation rewind --force restores them):'), fileList(d.conflicts));
      if (d.unrecorded && d.unrecorded.length) parts.push(h('span', {}, 'Not undone (jp did not record their changes): ' + d.unrecorded.map((u) => u.name + ' (turn ' + u.turn + ')').join(', ') + '. '));
      parts.push(btn('rewind-confirm', 'Rewind', () => rewindConfirm(turn)), ' · ', btn('rewind-cancel', 'Cancel', () => showRewind()));
      showRewind(...parts);
    } catch (e) {
      showRewind('jp did not rewind: ' + e.message + '.');
    }
  }
  async function rewindConfirm(turn) {
    try {
      const d = await rewindCall(turn, false);
      if (!d.fork) { location.reload(); return; }
      showRewind(h('span', { id: 'rewind-done' }, 'Rewound: opening the fork ' + d.fork + '…'));
      location.assign(location.pathname.replace(/\/c\/[^/]+$/, '/c/' + d.fork) + location.search);
    } catch (e) {
      showRewind('jp did not rewind: ' + e.message + '.');
    }
  }
  new MutationObserver(decorate).observe(events, { childList: true });
  decorate();

  meter();
  watch();
})();
