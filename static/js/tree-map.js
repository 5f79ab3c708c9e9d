// Keep the current node of each tree map in view (the map may be wider than its box). Done
// when the map comes into view: measuring a map that is not rendered yet (a closed "Ver o mapa"
// on a phone, or far below) would force its layout while the page is loading.
// Hook: data-tree-map on the map's scrolling box.
(function () {
  "use strict";
  function reveal(map) {
    var node = map.querySelector(".tree-node.current");
    if (!node) return;
    var box = node.getBoundingClientRect(), frame = map.getBoundingClientRect();
    // Scroll only when the current node is not fully in view, and just enough to show it.
    if (box.left >= frame.left && box.right <= frame.right) return;
    var target = box.right > frame.right ? map.scrollLeft + box.right - frame.right + 24 : map.scrollLeft + box.left - frame.left - 24;
    map.scrollTo({ left: Math.max(0, target), behavior: curso.calm() ? "auto" : "smooth" });
  }

  var inView = window.IntersectionObserver && new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (!entry.isIntersecting) return;
      inView.unobserve(entry.target);
      reveal(entry.target);
    });
  });

  curso.onLoad("[data-tree-map]", function (map) {
    curso.later(function () { if (inView) inView.observe(map); else reveal(map); });
  });
})();
