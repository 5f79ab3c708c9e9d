// The instructor dashboard was one long page; its sections are now tabs, each at its own
// address. An old link to a section of that page (the dashboard's address with "#revisar",
// a bookmark, a question's "#q-<lesson>-<id>") opens the overview: this sends it, with its
// anchor and its class filter, to the tab that now holds the section, on load and when
// only the anchor changes. The tab links name their sections in data-sections (a name
// ending in "-" stands for every id that starts with it).
// Hook: data-sections on the dashboard's tab links (templates/instructor.html); a page
// without them (every page but the dashboard's tabs, which open in place) skips the rest.
(function () {
  "use strict";
  function follow() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    if (!id || document.getElementById(id)) return;
    var links = document.querySelectorAll(".dashboard-tabs a[data-sections]");
    for (var i = 0; i < links.length; i++) {
      var names = links[i].getAttribute("data-sections").split(" ");
      for (var j = 0; j < names.length; j++) {
        var name = names[j];
        var holds = name.slice(-1) === "-" ? id.indexOf(name) === 0 : id === name;
        if (holds && links[i].getAttribute("aria-current") !== "page") {
          window.location.replace(links[i].href + window.location.hash);
          return;
        }
      }
    }
  }
  if (!document.querySelector(".dashboard-tabs a[data-sections]")) return;
  follow();
  window.addEventListener("hashchange", follow);
})();
