// The lesson editor: a problem's "line N, column M" link moves the cursor there.
// Without this file the link still jumps to the text box.
(function () {
  "use strict";

  // Offset in the textarea's value of 1-based (line, column); clamped to the text.
  function offsetOf(text, line, col) {
    var offset = 0;
    for (var i = 1; i < line; i++) {
      var next = text.indexOf("\n", offset);
      if (next === -1) return text.length;
      offset = next + 1;
    }
    var end = text.indexOf("\n", offset);
    if (end === -1) end = text.length;
    return Math.min(offset + Math.max(col - 1, 0), end);
  }

  function goTo(box, line, col) {
    var offset = offsetOf(box.value, line, col);
    box.focus();
    box.setSelectionRange(offset, offset);
    // Scroll the line into view: the share of the text before it times the scroll height.
    var before = box.value.slice(0, offset).split("\n").length - 1;
    var lines = box.value.split("\n").length;
    box.scrollTop = Math.max(0, (before / lines) * box.scrollHeight - box.clientHeight / 2);
  }

  document.addEventListener("click", function (evt) {
    var link = evt.target.closest && evt.target.closest(".check-goto[data-line]");
    var box = document.getElementById("editor-texto");
    if (!link || !box) return;
    evt.preventDefault();
    goTo(box, parseInt(link.getAttribute("data-line"), 10) || 1, parseInt(link.getAttribute("data-col"), 10) || 1);
  });
})();
