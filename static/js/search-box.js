// Search from anywhere: the keys the box names in aria-keyshortcuts focus it (outside text
// fields), on the search page its own box. The header box
// is a combobox: search-index.js finds the suggestions as the learner types (in the browser,
// or, until its index is in, htmx asks the server: hx-get on the box, into the server-rendered
// listbox, _search_listbox.html); this file does the keyboard
// (arrows, Enter, Escape) and the ARIA state. Without JavaScript it is a form that opens the
// search page.
// Hooks: data-search-box on the header's box (its aria-controls names the listbox),
// data-search-listbox on the listbox (each new one from the server replaces the old),
// data-search-toggle on the phone bar's button that opens the box.
(function () {
  "use strict";

  function openSearch() {
    var header = document.querySelector(".site-header");
    var toggle = document.querySelector("[data-search-toggle]");
    if (!header || !toggle || toggle.offsetParent === null) return;
    header.classList.add("is-searching");
    toggle.setAttribute("aria-expanded", "true");
  }

  document.addEventListener("keydown", function (evt) {
    if (evt.defaultPrevented || evt.ctrlKey || evt.metaKey || evt.altKey) return;
    var box = document.querySelector("[data-search-box]") || document.querySelector("[data-search-page-box]");
    if (!box) return;
    var keys = (box.getAttribute("aria-keyshortcuts") || "").toLowerCase().split(" ");
    if (keys.indexOf(evt.key.toLowerCase()) === -1) return;
    var active = document.activeElement;
    if (active && (active.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName))) return;
    if (document.querySelector("dialog[open]")) return;
    evt.preventDefault();
    openSearch();
    box.focus();
    box.select();
  });

  // On a phone the bar has a search button instead of the box: it opens the box under the bar
  // and focuses it; leaving the box (focus elsewhere, Escape on an empty box) closes it.
  curso.onLoad("[data-search-toggle]", function (toggle) {
    var header = toggle.closest(".site-header");
    var form = document.getElementById(toggle.getAttribute("aria-controls"));
    if (!header || !form) return;
    toggle.hidden = false;
    function close(refocus) {
      header.classList.remove("is-searching");
      toggle.setAttribute("aria-expanded", "false");
      if (refocus) toggle.focus();
    }
    toggle.addEventListener("click", function () {
      if (header.classList.contains("is-searching")) return close(false);
      openSearch();
      var box = form.querySelector("input");
      box.focus();
      box.select();
    });
    form.addEventListener("focusout", function (evt) {
      if (evt.relatedTarget && (form.contains(evt.relatedTarget) || evt.relatedTarget === toggle)) return;
      close(false);
    });
    form.addEventListener("keydown", function (evt) {
      if (evt.key === "Escape" && !evt.defaultPrevented && header.classList.contains("is-searching")) close(true);
    });
  });

  var input = null, active = -1;

  function list() { return input && document.getElementById(input.getAttribute("aria-controls")); }
  function options() { var l = list(); return l ? l.querySelectorAll("[role=option]") : []; }
  function typed() { return input.value.replace(/\s+/g, " ").trim(); }
  function open(yes) {
    var l = list();
    if (!l) return;
    l.hidden = !yes;
    input.setAttribute("aria-expanded", yes ? "true" : "false");
    if (!yes) choose(-1);
  }
  function choose(index) {
    var items = options();
    active = index;
    Array.prototype.forEach.call(items, function (item, i) { item.setAttribute("aria-selected", i === index ? "true" : "false"); });
    if (index >= 0 && items[index]) {
      input.setAttribute("aria-activedescendant", items[index].id);
      // The last option ("see every result") sticks to the list's foot (app.css): an option
      // scrolled into view must end above it, whatever its height at this width and font size.
      var l = list(), foot = items[items.length - 1];
      if (l) l.style.scrollPaddingBottom = index === items.length - 1 ? "" : foot.offsetHeight + "px";
      items[index].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }
  function go(item) { window.location.assign(item.getAttribute("data-href")); }

  curso.onLoad("[data-search-box]", function (box) {
    input = box;
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.addEventListener("keydown", function (evt) {
      var items = options(), l = list();
      if (evt.key === "ArrowDown" || evt.key === "ArrowUp") {
        evt.preventDefault();
        if (l.hidden) { if (items.length) open(true); else curso.search(input); return; }
        var n = items.length;
        choose(evt.key === "ArrowDown" ? (active + 1) % n : (active <= 0 ? n - 1 : active - 1));
      } else if (evt.key === "Enter" && !l.hidden && active >= 0 && items[active]) {
        evt.preventDefault();
        go(items[active]);
      } else if (evt.key === "Escape" && !l.hidden) {
        evt.preventDefault();
        evt.stopPropagation();
        open(false);
      }
    });
    input.addEventListener("blur", function () { window.setTimeout(function () { open(false); }, 150); });
    input.addEventListener("focus", function () {
      var l = list();
      if (options().length && l.getAttribute("data-query") === typed()) open(true);
    });
    // A failed request: no stale list, and a word on what to do (instead of the page's toast).
    function failed(evt) {
      evt.stopPropagation();
      open(false);
      curso.announce(curso.message("search-error"));
    }
    input.addEventListener("htmx:responseError", failed);
    input.addEventListener("htmx:sendError", failed);
  });

  // A new list from the server: shown while it answers what is in the box (a slower answer to
  // words since replaced, or an emptied box, closes it).
  curso.onLoad("[data-search-listbox]", function (l) {
    l.addEventListener("mousedown", function (evt) { evt.preventDefault(); });  // keep focus in the box
    l.addEventListener("click", function (evt) {
      var item = evt.target.closest("[role=option]");
      if (item) go(item);
    });
    if (!input || input.getAttribute("aria-controls") !== l.id) return;
    active = -1;
    var current = l.getAttribute("data-query") === typed() && l.querySelector("[role=option]");
    open(!!current && document.activeElement === input);
  });
})();
