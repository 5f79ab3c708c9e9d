// A copy button for each code block (useless without JavaScript, so added here). Set up when
// the browser is idle: nothing on the first screen needs it.
// Hook: the .code-block wrapper the lesson renderer (app/content/markdown.py) gives each block.
(function () {
  "use strict";
  function legacyCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }

  curso.onLoad(".code-block", function (block) {
    curso.later(function () {
      if (block.querySelector(".copy-button")) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy-button";
      button.textContent = curso.message("copy");
      button.addEventListener("click", function () {
        var text = block.querySelector("pre").innerText.replace(/\n$/, "");
        var done = function () { curso.announce(curso.message("copied")); };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(done, function () { legacyCopy(text); done(); });
        } else {
          legacyCopy(text);
          done();
        }
      });
      block.appendChild(button);
    });
  });
})();
