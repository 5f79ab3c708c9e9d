// A page opened from a search result (?destaque=...) marks the searched words with <mark>
// and scrolls to the first one (after the section the result pointed at). Done here, on the
// client, so the page's HTML (and its cache) does not depend on the query. It walks the whole
// lesson and scrolls: after the first frame.
// Hook: data-mark-words on the lesson's <article>.
(function () {
  "use strict";
  function fold(text) {
    var out = "";
    for (var i = 0; i < text.length; i++) {
      var c = text[i].normalize("NFD")[0].toLowerCase();
      out += c.length === 1 ? c : text[i];
    }
    return out;
  }

  function mark(article, query) {
    var stems = fold(query).split(/[^a-z0-9\u00c0-\uffff]+/).filter(function (w) { return w.length >= 2; })
      .map(function (w) { return w.length > 4 ? w.replace(/(es|s)$/, "") : w; })
      .map(function (w) { return w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); });
    if (!stems.length) return;
    var pattern = new RegExp("(^|[^a-z0-9\u00c0-\uffff])((?:" + stems.join("|") + ")[a-z0-9\u00c0-\uffff]*)", "g");
    var walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        var parent = node.parentNode;
        if (!node.nodeValue.trim() || parent.closest("script, style, svg, button, input, textarea, mark, .heading-link, form .hint")) {
          return NodeFilter.FILTER_REJECT;
        }
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    var nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    var marks = [];
    nodes.forEach(function (node) {
      var text = node.nodeValue, folded = fold(text), cursor = 0, match, pieces = [];
      pattern.lastIndex = 0;
      while ((match = pattern.exec(folded))) {
        var start = match.index + match[1].length, end = start + match[2].length;
        pieces.push(document.createTextNode(text.slice(cursor, start)));
        var el = document.createElement("mark");
        el.textContent = text.slice(start, end);
        pieces.push(el);
        marks.push(el);
        cursor = end;
      }
      if (!pieces.length) return;
      pieces.push(document.createTextNode(text.slice(cursor)));
      var frag = document.createDocumentFragment();
      pieces.forEach(function (p) { frag.appendChild(p); });
      node.parentNode.replaceChild(frag, node);
    });
    if (!marks.length) return;
    var target = window.location.hash && document.getElementById(window.location.hash.slice(1));
    var first = marks[0];
    if (target) {
      for (var i = 0; i < marks.length; i++) {
        if (target.compareDocumentPosition(marks[i]) & (Node.DOCUMENT_POSITION_FOLLOWING | Node.DOCUMENT_POSITION_CONTAINED_BY)) { first = marks[i]; break; }
      }
    }
    first.classList.add("mark-first");
    first.scrollIntoView({ block: "center", behavior: "auto" });
    curso.announce(curso.message("marked").replace("{count}", marks.length));
  }

  curso.onLoad("[data-mark-words]", function (article) {
    var query = new URLSearchParams(window.location.search).get("destaque");
    if (!query) return;
    window.requestAnimationFrame(function () { window.setTimeout(function () { mark(article, query); }, 0); });
  });
})();
