// On a phone the header hides while the reader scrolls down and comes back on the way up
// (or when focus enters it). On wide screens it is simply sticky (app.css).
// Hook: data-hiding-header on the site's <header>.
(function () {
  "use strict";
  var NARROW = "(max-width: 59.99rem)";

  curso.onLoad("[data-hiding-header]", function (header) {
    // Jumps land below the header (scroll-padding-top in app.css): keep its real height, set
    // only when app.css' value is not it: a custom property set on <html> restyles every
    // element of the page (about 900 in a lesson, a long task on a phone at start-up). Called
    // by the ResizeObserver after a layout, so these reads force none.
    function measure() {
      var root = document.documentElement, height = header.offsetHeight + "px";
      if (getComputedStyle(root).getPropertyValue("--header-h").trim() !== height) {
        root.style.setProperty("--header-h", height);
      }
    }
    if (window.ResizeObserver) new ResizeObserver(measure).observe(header);
    else measure();
    // The scroll position is read in the first frame, where the layout is done anyway (reading
    // it now, while the lesson may not be laid out yet, would force that layout here).
    var narrow = null, last = null, ticking = false;
    window.requestAnimationFrame(function () {
      if (last !== null) return;
      last = window.scrollY;
      // A page opened on a section (#...) starts as a jump does: the section uncovered.
      if (window.location.hash && last > header.offsetHeight) hide(true);
    });
    function hide(yes) {
      narrow = narrow || window.matchMedia(NARROW);
      header.classList.toggle("is-hidden", yes && narrow.matches);
    }
    window.addEventListener("scroll", function () {
      if (ticking || !header.isConnected) return;
      ticking = true;
      window.requestAnimationFrame(function () {
        ticking = false;
        var y = window.scrollY, delta = last === null ? 0 : y - last;
        last = y;
        if (header.contains(document.activeElement) && document.activeElement !== document.body) return hide(false);
        if (y <= header.offsetHeight) hide(false);
        else if (delta > 4) hide(true);
        else if (delta < -4) hide(false);
      });
    }, { passive: true });
    header.addEventListener("focusin", function () { hide(false); });
    // A jump to a section lands with the heading at the top: keep it uncovered.
    window.addEventListener("hashchange", function () { if (window.scrollY > header.offsetHeight) hide(true); });
  });
})();
