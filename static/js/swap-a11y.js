// After an htmx swap: announce the new content (its data-announce) and move focus to its
// heading (data-focus), except while the learner is typing (live search), where focus stays in
// the box and only the announcement plays. A failed request shows its message in the error box
// and gives the focus back to the button that sent it.
// Hooks: data-focus and data-announce in the HTML the server sends.
(function () {
  "use strict";
  document.body.addEventListener("htmx:afterSettle", function (evt) {
    var elt = evt.target;
    // A lesson opened in place or a page restored from history: nav.js moves focus to its h1.
    var config = evt.detail && evt.detail.requestConfig;
    if (!elt || elt === document.body || !config || evt.detail.boosted) return;
    curso.arrived(elt, config && config.triggeringEvent && config.triggeringEvent.type === "input");
  });
  // A form's button is disabled while it sends (hx-disabled-elt), which drops the focus to the
  // top of the page; after a failure it goes back to the button, to send again from there.
  function refocus(evt) {
    var elt = evt.detail && evt.detail.elt;
    if (!elt || !elt.matches) return;
    window.setTimeout(function () {
      if (document.activeElement && document.activeElement !== document.body) return;
      var button = elt.matches("form") ? elt.querySelector("button:not([type=button])") : elt;
      if (button && !button.disabled && button.isConnected) button.focus();
    }, 0);
  }
  document.body.addEventListener("htmx:responseError", function (evt) {
    var xhr = evt.detail.xhr;
    var doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
    var text = (doc.body && doc.body.textContent || "").trim();
    curso.showError(text || curso.message("send-error").replace("{status}", xhr.status));
    refocus(evt);
  });
  document.body.addEventListener("htmx:sendError", function (evt) {
    curso.showError(curso.message("offline"));
    refocus(evt);
  });
})();
