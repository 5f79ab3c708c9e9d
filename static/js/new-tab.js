// "Abrir em nova aba" inside the LMS's iframe. The course's cookies there are partitioned
// under the LMS, so a new tab would open as another, anonymous learner. At the click, the
// iframe asks the course (with its cookies) for a one-time link that signs the same person in,
// and the new tab opens it at the page being read. Outside an iframe the link stays hidden.
// Hook: data-new-tab on the link (its href answers JSON {"url": ...}).
(function () {
  "use strict";
  curso.onLoad("[data-new-tab]", function (link) {
    if (window.self === window.top) return;
    link.hidden = false;
    link.addEventListener("click", function (evt) {
      evt.preventDefault();
      var tab = window.open("", "_blank");  // opened at the click, or the browser blocks it
      var here = window.location.pathname + window.location.search + window.location.hash;
      var asked = link.getAttribute("href") + "?voltar=" + encodeURIComponent(here);
      fetch(asked, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) {
          if (!response.ok) throw new Error(String(response.status));
          return response.json();
        })
        .then(function (data) {
          if (tab) { tab.opener = null; tab.location.href = data.url; }
          else window.open(data.url, "_blank", "noopener");
        })
        .catch(function () {
          if (tab) tab.close();
          curso.showError(curso.message("new-tab-error"));
        });
    });
  });
})();
