// "Continuar de onde parei": tell the server which section of the lesson is being read, once
// the reader has stayed a second on it (scrolling up to the menu to leave records nothing).
// The post goes through htmx (its CSRF header comes from <body hx-headers>), to the URL the
// page gives. Hook: data-place-url on the lesson's <article>, with data-licao (its slug).
(function () {
  "use strict";
  var article = null, sent = null, timer = null;

  curso.onLoad("[data-place-url]", function (el) {
    article = el;
    sent = null;
    window.clearTimeout(timer);
  });

  function send(section) {
    if (!article || !article.isConnected || section === sent) return;
    sent = section;
    var from = article;
    curso.withHtmx(function () {
      htmx.ajax("POST", from.getAttribute("data-place-url"), {
        source: from,
        swap: "none",
        values: { licao: from.getAttribute("data-licao"), secao: section }
      }).catch(function () { sent = null; });
    });
  }

  document.addEventListener("curso:secao", function (evt) {
    window.clearTimeout(timer);
    if (evt.detail.first) { sent = evt.detail.id; return; }  // opening the lesson already stored it
    if (evt.detail.id.indexOf("arvore-") === 0) return;  // a tree is not a place the server knows
    timer = window.setTimeout(function () { send(evt.detail.id); }, 1000);
  });
})();
