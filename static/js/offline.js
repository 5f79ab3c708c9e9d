// Studying without a connection (issue 40). The service worker (/sw.js, registered after the
// page has loaded: nothing here delays the first paint) answers from the cache "curso-sem-internet";
// this file fills it when the learner asks ("Baixar para ler sem internet", "Baixar o curso
// todo"), lists what the device holds ([data-offline-downloads] on /progresso, [data-offline-list]
// on /sem-internet), keeps an answer given offline in IndexedDB and sends it when the connection
// returns. The device never holds a key: the server grades each answer when it arrives.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator) || !window.caches || !window.indexedDB) return;
  var CACHE = "curso-sem-internet";
  var META = "curso-baixadas"; // localStorage: {page url: {title, version, bytes, urls}}
  var body = document.body;
  var KEEP = /^\/(static|licoes\/imagens)\//;

  function text(name, values) {
    return curso.fill(curso.message(name), values || {});
  }

  function size(bytes) {
    var mb = bytes / (1024 * 1024);
    return mb >= 0.1 ? mb.toLocaleString("pt-BR", { maximumFractionDigits: 1 }) + " MB"
      : Math.max(1, Math.round(bytes / 1024)).toLocaleString("pt-BR") + " kB";
  }

  // --- the lessons this device holds ---------------------------------------------------------

  function held() {
    try { return JSON.parse(window.localStorage.getItem(META) || "{}"); } catch (e) { return {}; }
  }

  function hold(all) { window.localStorage.setItem(META, JSON.stringify(all)); }

  function extras() {
    return [body.getAttribute("data-offline-page"), body.getAttribute("data-offline-answers"),
      body.getAttribute("data-glossary")].filter(Boolean);
  }

  // Fetch a lesson's page as the server gives it to this learner and measure what it needs:
  // the page, its images and static files, the glossary and the two offline pages. "baixar"
  // asks for the page as learners see it (an instructor's has drafts and no download box).
  function prepare(url) {
    var source = new URL(url, location.href);
    source.searchParams.set("baixar", "1");
    return fetch(source.href, { credentials: "same-origin", cache: "no-store" }).then(function (response) {
      if (!response.ok) throw new Error(String(response.status));
      return response.text();
    }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var box = doc.querySelector("[data-offline-lesson]");
      // A page without the box is not one a device keeps (an instructor's, with drafts).
      if (!box) throw new Error("not kept offline");
      var assets = {};
      // script[data-src]: htmx, which a lesson loads on the first interaction
      // (static/htmx-on-demand.js); without it, a page opened offline swallows every answer
      // and step once the connection returns (htmx-on-demand.js holds them until htmx loads).
      doc.querySelectorAll("script[src], script[data-src], link[href], img[src]").forEach(function (el) {
        ["src", "data-src", "href"].forEach(function (name) {
          if (!el.hasAttribute(name)) return;
          var path = new URL(el.getAttribute(name), location.href);
          if (path.origin === location.origin && KEEP.test(path.pathname)) assets[path.pathname] = true;
        });
      });
      var others = Object.keys(assets).concat(extras());
      return Promise.all(others.map(function (other) {
        return fetch(other, { method: "HEAD", credentials: "same-origin" }).then(function (r) {
          return Number(r.headers.get("content-length")) || 0;
        }, function () { return 0; });
      })).then(function (sizes) {
        return {
          url: url, html: html, others: others,
          title: box.getAttribute("data-title"),
          version: box.getAttribute("data-version"),
          bytes: new Blob([html]).size + sizes.reduce(function (a, b) { return a + b; }, 0)
        };
      });
    });
  }

  // What a learner reads of a copy: when it was downloaded ("5 de dez., 03:34") and its size;
  // the version's hash is for the code (data-version), not for reading.
  function about(mine) {
    var when = mine.at ? new Date(mine.at).toLocaleString("pt-BR", {
      day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"
    }) : "";
    return when ? text("offline-held", { when: when, size: size(mine.bytes) })
      : text("offline-held-undated", { size: size(mine.bytes) });
  }

  function store(pack) {
    return caches.open(CACHE).then(function (cache) {
      var page = new Response(pack.html, { headers: { "Content-Type": "text/html; charset=utf-8" } });
      return Promise.all([cache.put(pack.url, page), cache.addAll(pack.others)]);
    }).then(function () {
      var all = held();
      all[pack.url] = { title: pack.title, version: pack.version, bytes: pack.bytes, at: new Date().toISOString() };
      hold(all);
    });
  }

  function remove(url) {
    var all = held();
    delete all[url];
    hold(all);
    return caches.open(CACHE).then(function (cache) {
      return Object.keys(all).length ? cache.delete(url) : caches.delete(CACHE);
    });
  }

  // One lesson's box: size first, then the download; the version the device holds; Remover.
  function lessonBox(box) {
    var url = box.getAttribute("data-url");
    var button = box.querySelector("[data-offline-download]");
    var confirm = box.querySelector("[data-offline-confirm]");
    var drop = box.querySelector("[data-offline-remove]");
    var status = box.querySelector("[data-offline-status]");
    var pack = null;
    function show() {
      var mine = held()[url];
      var newer = mine && mine.version !== box.getAttribute("data-version");
      status.textContent = mine ? about(mine) + (newer ? " " + curso.message("offline-newer") : "") : "";
      if (mine) status.setAttribute("data-version", mine.version);
      else status.removeAttribute("data-version");
      button.hidden = !!mine;
      drop.hidden = !mine;
      confirm.hidden = true;
    }
    box.hidden = false;
    show();
    button.addEventListener("click", function () {
      button.disabled = true;
      prepare(url).then(function (ready) {
        pack = ready;
        status.textContent = text("offline-size", { size: size(ready.bytes) });
        confirm.hidden = false;
        confirm.focus();
      }, function () { curso.showError(curso.message("offline-failed")); })
        .then(function () { button.disabled = false; });
    });
    confirm.addEventListener("click", function () {
      confirm.disabled = true;
      store(pack).then(show, function () { curso.showError(curso.message("offline-failed")); })
        .then(function () { confirm.disabled = false; curso.announce(status.textContent); });
    });
    drop.addEventListener("click", function () { remove(url).then(show); });
    // A downloaded lesson whose version changed is downloaded again, with no question asked.
    var mine = held()[url];
    if (mine && navigator.onLine && mine.version !== box.getAttribute("data-version")) {
      prepare(url).then(store).then(function () { show(); curso.announce(status.textContent); },
        function () { /* kept as it was; tried again on the next visit */ });
    }
  }

  // /progresso: what the device holds, each with Remover; "Baixar o curso todo".
  function downloadsList(section) {
    var list = section.querySelector("[data-offline-items]");
    var none = section.querySelector("[data-offline-none]");
    var everything = section.querySelector("[data-offline-all]");
    var status = section.querySelector("[data-offline-status]");
    var confirm = section.querySelector("[data-offline-confirm]");
    var packs = [];
    function draw() {
      var all = held();
      list.textContent = "";
      Object.keys(all).forEach(function (url) {
        var li = document.createElement("li");
        var link = document.createElement("a");
        link.href = url;
        link.textContent = all[url].title;
        var info = document.createElement("span");
        info.textContent = " " + about(all[url]) + " ";
        info.setAttribute("data-version", all[url].version);
        var drop = document.createElement("button");
        drop.type = "button";
        drop.className = "button-secondary";
        drop.textContent = curso.message("offline-remove");
        drop.setAttribute("aria-label", curso.message("offline-remove") + ": " + all[url].title);
        drop.addEventListener("click", function () { remove(url).then(draw); });
        li.append(link, info, drop);
        list.appendChild(li);
      });
      none.hidden = Object.keys(all).length > 0;
    }
    section.hidden = false;
    draw();
    everything.addEventListener("click", function () {
      var urls = (section.getAttribute("data-lessons") || "").split(" ").filter(Boolean);
      everything.disabled = true;
      Promise.all(urls.map(prepare)).then(function (ready) {
        packs = ready;
        var bytes = ready.reduce(function (a, p) { return a + p.bytes; }, 0);
        status.textContent = text("offline-size", { size: size(bytes) });
        confirm.hidden = false;
        confirm.focus();
      }, function () { curso.showError(curso.message("offline-failed")); })
        .then(function () { everything.disabled = false; });
    });
    confirm.addEventListener("click", function () {
      confirm.disabled = true;
      packs.reduce(function (done, pack) { return done.then(function () { return store(pack); }); },
        Promise.resolve()).then(function () { status.textContent = ""; confirm.hidden = true; draw(); },
        function () { curso.showError(curso.message("offline-failed")); draw(); })
        .then(function () { confirm.disabled = false; });
    });
  }

  // /sem-internet: the lessons the device holds.
  function offlineList(list) {
    var all = held();
    Object.keys(all).forEach(function (url) {
      var li = document.createElement("li");
      var link = document.createElement("a");
      link.href = url;
      link.textContent = all[url].title;
      li.appendChild(link);
      list.appendChild(li);
    });
    var none = document.querySelector("[data-offline-none]");
    if (none) none.hidden = Object.keys(all).length > 0;
  }

  window.cursoOffline = { held: held, size: size, text: text };

  curso.onLoad("[data-offline-lesson]", lessonBox);
  curso.onLoad("[data-offline-downloads]", downloadsList);
  curso.onLoad("[data-offline-list]", offlineList);

  function register() {
    var url = body.getAttribute("data-service-worker");
    if (url) navigator.serviceWorker.register(url).catch(function () { /* reading online still works */ });
  }
  if (document.readyState === "complete") curso.later(register);
  else window.addEventListener("load", function () { curso.later(register); });
})();
