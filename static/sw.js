// The course's service worker (issue 40): served from /sw.js so that its scope is the whole
// site. It answers from the device's cache only what static/js/offline.js put there when the
// learner chose "Baixar para ler sem internet"; it never stores anything by itself.
// Only while the device is offline: a page asked for is the downloaded copy, else
// /sem-internet (the lessons the device holds); static files and images, the downloaded copy.
"use strict";

// The route that serves this file puts the site's paths first: self.CURSO = {fallback, kept}.
var CACHE = "curso-sem-internet";
var FALLBACK = self.CURSO.fallback;
var KEPT = self.CURSO.kept;

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

function fromCache(request) {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request, { ignoreSearch: request.mode === "navigate", ignoreVary: true });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  // Online, the worker stays out of the way: the browser fetches as if it were not there.
  if (self.navigator.onLine) return;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(function () {
      return fromCache(request).then(function (kept) {
        return kept || caches.open(CACHE).then(function (cache) { return cache.match(FALLBACK); })
          .then(function (fallback) { return fallback || Response.error(); });
      });
    }));
    return;
  }
  var path = new URL(request.url).pathname;
  if (KEPT.some(function (prefix) { return path.indexOf(prefix) === 0; })) {
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
