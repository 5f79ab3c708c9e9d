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

  document.addEventListener("DOMContentLoaded", function () {
    if (!window.htmx) return;
    htmx.onLoad(function (elt) {
      if (elt === document.body) return;
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
