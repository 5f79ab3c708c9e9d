// The section being read: the last heading (or question) whose top has passed the reading line,
// a third of the way down the window. An IntersectionObserver (no work on every scroll event)
// fires "curso:secao" when it changes; the contents rail and the address bar (here) and
// "Continuar de onde parei" (place.js) listen. Set up when the browser is idle: it measures the
// laid-out page.
// Hook: data-scrollspy on the lesson's <article> (data-path: its address); a new lesson (instant
// navigation) replaces it.
(function () {
  "use strict";
  // A tree counts as a place too, so its step's address (#arvore-...) is kept while it is read.
  var SELECTOR = ":scope > .heading-anchor > h2[id], :scope > .heading-anchor > h3[id], .question[id], .tree-widget[id]";
  // The reading line, as a share of the window's height from its top. The observer watches the
  // band above it and find() reads against the same line: with the band at 34% and the line at
  // a third, a heading that entered between the two was missed until it left the window.
  var LINE_PERCENT = 34;
  var spy = null;  // the article being followed: { article, observer, update, observeAll }
  var quiet = false;

  function follow(article) {
    if (!window.IntersectionObserver || !article.isConnected) return;
    if (spy) spy.observer.disconnect();
    var current = null;
    function find() {
      var marks = article.querySelectorAll(SELECTOR);  // htmx swaps questions and trees
      var found = "", line = window.innerHeight * LINE_PERCENT / 100;
      for (var i = 0; i < marks.length; i++) {
        if (marks[i].getBoundingClientRect().top > line) break;
        found = marks[i].id;
      }
      return found;
    }
    function update() {
      if (!article.isConnected) return;
      var section = find();
      if (section === current) return;
      // A swap (not the reader) moved things, or the page has just opened: keep the address.
      // The setup runs in an idle task; a reader who scrolled before it ran has chosen a place.
      var opened = current === null && (window.location.hash !== "" || window.scrollY === 0);
      var first = opened || quiet;
      current = section;
      document.dispatchEvent(new CustomEvent("curso:secao", { detail: { id: section, first: first } }));
    }
    var observer = new IntersectionObserver(update, { rootMargin: "0px 0px -" + (100 - LINE_PERCENT) + "% 0px" });
    function observeAll() {
      observer.disconnect();
      Array.prototype.forEach.call(article.querySelectorAll(SELECTOR), function (mark) { observer.observe(mark); });
    }
    spy = { article: article, observer: observer, update: update, observeAll: observeAll };
    observeAll();
    update();
  }

  curso.onLoad("[data-scrollspy]", function (article) {
    curso.later(function () { follow(article); });
  });

  // Only a swap's own moves are quiet, from the swap to the settle (and the focus moved then):
  // the reader's next scroll moves the address again.
  document.body.addEventListener("htmx:afterSwap", function () { quiet = true; });
  document.body.addEventListener("htmx:afterSettle", function () {
    if (spy && spy.article.isConnected) {
      quiet = true;
      spy.observeAll();
      spy.update();
    }
    quiet = false;
  });

  // The contents rail marks the section being read; the address follows it (replaceState).
  var written = null;  // the address this code last wrote (path, query and hash)
  function forget() { written = null; }  // an address htmx or the reader put there
  // A resize (a phone turned, a window dragged) moves the layout, not the reader: for a moment
  // after it, an address the reader chose stays even if its target is pushed off screen.
  var resized = 0;
  window.addEventListener("resize", function () { resized = Date.now(); });
  document.body.addEventListener("htmx:pushedIntoHistory", forget);
  document.body.addEventListener("htmx:replacedInHistory", forget);
  window.addEventListener("popstate", forget);
  document.addEventListener("curso:secao", function (evt) {
    if (!spy) return;
    var article = spy.article;
    var links = document.querySelectorAll(".toc a[href^='#']");
    var headings = {};
    Array.prototype.forEach.call(links, function (link) { headings[link.getAttribute("href").slice(1)] = link; });
    var id = evt.detail.id;
    // A question belongs to the section of the heading above it.
    var section = id;
    if (id && !headings[id]) {
      var el = document.getElementById(id), hs = article.querySelectorAll("h2[id], h3[id]");
      section = "";
      for (var i = 0; i < hs.length; i++) {
        if (!headings[hs[i].id]) continue;
        if (hs[i].compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) section = hs[i].id; else break;
      }
    }
    Array.prototype.forEach.call(links, function (link) { link.removeAttribute("aria-current"); });
    if (headings[section]) headings[section].setAttribute("aria-current", "location");
    if (evt.detail.first) return;  // opening the page keeps the address it was opened with
    // A lesson opened in place is on screen before htmx pushes its address: until then the
    // address is the last lesson's, and a section of this one must not be written into it
    // (back then returned to the last lesson with this one's section in its address).
    if (article.getAttribute("data-path") !== window.location.pathname) return;
    // An address the reader chose (a link, a tree step: ?arvore=...#arvore-..., which back
    // and forward walk) stays while its target is on screen; one this code wrote follows the
    // reading. Once the reader has passed the target, the address follows the reading again.
    var here = window.location.pathname + window.location.search + window.location.hash;
    var held = here !== written && window.location.hash &&
      document.getElementById(window.location.hash.slice(1));
    if (held) {
      var box = held.getBoundingClientRect();
      if (box.bottom > 0 && box.top < window.innerHeight) return;
      if (Date.now() - resized < 1000) return;
    }
    var url = window.location.pathname + window.location.search + (id ? "#" + id : "");
    if (url !== here) {
      window.history.replaceState(window.history.state, "", url);
      written = url;
    }
  });
})();
