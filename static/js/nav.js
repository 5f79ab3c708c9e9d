// Instant navigation between lessons: "previous", "next" and the course's contents are
// boosted links (hx-boost in lesson.html and _course_nav.html) that swap <main> for the next
// page's and push its address; htmx updates the title. Here the rest of a page change: the new
// heading takes the focus and is announced, and the window starts at the top. Back and forward
// ask the server for the page again (htmx-config historyCacheSize 0: a kept copy would hold the
// old forms' one-time keys) and get the same treatment. Without JavaScript they are plain links.
// Hook: hx-boost (htmx's own attribute) on the links' container.
(function () {
  "use strict";
  function arrived(main) {
    var heading = main && main.querySelector("h1");
    if (!heading) return;
    if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
    heading.focus({ preventScroll: true });
    curso.announce(heading.textContent.replace(/\s+/g, " ").trim());
  }

  // At the top before the first frame of the new page is drawn. The rest waits for htmx's
  // settle (its processing of the new <main>, and the behaviours' set-up, come after that
  // frame, so the heading is painted first). (A longer settle was tried: a click on the new
  // page before htmx processed it left as a plain link, a whole page load.)
  // The old <main> is emptied just before htmx takes it out: htmx fires an event for each
  // element it takes out (thousands in a lesson, 40 to 120 ms here), and nothing in there
  // needs it (the page's listeners go with their elements).
  document.body.addEventListener("htmx:beforeSwap", function (evt) {
    var target = evt.detail.target;
    if (!evt.detail.boosted || !evt.detail.shouldSwap || !target || target.id !== "conteudo") return;
    target.replaceChildren();
  });
  document.body.addEventListener("htmx:afterSwap", function (evt) {
    if (evt.detail && evt.detail.boosted) window.scrollTo(0, 0);
  });
  // What <head> says of the page (its canonical address, which a phone's "share" sends, the
  // previous and next lessons, the description) is taken from the new page too: htmx puts only
  // its <main> and <title> in. Back and forward (a history restore from the server) as well.
  var HEAD = ["link[rel='canonical']", "link[rel='prev']", "link[rel='next']", "meta[name='description']"];
  function takeHead(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html").head;
    if (!fresh || !fresh.querySelector(HEAD[0])) return;  // not a whole page: leave it as it is
    HEAD.forEach(function (selector) {
      var old = document.head.querySelector(selector), now = fresh.querySelector(selector);
      if (old && now) old.replaceWith(now);
      else if (old) old.remove();
      else if (now) document.head.appendChild(now);
    });
  }
  document.body.addEventListener("htmx:historyCacheMissLoad", function (evt) {
    if (evt.detail && evt.detail.xhr) takeHead(evt.detail.xhr.responseText);
  });

  var seen = window.WeakSet ? new WeakSet() : null;
  var shown = window.location.pathname;  // the page on screen (a tree step keeps its lesson's)
  document.body.addEventListener("htmx:afterSettle", function (evt) {
    var xhr = evt.detail && evt.detail.xhr;
    if (!evt.detail.boosted || !xhr || !seen || seen.has(xhr)) return;
    seen.add(xhr);
    takeHead(xhr.responseText);
    shown = window.location.pathname;
    window.scrollTo(0, 0);
    arrived(document.querySelector("main"));
  });
  // Back or forward to another page (not to another step of a tree on the same lesson).
  document.body.addEventListener("htmx:historyRestore", function () {
    if (window.location.pathname === shown) return;
    shown = window.location.pathname;
    arrived(document.querySelector("main"));
  });
  // Back twice quickly asks the server for two pages at once, and the older answer could come
  // last and put its page under the newer address (htmx swaps each one as it arrives): a newer
  // restore cancels the one still on its way.
  var restoring = null;
  document.body.addEventListener("htmx:historyCacheMiss", function (evt) {
    if (restoring && restoring !== evt.detail.xhr) restoring.abort();
    restoring = evt.detail.xhr;
  });
  // The same request as a plain click, so the copy of the next lesson fetched ahead
  // (prefetch.js; the pages vary by HX-Request) is the one used.
  document.body.addEventListener("htmx:configRequest", function (evt) {
    if (!evt.detail.boosted || evt.detail.verb !== "get") return;
    Object.keys(evt.detail.headers).forEach(function (name) {
      if (/^HX-/i.test(name)) delete evt.detail.headers[name];
    });
  });
  // A page that cannot be swapped in (a lesson gone, an error page) is opened as a plain
  // link would open it, with its own message.
  document.body.addEventListener("htmx:responseError", function (evt) {
    if (!evt.detail.boosted) return;
    evt.stopImmediatePropagation();
    window.location.assign(evt.detail.pathInfo.requestPath);
  });
})();
