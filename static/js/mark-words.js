// A page opened from a search result (?destaque=...) comes with the searched words in <mark>,
// marked by the server where a reader can see them (app.content.search.mark_words: never in a
// glossary popup), so they show without JavaScript too. Here: scroll to the first one the
// reader can see in the section the result pointed at (never one in a folded block, nor one
// in a later section: with none in it, the section's heading) and say how many there are.
// After the first frame, so the first paint does not wait for it.
// Hook: data-mark-words on the lesson's <article>.
(function () {
  "use strict";

  function visible(el) {
    return el.checkVisibility ? el.checkVisibility() : el.getClientRects().length > 0;
  }

  // The element after ``target`` that starts the next section (any heading), or null.
  function nextHeading(article, target) {
    var headings = article.querySelectorAll("h1, h2, h3, h4, h5, h6");
    for (var i = 0; i < headings.length; i++) {
      var h = headings[i];
      if (h !== target && !target.contains(h) && (target.compareDocumentPosition(h) & Node.DOCUMENT_POSITION_FOLLOWING)) return h;
    }
    return null;
  }

  // With a #fragment, the result is that section: its first visible mark (at or after the
  // target, before the next heading), or the section's heading when it shows none.
  function land(article) {
    var marks = Array.prototype.slice.call(article.querySelectorAll("mark"));
    var seen = marks.filter(visible);
    var target = window.location.hash && document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
    var first = null;
    if (target) {
      var end = nextHeading(article, target);
      for (var i = 0; i < seen.length; i++) {
        var after = target.compareDocumentPosition(seen[i]) & (Node.DOCUMENT_POSITION_FOLLOWING | Node.DOCUMENT_POSITION_CONTAINED_BY);
        var before = !end || (end.compareDocumentPosition(seen[i]) & Node.DOCUMENT_POSITION_PRECEDING);
        if (after && before) { first = seen[i]; break; }
      }
    } else {
      first = seen[0] || null;
    }
    if (first) {
      first.classList.add("mark-first");
      first.scrollIntoView({ block: "center", behavior: "auto" });
    } else if (target) {
      target.scrollIntoView({ block: "start", behavior: "auto" });
    } else {
      return;
    }
    curso.announce(curso.message("marked").replace("{count}", marks.length));
  }

  curso.onLoad("[data-mark-words]", function (article) {
    if (!new URLSearchParams(window.location.search).get("destaque")) return;
    window.requestAnimationFrame(function () { land(article); });
  });
})();
