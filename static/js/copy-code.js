// A copy button for each code block (useless without JavaScript, so added here). Set up when
// the browser is idle: nothing on the first screen needs it.
// Hooks: the .code-block wrapper the lesson renderer (app/content/markdown.py) gives each block;
// a hidden <button data-copy="#id" data-copied="said once copied"> the server writes (the
// class's join link), shown here.
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

  function copy(text, said) {
    var done = function () { curso.announce(said); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { legacyCopy(text); done(); });
    } else {
      legacyCopy(text);
      done();
    }
  }

  curso.onLoad("[data-copy]", function (button) {
    var source = document.querySelector(button.getAttribute("data-copy"));
    if (!source) return;
    button.hidden = false;
    button.addEventListener("click", function () { copy(source.textContent.trim(), button.getAttribute("data-copied")); });
  });

  curso.onLoad(".code-block", function (block) {
    curso.later(function () {
      if (block.querySelector(".copy-button")) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy-button";
      button.textContent = curso.message("copy");
      button.addEventListener("click", function () {
        copy(block.querySelector("pre").innerText.replace(/\n$/, ""), curso.message("copied"));
      });
      block.appendChild(button);
    });
  });
})();
