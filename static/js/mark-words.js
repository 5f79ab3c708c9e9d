// A page opened from a search result (?destaque=...) marks the searched words with <mark>
// and scrolls to the first one the reader can see (after the section the result pointed at):
// never one inside a glossary popup or a folded block. The words are matched as the search
// matched them (search-index.js: the course's index and the same stemmer), so the page marks
// what the result's excerpt marked. Done here, on the client, so the page's HTML (and its
// cache) does not depend on the query. It walks the whole lesson and scrolls: after the first
// frame, once the index is in (from the HTTP cache after a search).
// Hook: data-mark-words on the lesson's <article>.
(function () {
  "use strict";
  var WORD = /[\p{L}\p{N}_]+/gu;  // a word, as the search cuts them
  // Not marked: code and controls, and what the search does not index (glossary popups).
  var SKIP = "script, style, svg, button, input, textarea, mark, .heading-link, form .hint, [popover]";

  function visible(el) {
    return el.checkVisibility ? el.checkVisibility() : el.getClientRects().length > 0;
  }

  function mark(article, matches) {
    var walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        if (!node.nodeValue.trim() || node.parentNode.closest(SKIP)) return NodeFilter.FILTER_REJECT;
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    var nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    var marks = [];
    nodes.forEach(function (node) {
      var text = node.nodeValue, cursor = 0, match, pieces = [];
      WORD.lastIndex = 0;
      while ((match = WORD.exec(text))) {
        if (!matches(match[0])) continue;
        pieces.push(document.createTextNode(text.slice(cursor, match.index)));
        var el = document.createElement("mark");
        el.textContent = match[0];
        pieces.push(el);
        marks.push(el);
        cursor = match.index + match[0].length;
      }
      if (!pieces.length) return;
      pieces.push(document.createTextNode(text.slice(cursor)));
      var frag = document.createDocumentFragment();
      pieces.forEach(function (p) { frag.appendChild(p); });
      node.parentNode.replaceChild(frag, node);
    });
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
    var query = new URLSearchParams(window.location.search).get("destaque");
    if (!query) return;
    // After the first frame; by then search-index.js (later in the bundle) is set up too.
    window.requestAnimationFrame(function () {
      window.setTimeout(function () {
        if (!curso.searchIndex) return;
        curso.searchIndex.load().then(function (ready) {
          if (ready) mark(article, curso.searchIndex.matcher(query));  // else: stays at the section
        });
      }, 0);
    });
  });
})();
