// Line numbers next to a text box that does not wrap (wrap="off"): one number per line of the
// text, in the box's font, line height and top padding (static/instructor.css), scrolled with
// the box. The lines the editor's check names (its "linha N" links) are marked.
// Hook: data-line-numbers on the textarea. Without JavaScript the box has no numbers.
(function () {
  "use strict";

  function lineCount(text) {
    var count = 1, at = -1;
    while ((at = text.indexOf("\n", at + 1)) !== -1) count++;
    return count;
  }

  curso.onLoad("textarea[data-line-numbers]", function (box) {
    var gutter = document.createElement("div");
    gutter.className = "editor-gutter";
    gutter.setAttribute("aria-hidden", "true");
    box.parentNode.insertBefore(gutter, box);
    function follow() { gutter.scrollTop = box.scrollTop; }
    function renumber() {
      var wanted = lineCount(box.value);
      while (gutter.childElementCount < wanted) {
        var number = document.createElement("span");
        number.textContent = gutter.childElementCount + 1;
        gutter.appendChild(number);
      }
      while (gutter.childElementCount > wanted) gutter.removeChild(gutter.lastChild);
      follow();
    }
    box.addEventListener("input", renumber);
    box.addEventListener("scroll", follow, { passive: true });
    renumber();
  });

  // The check's panel comes with each preview (an htmx swap): mark the lines it names now.
  curso.onLoad(".check-panel", function (panel) {
    document.querySelectorAll(".editor-gutter .has-problem").forEach(function (number) {
      number.classList.remove("has-problem");
    });
    panel.querySelectorAll(".check-goto[data-line]").forEach(function (link) {
      var box = document.getElementById(link.getAttribute("href").slice(1));
      var gutter = box && box.previousElementSibling;
      var number = gutter && gutter.classList.contains("editor-gutter") &&
        gutter.children[parseInt(link.getAttribute("data-line"), 10) - 1];
      if (number) number.classList.add("has-problem");
    });
  });
})();
