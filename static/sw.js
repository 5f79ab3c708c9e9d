// The course's service worker (issue 40): served from /sw.js so that its scope is the whole
// site. It answers from the device's cache only what static/js/offline.js put there when the
// learner chose "Baixar para ler sem internet"; it never stores anything by itself.
// A page asked for while the device is offline is the downloaded copy, else /sem-internet (the
// lessons the device holds); an image of a downloaded lesson, offline, is its downloaded copy.
// A static file (its name carries its content's hash, so a copy never goes stale) is the
// downloaded copy whenever the device holds one, online or not: a phone reports itself online
// on a network that carries nothing, and then the page would lose its styles and scripts.
"use strict";

// The route that serves this file puts the site's paths first: self.CURSO = {fallback, static,
// images}: the page for what was not downloaded, and the prefixes of the files kept by name
// (the fingerprinted static files, the lessons' images).
var CACHE = "curso-sem-internet";
var FALLBACK = self.CURSO.fallback;
var STATIC = self.CURSO.static;
var IMAGES = self.CURSO.images;

// Where the browser knows static routes (Chromium 123 and later: InstallEvent.addRoutes),
// only a page, or an image while offline, wakes the worker; everything else (htmx's requests,
// answers, prefetches, fonts, the API) goes straight to the network, and a static file to the
// device's copy or, when there is none, the network, with no worker started. Elsewhere the fetch
// handler below does the same work, only waking for each request.
function routes() {
  return [
    { condition: { requestMethod: "GET", urlPattern: STATIC + "*" }, source: { cacheName: CACHE } },
    { condition: { urlPattern: IMAGES + "*" }, source: "fetch-event" },
    { condition: { not: { requestMode: "navigate" } }, source: "network" }
  ];
}

self.addEventListener("install", function (event) {
  self.skipWaiting();
  if (event.addRoutes) {
    event.waitUntil(event.addRoutes(routes()).catch(function () { /* the fetch handler serves */ }));
  }
});
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

function fromCache(request) {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request, { ignoreSearch: request.mode === "navigate", ignoreVary: true });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.indexOf(STATIC) === 0) {
    event.respondWith(fromCache(request).then(function (kept) { return kept || fetch(request); }));
    return;
  }
  // Online, the worker stays out of the way: the browser fetches as if it were not there.
  if (self.navigator.onLine) return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(function () {
      return fromCache(request).then(function (kept) {
        return kept || caches.open(CACHE).then(function (cache) { return cache.match(FALLBACK); })
          .then(function (fallback) { return fallback || Response.error(); });
      });
    }));
    return;
  }
  if (url.pathname.indexOf(IMAGES) === 0) {
    event.respondWith(fromCache(request).then(function (kept) { return kept || fetch(request); }));
  }
});

// Background Sync: the pages send the waiting answers (they hold the session's CSRF token);
// the worker only wakes an open page to do it.
self.addEventListener("sync", function (event) {
  if (event.tag !== "curso-respostas") return;
  event.waitUntil(self.clients.matchAll({ type: "window" }).then(function (pages) {
    pages.forEach(function (page) { page.postMessage({ curso: "sync" }); });
  }));
});
