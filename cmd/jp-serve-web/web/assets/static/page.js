// jp serve web: what every page shares. jpFetch is fetch with the token
// (kept in this tab's sessionStorage by boot.js) in the Authorization
// header: the token is never in a cookie or an address. A form that posts
// (a new conversation) is sent with it, and the page it leads to opened.
// A code block's Copy button copies its code. jpH makes the elements
// the page scripts add.
'use strict';
(function () {
  if (window.jpFetch) return; // a page shown in place of another: set up already
  const key = 'jp-web-token';
  function token() {
    try { return sessionStorage.getItem(key) || ''; } catch (e) { return ''; }
  }
  // jpH makes an element, for the page scripts (app.js, live.js,
  // trust.js): attrs sets class, on* listeners and other attributes;
  // children are nodes or strings, which become text, never HTML.
  window.jpH = function (tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) e.append(k);
    return e;
  };
  window.jpFetch = function (url, opts) {
    const o = Object.assign({ credentials: 'omit' }, opts || {});
    o.headers = Object.assign({}, o.headers || {}, { Authorization: 'Bearer ' + token() });
    return fetch(url, o);
  };
  // A code block's Copy button puts the block's text on the clipboard
  // (the page runs no inline script: the button is wired here).
  document.addEventListener('click', async (ev) => {
    const btn = ev.target instanceof Element && ev.target.closest('.code button.copy');
    if (!btn) return;
    const code = btn.closest('.code').querySelector('pre code');
    try {
      await navigator.clipboard.writeText(code ? code.textContent : '');
      btn.textContent = 'Copied';
    } catch (e) {
      btn.textContent = 'Copy failed';
    }
    setTimeout(() => { btn.textContent = 'Copy'; }, 1500);
  });
  document.addEventListener('submit', async (ev) => {
    const form = ev.target;
    if (!(form instanceof HTMLFormElement) || form.method.toLowerCase() !== 'post' || ev.defaultPrevented) return;
    ev.preventDefault();
    const button = form.querySelector('button[type="submit"], button:not([type])');
    if (button) button.disabled = true;
    try {
      const resp = await window.jpFetch(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form)) });
      if (resp.ok && resp.redirected) {
        location.assign(resp.url);
        return;
      }
      const text = await resp.text();
      history.pushState(null, '', resp.url);
      window.jpShow(text); // a problem page (jpShow: boot.js)
    } catch (e) {
      if (button) button.disabled = false;
      alert('Could not reach jp serve web: ' + e.message);
    }
  });
})();
