// jp serve web: the trust question of the checkout and conversation
// pages, by the terminal's rules (docs/security.md). A checkout's
// configuration keys that run programs or send data are held back until
// the user trusts the checkout: the banner says what is held back, and
// Trust asks for confirmation, then trusts it as jp workspace trust does.
'use strict';
(function () {
  const panel = document.getElementById('trust-panel');
  if (!panel) return;
  const ref = { workspace: panel.dataset.workspace, root: panel.dataset.root };

  const h = window.jpH; // page.js
  const btn = (id, text, onclick) => h('button', { type: 'button', id, class: 'linkish', onclick }, text);
  const show = (...content) => { panel.replaceChildren(...content); panel.hidden = content.length === 0; };

  async function call(method, url, body) {
    const opts = { method, cache: 'no-store' };
    if (body) { opts.headers = { 'Content-Type': 'application/json' }; opts.body = JSON.stringify(body); }
    const resp = await jpFetch(url, opts);
    let data = {};
    try { data = await resp.json(); } catch (e) { data = { error: resp.status + ' ' + resp.statusText }; }
    if (!resp.ok) throw new Error(data.error || resp.statusText);
    return data;
  }

  // held lists what the configuration would make jp do, as the terminal's
  // question lists it.
  const held = (t) => h('ul', { class: 'held' }, ...t.held.map((k) => h('li', {}, k.does + ' ', h('code', {}, '[' + k.key + ']'))));

  function banner(t) {
    show(h('span', { id: 'trust-untrusted' }, 'This checkout (', h('code', {}, t.root), ') is not trusted, so its configuration\'s ' +
      t.held.length + (t.held.length === 1 ? ' key that runs programs or sends data is' : ' keys that run programs or send data are') +
      ' held back: turns here run without them. Its configuration would make jp:'), held(t),
    btn('trust', 'Trust this checkout…', () => ask(t)));
  }

  function ask(t) {
    show(h('span', { id: 'trust-ask' }, 'Trust ', h('code', {}, t.root), ' and apply these from the next turn on? (as jp workspace trust does)'), held(t),
      btn('trust-confirm', 'Trust', () => confirm(t)), ' · ', btn('trust-cancel', 'Cancel', () => banner(t)));
  }

  // confirm trusts what the banner showed: jp refuses if the
  // configuration changed since (the review's hash).
  async function confirm(shown) {
    try {
      const t = await call('POST', '/api/trust', Object.assign({ hash: shown.hash }, ref));
      show(h('span', { id: 'trust-done' }, t.trusted ? 'Trusted: the checkout\'s configuration applies from the next turn on (jp workspace trust --revoke undoes it).'
        : 'jp did not trust the checkout.'));
    } catch (e) {
      show('jp did not trust the checkout: ' + e.message + '.');
    }
  }

  (async function review() {
    try {
      const t = await call('GET', '/api/trust?' + new URLSearchParams(ref));
      if (!t.trusted && t.held.length > 0) banner(t);
    } catch (e) {
      panel.dataset.error = 'Could not read whether this checkout is trusted: ' + e.message;
    }
  })();
})();
