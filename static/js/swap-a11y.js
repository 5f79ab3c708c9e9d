// After an htmx swap: announce the new content (its data-announce) and move focus to its
// heading (data-focus), except while the learner is typing (live search), where focus stays in
// the box and only the announcement plays. A failed request shows its message in the error box.
// Hooks: data-focus and data-announce in the HTML the server sends.
(function () {
  "use strict";
  function find(elt, selector) {
    return elt.matches && elt.matches(selector) ? elt : elt.querySelector && elt.querySelector(selector);
  }

  document.body.addEventListener("htmx:afterSettle", function (evt) {
    var elt = evt.target;
    // A lesson opened in place or a page restored from history: nav.js moves focus to its h1.
    var config = evt.detail && evt.detail.requestConfig;
    if (!elt || elt === document.body || !config || evt.detail.boosted) return;
    var typing = config && config.triggeringEvent && config.triggeringEvent.type === "input";
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
    if (news) curso.announce(news.getAttribute("data-announce"));
  });
  document.body.addEventListener("htmx:responseError", function (evt) {
    var xhr = evt.detail.xhr;
    var doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
    var text = (doc.body && doc.body.textContent || "").trim();
    curso.showError(text || curso.message("send-error").replace("{status}", xhr.status));
  });
  document.body.addEventListener("htmx:sendError", function () {
    curso.showError(curso.message("offline"));
  });
})();
