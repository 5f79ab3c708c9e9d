// "Voltar ao topo" appears after one screen of scrolling. Where the text fills the width
// (phones, narrow windows) it would sit on the text, so there it shows only while the reader
// scrolls up, as the header does, and while it has the focus.
// Hook: data-to-top on the link (a plain link to the top of <main> without JavaScript).
(function () {
  "use strict";
  curso.onLoad("[data-to-top]", function (link) {
    var narrow = window.matchMedia("(max-width: 60rem)");
    // lastY starts at 0, not at window.scrollY: reading the scroll position here would force
    // the layout of the whole lesson inside this script; the first frame reads it (update).
    var ticking = false, lastY = 0, up = false;
    function update() {
      ticking = false;
      var y = window.scrollY;
      if (y > lastY + 4) up = false;
      else if (y < lastY - 4) up = true;
      lastY = y;
      var wanted = y >= window.innerHeight && (!narrow.matches || up || document.activeElement === link);
      link.hidden = !wanted;
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
