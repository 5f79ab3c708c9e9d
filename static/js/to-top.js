// "Voltar ao topo" appears after one screen of scrolling, floating at the bottom right. Where
// the text fills the width (phones, narrow windows) it would sit on the text, even shown only
// while scrolling up (issue 38), so there it is a plain link at the end of the page (app.css),
// and the header, which comes back on scrolling up, is the way up meanwhile.
// Hook: data-to-top on the link (a plain link to the top of <main> without JavaScript).
(function () {
  "use strict";
  curso.onLoad("[data-to-top]", function (link) {
    var narrow = window.matchMedia("(max-width: 60rem)");
    // The scroll position is read in the first frame (update), not here: reading it here
    // would force the layout of the whole lesson inside this script.
    var ticking = false;
    function update() {
      ticking = false;
      var y = window.scrollY;
      link.hidden = !narrow.matches && y < window.innerHeight;
    }
    window.addEventListener("scroll", function () {
      if (!ticking) { ticking = true; window.requestAnimationFrame(update); }
    }, { passive: true });
    window.requestAnimationFrame(update);  // a page opened further down (#section) shows it
    link.addEventListener("click", function (evt) {
      evt.preventDefault();
      window.scrollTo({ top: 0, behavior: curso.calm() ? "auto" : "smooth" });
      var main = document.getElementById(link.getAttribute("href").slice(1));
      if (main) main.focus({ preventScroll: true });
    });
  });
})();
