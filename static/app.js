// Small progressive enhancements on top of htmx. The site works without this file.
(function () {
  "use strict";

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
      var marks = article.querySelectorAll("h2[id]:not(#objetivos), h3[id], .question[id]");
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

  document.addEventListener("DOMContentLoaded", function () {
    revealCurrent(document);
    trackPlace();
    if (!window.htmx) return;
    htmx.onLoad(function (elt) {
      if (elt === document.body) return;
      revealCurrent(elt.parentNode || elt);
      var target = elt.matches && elt.matches("[data-focus]") ? elt : elt.querySelector("[data-focus]");
      if (target) target.focus();
      var message = elt.querySelector && elt.querySelector("[data-announce]");
      if (message) announce(message.getAttribute("data-announce"));
    });
    document.body.addEventListener("htmx:responseError", function (evt) {
      var xhr = evt.detail.xhr;
      var doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
      var text = (doc.body && doc.body.textContent || "").trim();
      showError(text || "Não foi possível enviar (erro " + xhr.status + "). Tente de novo.");
    });
    document.body.addEventListener("htmx:sendError", function () {
      showError("Sem conexão com o servidor. Verifique a rede e tente de novo; sua resposta não foi enviada.");
    });
  });
})();
