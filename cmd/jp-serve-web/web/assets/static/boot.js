// jp serve web: the boot page. A browser's navigation cannot carry the
// token (it is never in a cookie: another port would receive it), so a
// page asked for without it is this one. It takes the token from the
// address's fragment (#token=..., which the browser sends to no server)
// into this tab's sessionStorage, which no other port can read, drops it
// from the address, and asks for the same page again with the token in
// the Authorization header.
'use strict';
(function () {
  const key = 'jp-web-token';
  const boot = document.getElementById('boot');
  // show puts the page in place of this one, in the same document, and
  // runs its scripts in order (a parsed page's scripts are inert).
  function show(html) {
    const doc = new DOMParser().parseFromString(html, 'text/html');
    document.title = doc.title;
    document.head.replaceWith(document.adoptNode(doc.head));
    document.body.replaceWith(document.adoptNode(doc.body));
    for (const old of document.querySelectorAll('script')) {
      const s = document.createElement('script');
      s.src = old.getAttribute('src');
      s.async = false;
      old.replaceWith(s);
    }
  }
  window.jpShow = show;
  function start() {
    const m = /^#token=([0-9a-f]+)$/.exec(location.hash);
    if (m) {
      try { sessionStorage.setItem(key, m[1]); } catch (e) { /* storage refused: the token lives in this page only */ }
      history.replaceState(null, '', location.pathname + location.search);
    }
    let token = m ? m[1] : null;
    try { token = sessionStorage.getItem(key) || token; } catch (e) { /* see above */ }
    if (!token) return; // the page says what to open
    boot.textContent = 'Loading…';
    fetch(location.pathname + location.search, { headers: { Authorization: 'Bearer ' + token }, cache: 'no-store', credentials: 'omit' })
      .then(async (resp) => {
        const text = await resp.text();
        if (resp.status === 401 || resp.status === 403) {
          // A token of an earlier start: forget it.
          try { sessionStorage.removeItem(key); } catch (e) { /* see above */ }
          boot.textContent = text.trim();
          return;
        }
        if (resp.redirected) history.replaceState(null, '', resp.url);
        show(text);
      })
      .catch((e) => { boot.textContent = 'Could not reach jp serve web: ' + e.message + '. Reload the page to try again.'; });
  }
  // The address with a (new) token opened in a tab that shows jp serve
  // web already changes only its fragment: take it (on a page shown
  // already, by loading it again).
  window.addEventListener('hashchange', () => {
    if (!/^#token=/.test(location.hash)) return;
    if (document.getElementById('boot')) start();
    else location.reload();
  });
  start();
})();
