// A page opened from a search result (?destaque=...) comes with the searched words in <mark>,
// marked by the server where a reader can see them (app.content.search.mark_words: never in a
// glossary popup), so they show without JavaScript too. Here: scroll to the first one the
// reader can see (after the section the result pointed at; never one in a folded block) and
// say how many there are. After the first frame, so the first paint does not wait for it.
// Hook: data-mark-words on the lesson's <article>.
(function () {
  "use strict";

  function visible(el) {
    return el.checkVisibility ? el.checkVisibility() : el.getClientRects().length > 0;
  }

  function land(article) {
    var marks = Array.prototype.slice.call(article.querySelectorAll("mark"));
    var seen = marks.filter(visible);
    if (!seen.length) return;
    var target = window.location.hash && document.getElementById(window.location.hash.slice(1));
    var first = seen[0];
    if (target) {
      for (var i = 0; i < seen.length; i++) {
        if (target.compareDocumentPosition(seen[i]) & (Node.DOCUMENT_POSITION_FOLLOWING | Node.DOCUMENT_POSITION_CONTAINED_BY)) { first = seen[i]; break; }
      }
    }
    first.classList.add("mark-first");
    first.scrollIntoView({ block: "center", behavior: "auto" });
    curso.announce(curso.message("marked").replace("{count}", marks.length));
  }

  curso.onLoad("[data-mark-words]", function (article) {
    if (!new URLSearchParams(window.location.search).get("destaque")) return;
    window.requestAnimationFrame(function () { land(article); });
  });
})();
