// The course's service worker (issue 40): served from /sw.js so that its scope is the whole
// site. It answers from the device's cache only what static/js/offline.js put there when the
// learner chose "Baixar para ler sem internet"; it never stores anything by itself.
// A page asked for while the device is offline is the downloaded copy, else /sem-internet (the
// lessons the device holds); an image of a downloaded lesson, offline, is its downloaded copy.
// A static file (its name carries its content's hash, so a copy never goes stale) is the
// downloaded copy whenever the device holds one, online or not: a phone reports itself online
// on a network that carries nothing, and then the page would lose its styles and scripts.
"use strict";

// The route that serves this file puts the site's paths first: self.CURSO = {fallback, kept,
// static}: the page for what was not downloaded, the prefixes of the files kept by name, and
// of those the prefix of the fingerprinted static files.
var CACHE = "curso-sem-internet";
var FALLBACK = self.CURSO.fallback;
var KEPT = self.CURSO.kept;
var STATIC = [self.CURSO.static];

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

function fromCache(request) {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request, { ignoreSearch: request.mode === "navigate", ignoreVary: true });
  });
}

function under(path, prefixes) {
  return prefixes.some(function (prefix) { return path.indexOf(prefix) === 0; });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (under(url.pathname, STATIC)) {
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
  if (under(url.pathname, KEPT)) {
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
