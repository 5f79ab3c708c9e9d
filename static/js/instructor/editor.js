// The lesson editor: a problem's "line N, column M" link moves the cursor there and centres
// that line in the box; the text is checked against the size limits before it is sent.
// Without this file the link still jumps to the text box.
// Hook: the editor's text box, #editor-texto (templates/editor.html).
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
    // The text does not wrap (wrap="off"): each line is one line height tall. Centre the line.
    var before = box.value.slice(0, offset).split("\n").length - 1;
    var style = window.getComputedStyle(box);
    var height = parseFloat(style.lineHeight) || 0;
    var top = (parseFloat(style.paddingTop) || 0) + before * height;
    box.scrollTop = Math.max(0, top - (box.clientHeight - height) / 2);
  }

  curso.onLoad("#editor-texto", function (box) {
    document.addEventListener("click", function (evt) {
      var link = evt.target.closest && evt.target.closest(".check-goto[data-line]");
      if (!link) return;
      evt.preventDefault();
      goTo(box, parseInt(link.getAttribute("data-line"), 10) || 1, parseInt(link.getAttribute("data-col"), 10) || 1);
    });

    // Size limits, checked before anything is sent: a text over the limit stays in the box with
    // the reason, instead of a refusal page. The server checks the same limits
    // (app/web/routes/editor.py MAX_TEXT, app/web/security.py MAX_EDITOR_FORM_BYTES).
    var form = box.form;
    var warning = document.getElementById("editor-grande");
    var maxChars = parseInt(box.getAttribute("data-max-chars"), 10) || Infinity;
    var maxBytes = parseInt(box.getAttribute("data-max-bytes"), 10) || Infinity;

    function codePoints(text) {
      var pairs = text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g);
      return text.length - (pairs ? pairs.length : 0);
    }

    function number(value, digits) {
      return value.toLocaleString("pt-BR", { maximumFractionDigits: digits || 0 });
    }

    // The reason the text cannot be sent, or "" when it can.
    function tooLarge() {
      var count = codePoints(box.value);
      if (count > maxChars) {
        return box.getAttribute("data-too-long").replace("{count}", number(count));
      }
      var bytes = new URLSearchParams(new FormData(form)).toString().length;
      if (bytes > maxBytes) {
        return box.getAttribute("data-too-heavy").replace("{size}", number(bytes / 1048576, 1));
      }
      return "";
    }

    function refuse(evt) {
      var reason = tooLarge();
      if (warning) {
        warning.textContent = reason;
        warning.hidden = !reason;
      }
      if (reason) evt.preventDefault();
      return !reason;
    }

    // A copy of the last text sent, in this browser: a sending refused before it reached the
    // editor (a body too large to read, an expired session, the network) loses nothing.
    var KEY = "curso-editor:" + (box.getAttribute("data-lesson") || location.pathname);
    var notice = document.getElementById("editor-copia");

    function keptCopy() {
      try {
        return JSON.parse(localStorage.getItem(KEY) || "null");
      } catch (err) {
        return null;
      }
    }

    function forget() {
      try {
        localStorage.removeItem(KEY);
      } catch (err) { /* storage off: nothing kept */ }
    }

    var copy = keptCopy();
    if (copy && typeof copy.text === "string" && copy.text !== box.value && notice) {
      notice.hidden = false;
      document.getElementById("editor-copia-usar").addEventListener("click", function () {
        box.value = copy.text;
        notice.hidden = true;
        box.focus();
        box.dispatchEvent(new Event("input", { bubbles: true }));
      });
      document.getElementById("editor-copia-descartar").addEventListener("click", function () {
        forget();
        notice.hidden = true;
      });
    } else if (copy) {
      forget(); // the page holds it: published, or kept as a draft by the server
    }

    form.addEventListener("submit", function (evt) {
      if (!refuse(evt)) return;
      try {
        localStorage.setItem(KEY, JSON.stringify({ text: box.value }));
      } catch (err) { /* over the browser's quota: the server still answers with the text */ }
    });

    // The live preview (htmx) is not sent either while the text is over the limit.
    box.addEventListener("htmx:confirm", function (evt) {
      refuse(evt);
    });
  });
})();
