// Small progressive enhancements on top of htmx. The site works without this file.
// Texts come from data-msg-* attributes on <body>, which the server fills from the catalog.
(function () {
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

  // Values are plain words and IANA zone names ("America/Manaus"), sent as they are.
  function setCookie(name, value) {
    if (!/^[A-Za-z0-9_+\-\/]+$/.test(value)) return;
    var secure = window.location.protocol === "https:" ? "; secure" : "";
    document.cookie = name + "=" + value + "; path=/; max-age=" + YEAR_S + "; samesite=lax" + secure;
  }

  // Dates are shown in the learner's time zone: tell the server which one it is.
  function rememberTimeZone() {
    var zone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && (" " + document.cookie + ";").indexOf(" fuso=" + zone + ";") === -1) setCookie("fuso", zone);
  }

  // The theme switch: apply at once, remember in the same cookie the server reads.
  function enhanceThemeSwitch() {
    var form = document.querySelector(".theme-switch");
    if (!form) return;
    form.addEventListener("submit", function (evt) {
      var button = evt.submitter;
      if (!button || !button.value) return;
      evt.preventDefault();
      var dark = button.value === "escuro";
      setCookie("tema", button.value);
      document.documentElement.setAttribute("data-theme", dark ? "dark" : "light");
      var sheet = document.querySelector("link[data-dark-theme]");
      if (sheet) sheet.media = dark ? "all" : "not all";
      // The pressed button is now hidden: keep keyboard focus on the one that took its place.
      var other = form.querySelector(dark ? ".theme-to-light" : ".theme-to-dark");
      if (other) other.focus();
      announce(message(dark ? "dark" : "light"));
    });
  }

  // A copy button for each code block (useless without JavaScript, so added here).
  function addCopyButtons(root) {
    var blocks = root.querySelectorAll ? root.querySelectorAll(".code-block") : [];
    Array.prototype.forEach.call(blocks, function (block) {
      if (block.querySelector(".copy-button")) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy-button";
      button.textContent = message("copy");
      button.addEventListener("click", function () {
        var text = block.querySelector("pre").innerText.replace(/\n$/, "");
        var done = function () { announce(message("copied")); };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(done, function () { legacyCopy(text); done(); });
        } else {
          legacyCopy(text);
          done();
        }
      });
      block.appendChild(button);
    });
  }

  function legacyCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }

  // Keep the current node of each tree map in view (the map may be wider than its box).
  function revealCurrent(root) {
    var maps = root.querySelectorAll ? root.querySelectorAll(".tree-map") : [];
    Array.prototype.forEach.call(maps, function (map) {
      var node = map.querySelector(".tree-node.current");
      if (!node) return;
      var box = node.getBoundingClientRect(), frame = map.getBoundingClientRect();
      // Scroll only when the current node is not fully in view, and just enough to show it.
      if (box.left >= frame.left && box.right <= frame.right) return;
      var target = box.right > frame.right ? map.scrollLeft + box.right - frame.right + 24 : map.scrollLeft + box.left - frame.left - 24;
      var calm = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      map.scrollTo({ left: Math.max(0, target), behavior: calm ? "auto" : "smooth" });
    });
  }

  // "Continuar de onde parei": tell the server which section of the lesson is being read,
  // once the reader has stayed a second on it (scrolling up to the menu to leave records nothing).
  function trackPlace() {
    var article = document.querySelector("article.lesson[data-licao]");
    var headers = document.body.getAttribute("hx-headers");
    if (!article || !headers || !window.fetch) return;
    var token = JSON.parse(headers)["x-csrftoken"];
    var lesson = article.getAttribute("data-licao");
    var sent = null, timer = null;
    function current() {
      // The lesson's own sections only (a tree's title is not a place the server knows).
      var marks = article.querySelectorAll(":scope > h2[id], :scope > h3[id], .question[id]");
      var found = "", line = window.innerHeight / 3;
      for (var i = 0; i < marks.length; i++) {
        if (marks[i].getBoundingClientRect().top > line) break;
        found = marks[i].id;
      }
      return found;
    }
    function send() {
      var section = current();
      if (section === sent) return;
      sent = section;
      var body = new URLSearchParams({ csrftoken: token, licao: lesson, secao: section });
      fetch("/progresso/lugar", { method: "POST", body: body, credentials: "same-origin", keepalive: true })
        .catch(function () { sent = null; });
    }
    sent = current();  // opening the lesson already stored its top
    window.addEventListener("scroll", function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(send, 1000);
    }, { passive: true });
  }

  // Ordering questions: the form posts one position select per step (that is all it needs
  // without JavaScript). Here the steps also move by drag and drop and by Move up/down buttons;
  // after every move each select takes its step's new position, so the post is the same.
  function enhanceOrdering(root) {
    var lists = root.querySelectorAll ? root.querySelectorAll("[data-ordering]:not([data-enhanced])") : [];
    Array.prototype.forEach.call(lists, function (list) {
      list.setAttribute("data-enhanced", "");
      list.classList.add("ordering-enhanced");
      var form = list.closest("form");
      var hint = form && form.querySelector(".ordering-js-hint");
      if (hint) hint.hidden = false;
      var selectHint = form && form.querySelector(".ordering-nojs-hint");
      if (selectHint) selectHint.hidden = true;
      var dragged = null;
      Array.prototype.forEach.call(list.children, function (item) {
        item.querySelector(".ordering-moves").hidden = false;
        item.querySelector(".ordering-position").hidden = true;
        item.draggable = true;
        item.addEventListener("dragstart", function (evt) {
          dragged = item;
          item.classList.add("dragging");
          evt.dataTransfer.effectAllowed = "move";
          evt.dataTransfer.setData("text/plain", item.getAttribute("data-item"));
        });
        item.addEventListener("dragend", function () {
          item.classList.remove("dragging");
          dragged = null;
        });
        item.addEventListener("dragover", function (evt) {
          if (!dragged || dragged === item) return;
          evt.preventDefault();
          var box = item.getBoundingClientRect();
          var after = evt.clientY > box.top + box.height / 2;
          list.insertBefore(dragged, after ? item.nextSibling : item);
        });
        item.addEventListener("drop", function (evt) {
          evt.preventDefault();
          if (dragged) moved(list, dragged, null);
        });
      });
      list.addEventListener("click", function (evt) {
        var button = evt.target.closest(".ordering-move");
        if (!button) return;
        var item = button.closest(".ordering-item");
        var step = Number(button.getAttribute("data-move"));
        var other = step < 0 ? item.previousElementSibling : item.nextElementSibling;
        if (other) list.insertBefore(item, step < 0 ? other : other.nextSibling);
        moved(list, item, button);
      });
      number(list);
    });
  }

  function number(list) {
    Array.prototype.forEach.call(list.children, function (item, index) {
      var select = item.querySelector("select");
      select.value = item.getAttribute("data-item") + "=" + (index + 1);
    });
  }

  function moved(list, item, button) {
    number(list);
    if (button) {
      var again = item.querySelector('[data-move="' + button.getAttribute("data-move") + '"]');
      if (again) again.focus();
    }
    var position = Array.prototype.indexOf.call(list.children, item) + 1;
    var text = list.getAttribute("data-msg-moved")
      .replace("{step}", item.querySelector(".ordering-text").textContent.trim())
      .replace("{num}", position).replace("{total}", list.children.length);
    announce(text);
  }

  function find(elt, selector) {
    return elt.matches && elt.matches(selector) ? elt : elt.querySelector && elt.querySelector(selector);
  }

  document.addEventListener("DOMContentLoaded", function () {
    rememberTimeZone();
    enhanceThemeSwitch();
    addCopyButtons(document);
    revealCurrent(document);
    trackPlace();
    enhanceOrdering(document);
    if (!window.htmx) return;
    // After a swap: announce the new content and move focus to its heading, except while the
    // learner is typing (live search), where focus stays in the box and only the announcement plays.
    document.body.addEventListener("htmx:afterSettle", function (evt) {
      var elt = evt.target;
      if (!elt || elt === document.body) return;
      revealCurrent(elt.parentNode || elt);
      addCopyButtons(elt);
      enhanceOrdering(elt.parentNode || elt);
      var config = evt.detail && evt.detail.requestConfig;
      var typing = config && config.triggeringEvent && config.triggeringEvent.type === "input";
      var target = find(elt, "[data-focus]");
      if (target && !typing) target.focus();
      var news = find(elt, "[data-announce]");
      if (news) announce(news.getAttribute("data-announce"));
    });
    document.body.addEventListener("htmx:responseError", function (evt) {
      var xhr = evt.detail.xhr;
      var doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
      var text = (doc.body && doc.body.textContent || "").trim();
      showError(text || message("send-error").replace("{status}", xhr.status));
    });
    document.body.addEventListener("htmx:sendError", function () {
      showError(message("offline"));
    });
  });
})();
