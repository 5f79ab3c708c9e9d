// The next lesson is fetched ahead when the browser is idle, and any lesson link on hover,
// focus or the touch that starts a tap (a phone has no hover), as <link rel="prefetch"> (the HTML only, about 14 KB: the page stays under 100 KB).
// Nothing is fetched ahead when the reader asked to save data.
// Hook: data-prefetch="<the path every lesson's address starts with>" on <body>.
(function () {
  "use strict";
  var done = {};

  function prefetch(href) {
    var url = new URL(href, window.location.href);
    if (url.origin !== window.location.origin || url.pathname === window.location.pathname) return;
    if (done[url.pathname]) return;
    curso.rememberZone();  // first: the copy fetched ahead must carry the cookies of the next visit
    done[url.pathname] = prefetchLink(url.pathname);
  }

  // A <link rel="prefetch"> (never fetch()): the server knows it by its Sec-Purpose header and
  // does not take it for the reader opening that lesson (their place stays where it is).
  function prefetchLink(path) {
    var element = document.createElement("link");
    element.rel = "prefetch";
    element.href = path;
    document.head.appendChild(element);
    return element;
  }

  curso.onLoad("[data-prefetch]", function (body) {
    var connection = navigator.connection;
    if (connection && connection.saveData) return;
    var prefix = body.getAttribute("data-prefetch");
    function ahead(evt) {
      var link = evt.target.closest && evt.target.closest("a[href]");
      if (!link) return;
      var url = new URL(link.getAttribute("href"), window.location.href);
      if (url.pathname.indexOf(prefix) === 0) prefetch(url.href);
    }
    curso.later(function () {
      document.addEventListener("pointerover", ahead, { passive: true });
      document.addEventListener("touchstart", ahead, { passive: true });
      document.addEventListener("focusin", ahead);
    });
  });

  // A visitor's first POST (the place saved as they read, a first answer) starts their session,
  // and the pages vary by Cookie: a copy fetched ahead without the session cookie no longer
  // serves. So after the first POST of a page, what was fetched ahead is fetched again, once,
  // with the cookies as they are now (for a reader who had a session already, a 304).
  var refreshed = false;
  document.addEventListener("htmx:afterRequest", function (evt) {
    var config = evt.detail.requestConfig;
    if (refreshed || !evt.detail.successful || !config || config.verb !== "post") return;
    refreshed = true;
    Object.keys(done).forEach(function (path) {
      done[path].remove();
      done[path] = prefetchLink(path);
    });
  });

  // The next lesson: the pager's link, which a lesson opened in place (nav.js) brings along.
  curso.onLoad("a[rel~='next'][href]", function (link) {
    var connection = navigator.connection;
    if (connection && connection.saveData) return;
    var prefix = document.body.getAttribute("data-prefetch");
    if (prefix === null || link.pathname.indexOf(prefix) !== 0) return;
    curso.later(function () { if (link.isConnected) prefetch(link.href); });
  });
})();
