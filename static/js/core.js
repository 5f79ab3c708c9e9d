// What the behaviours in static/js/ share. Each behaviour is one file, hooked by a data-*
// attribute and set up by curso.onLoad (htmx.onLoad's event) for the page and for every piece of HTML htmx puts in
// (a swap, a history restore), so no list of things to redo after a swap is kept by hand.
// The site works without any of this. Texts come from data-msg-* attributes on <body>, which
// the server fills from the catalog; URLs come from data-* attributes the server writes.
window.curso = (function () {
  "use strict";
  var YEAR_S = 365 * 24 * 3600;

  function message(name) {
    return document.body.getAttribute("data-msg-" + name) || "";
  }

  function announce(text) {
    var region = document.getElementById("anuncio");
    if (!region || !text) return;
    region.textContent = "";
    // A fresh text node after a tick makes screen readers announce repeated messages.
    window.setTimeout(function () { region.textContent = text; }, 50);
  }

  function showError(text) {
    var box = document.getElementById("aviso-erro");
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
    window.clearTimeout(showError.timer);
    showError.timer = window.setTimeout(function () { box.hidden = true; }, 10000);
  }

  // Text made safe in HTML, as an element's text or an attribute value in double quotes.
  var ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
  function esc(text) {
    return String(text).replace(/[&<>"]/g, function (c) { return ENTITIES[c]; });
  }

  // A message with its {name} placeholders filled from values; a name not in values stays.
  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, function (all, name) { return name in values ? values[name] : all; });
  }

  function find(elt, selector) {
    return elt.matches && elt.matches(selector) ? elt : elt.querySelector && elt.querySelector(selector);
  }

  // New content is in (an htmx swap, or a tree or calculator worked out in the page): focus
  // its heading (data-focus) unless the learner is typing, then read its data-announce.
  function arrived(elt, typing) {
    var target = find(elt, "[data-focus]");
    if (target && !typing) {
      target.focus();
      // Focus scrolls only a target out of the window: one under the header (the sticky
      // bar, or the phone's bar come back) is brought below it, its question from the top.
      var block = target.closest(".question") || target;
      var header = document.querySelector(".site-header");
      var below = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
      if (block.getBoundingClientRect().top < below) block.scrollIntoView({ block: "start" });
    }
    var news = find(elt, "[data-announce]");
    if (news) announce(news.getAttribute("data-announce"));
  }

  // Values are plain words and IANA zone names ("America/Manaus"), sent as they are.
  function setCookie(name, value) {
    if (!/^[A-Za-z0-9_+\-\/]+$/.test(value)) return;
    var secure = window.location.protocol === "https:" ? "; secure" : "";
    document.cookie = name + "=" + value + "; path=/; max-age=" + YEAR_S + "; samesite=lax" + secure;
  }

  // Tell the server the learner's time zone (a cookie named by <body data-zone-cookie>), once:
  // dates are shown in it. The pages vary by cookie, so prefetch.js calls this before it fetches
  // a lesson ahead; otherwise the copy fetched ahead would not match the next request.
  var TEMPORAL = !!(window.Temporal && Temporal.Now && Temporal.Now.timeZoneId);
  function rememberZone() {
    var name = document.body.getAttribute("data-zone-cookie");
    if (!name) return;
    var zone = TEMPORAL ? Temporal.Now.timeZoneId() : window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && (" " + document.cookie + ";").indexOf(" " + name + "=" + zone + ";") === -1) setCookie(name, zone);
  }

  function calm() {
    return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  // Work that is not needed for the first paint waits until the browser is idle (a phone's main
  // thread is busy laying out the lesson then); Safari has no requestIdleCallback.
  function later(work) {
    if (window.requestIdleCallback) window.requestIdleCallback(work, { timeout: 1500 });
    else window.setTimeout(work, 200);
  }

  // Set up each element under root (root included) that matches selector, once per element:
  // htmx.onLoad runs again for every swapped piece, and an element already set up keeps its
  // listeners. Nothing here reads the layout, so it stays cheap while the page is laid out.
  var setups = [];
  function onLoad(selector, setup) {
    var done = window.WeakSet ? new WeakSet() : null;
    function run(root) {
      var found = [];
      if (root.matches && root.matches(selector)) found.push(root);
      if (root.querySelectorAll) Array.prototype.push.apply(found, root.querySelectorAll(selector));
      found.forEach(function (el) {
        if (!done || done.has(el)) return;
        done.add(el);
        setup(el);
      });
    }
    // The page now (the scripts are deferred: it is parsed), then every piece htmx puts in:
    // htmx.onLoad's "htmx:load", listened for on the document because a lesson loads htmx
    // only on the reader's first interaction (static/htmx-on-demand.js).
    setups.push(run);
    run(document.body);
    document.addEventListener("htmx:load", function (evt) { run(evt.detail.elt); });
  }

  // Set up a piece of HTML put in by a behaviour itself (not by htmx), as onLoad does for htmx's.
  function loaded(root) {
    setups.forEach(function (run) { run(root); });
  }

  // Run work that needs htmx now, or once a lesson has loaded it (static/htmx-on-demand.js).
  function withHtmx(work) {
    if (window.htmx) work();
    else if (window.whenHtmx) window.whenHtmx(work);
  }

  return {
    message: message, esc: esc, fill: fill,
    announce: announce, arrived: arrived, showError: showError, setCookie: setCookie,
    calm: calm, later: later, onLoad: onLoad, loaded: loaded, withHtmx: withHtmx,
    rememberZone: rememberZone, temporal: TEMPORAL
  };
})();
