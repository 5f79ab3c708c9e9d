// The theme switch: apply at once, remember in the same cookie the server reads.
// Hook: data-theme-switch on the switch's form (a plain post works too). The cookie is the
// buttons' field name, the one the server reads.
(function () {
  "use strict";
  curso.onLoad("[data-theme-switch]", function (form) {
    form.addEventListener("submit", function (evt) {
      var button = evt.submitter;
      if (!button || !button.value) return;
      evt.preventDefault();
      var dark = button.classList.contains("theme-to-dark");
      curso.setCookie(button.name, button.value);
      document.documentElement.setAttribute("data-theme", dark ? "dark" : "light");
      var sheet = document.querySelector("link[data-dark-theme]");
      if (sheet) sheet.media = dark ? "all" : "not all";
      // The pressed button is now hidden: keep keyboard focus on the one that took its place.
      var other = form.querySelector(dark ? ".theme-to-light" : ".theme-to-dark");
      if (other) other.focus();
      curso.announce(curso.message(dark ? "dark" : "light"));
    });
  });
})();
