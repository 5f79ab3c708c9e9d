// htmx on the reader's first interaction, not at start-up (issue 27, item 5): on a long lesson,
// htmx's start-up walk over the page was a large part of a phone's blocking time after the first
// paint, and the lesson reads without it. The first pointer, key, touch or focus loads it; a
// submit, a click on an htmx link or button, or a keystroke in an htmx field that comes before
// htmx is ready waits for it and is then replayed, so nothing the reader does is lost or turns
// into a full page load. Without JavaScript the forms and links stay plain forms and links.
// htmx takes a field's value when it sets the field up, so a field's own trigger must not say
// "changed": the replayed keystrokes would look like no change (tests/test_delivery.py).
(function () {
  "use strict";
  var me = document.currentScript;
  var src = me && me.getAttribute("data-src");
  // Elements htmx acts on when clicked: its verbs, and the links of a boosted region (the
  // pager and the course contents swap <main>, static/js/nav.js).
  var VERBS = "[hx-get], [hx-post], [data-hx-get], [data-hx-post]";
  var CLICKED = VERBS + ", [hx-boost='true'] a[href]";
  var state = "idle";  // "loading", then "ready"
  var waiting = [];

  function inject() {
    var tag = document.createElement("script");
    tag.src = src;
    tag.onload = function () {
      state = "ready";
      var work = waiting;
      waiting = [];
      work.forEach(function (replay) { replay(); });
    };
    document.head.appendChild(tag);
  }

  function load() {
    if (state !== "idle" || !src) return;
    state = "loading";
    // htmx 2 starts on DOMContentLoaded, or at once in a complete document: never in between.
    if (document.readyState === "complete") inject();
    else window.addEventListener("load", inject, { once: true });
  }

  function whenReady(replay) {
    load();
    waiting.push(replay);
  }

  // The behaviours (static/js/core.js, curso.withHtmx) queue work that needs htmx here.
  window.whenHtmx = function (work) {
    if (state === "ready") work();
    else whenReady(work);
  };

  ["pointerover", "pointerdown", "touchstart", "keydown", "focusin"].forEach(function (type) {
    document.addEventListener(type, load, { capture: true, passive: true, once: true });
  });

  document.addEventListener("click", function (evt) {
    if (state === "ready" || evt.button !== 0 || evt.ctrlKey || evt.metaKey || evt.shiftKey || evt.altKey) return;
    var elt = evt.target.closest && evt.target.closest(CLICKED);
    if (!elt || elt.tagName === "FORM") return;
    evt.preventDefault();
    whenReady(function () { elt.click(); });
  }, true);

  document.addEventListener("submit", function (evt) {
    if (state === "ready") return;
    var form = evt.target;
    var submitter = evt.submitter;
    if (!form.matches(VERBS) && !(submitter && submitter.matches(VERBS))) return;
    evt.preventDefault();
    // A click on the button lets htmx see which button sent the form, as on any later answer.
    whenReady(function () {
      if (submitter && submitter.form === form) submitter.click();
      else form.requestSubmit();
    });
  }, true);

  document.addEventListener("input", function (evt) {
    if (state === "ready") return;
    var field = evt.target;
    if (!field.closest || !field.closest("[hx-trigger], [data-hx-trigger]")) return;
    whenReady(function () { field.dispatchEvent(new Event("input", { bubbles: true })); });
  }, true);
})();
