// The phone menu: a modal <dialog> that borrows the site's links, the theme switch and, on a
// lesson, its contents and the course's lessons while it is open (they go back in place when
// it closes), so the page keeps one copy of each. What it borrows is looked up when it opens,
// so a lesson put in place by instant navigation lends its own.
// Hooks: data-drawer-button on the menu button (aria-controls names the dialog), data-drawer
// on the <dialog>, data-drawer-part on each thing it borrows.
(function () {
  "use strict";
  var homes = [];

  function bringBack() {
    homes.forEach(function (home) {
      if (home.marker.parentNode) home.marker.parentNode.insertBefore(home.node, home.marker);
      home.marker.remove();
      if (home.details) home.details.open = home.wasOpen;
    });
    homes = [];
  }

  curso.onLoad("[data-drawer-button]", function (button) {
    var first = document.getElementById(button.getAttribute("aria-controls"));
    if (!first || typeof first.showModal !== "function") return;
    button.hidden = false;
    button.setAttribute("aria-expanded", "false");
    button.addEventListener("click", function () {
      var dialog = document.getElementById(button.getAttribute("aria-controls"));
      if (!dialog || dialog.open) return;
      var body = dialog.querySelector(".drawer-body");
      Array.prototype.forEach.call(document.querySelectorAll("[data-drawer-part]"), function (node) {
        if (dialog.contains(node)) return;
        var marker = document.createComment("menu");
        node.parentNode.insertBefore(marker, node);
        var details = node.querySelector("details");
        homes.push({ node: node, marker: marker, details: details, wasOpen: details && details.open });
        if (details) details.open = true;
        body.appendChild(node);
      });
      dialog.showModal();
      button.setAttribute("aria-expanded", "true");
      var current = dialog.querySelector(".toc [aria-current], .course-nav [aria-current]");
      var target = (current && current.querySelector("a")) || current || dialog.querySelector(".drawer-close");
      if (target && target.focus) target.focus();
    });
  });

  curso.onLoad("[data-drawer]", function (dialog) {
    if (typeof dialog.showModal !== "function") return;
    var body = dialog.querySelector(".drawer-body");
    function button() { return document.querySelector("[data-drawer-button][aria-controls='" + dialog.id + "']"); }
    dialog.querySelector(".drawer-close").addEventListener("click", function () { dialog.close(); });
    // A tap on the backdrop (outside the panel) closes the menu too.
    dialog.addEventListener("click", function (evt) { if (evt.target === dialog) dialog.close(); });
    // A link followed inside the page, or to a lesson opened in place, closes the menu.
    body.addEventListener("click", function (evt) {
      var link = evt.target.closest && evt.target.closest("a[href]");
      if (link && (link.getAttribute("href").charAt(0) === "#" || link.closest("[hx-boost]"))) dialog.close();
    });
    // Keep Tab inside the menu (showModal makes the page inert; this also wraps around).
    dialog.addEventListener("keydown", function (evt) {
      if (evt.key !== "Tab") return;
      var items = Array.prototype.filter.call(
        dialog.querySelectorAll("a[href], button, summary, [tabindex]:not([tabindex='-1'])"),
        function (el) { return el.offsetParent !== null; });
      if (!items.length) return;
      var first = items[0], lastItem = items[items.length - 1];
      if (evt.shiftKey && document.activeElement === first) { evt.preventDefault(); lastItem.focus(); }
      else if (!evt.shiftKey && document.activeElement === lastItem) { evt.preventDefault(); first.focus(); }
    });
    // Escape (the dialog's own "cancel"), the close button, the backdrop or a link: focus goes
    // back to the menu button.
    dialog.addEventListener("close", function () {
      bringBack();
      var opener = button();
      if (!opener) return;
      opener.setAttribute("aria-expanded", "false");
      if (dialog.isConnected) opener.focus({ preventScroll: true });
    });
  });
})();
