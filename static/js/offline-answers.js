// Answers given without a connection (issue 40). An answer form (one with a "chave") of a
// downloaded lesson sent while the browser is offline is kept in IndexedDB ("curso", store "respostas", by chave) with every
// field of the form as it was (chave, versao, lancamento, whatever else it carries) and the
// time it was given; the question says it was kept. Nothing is graded here: the device has no key.
// When the connection returns (the "online" event, the next page load, or the service worker's
// Background Sync waking a page), the answers are sent in the order given, one tab at a time
// (a Web Lock), each once: the server stores one attempt per chave however often it is sent.
// "Corrigidas agora" then shows each verdict. An answer the server refuses stays listed with
// the reason until the learner discards it; answers kept under another account are not sent.
// A decision-tree walk finished offline (static/js/tree-walk.js) waits in the same queue
// (kind "walk"), as the step that finished it, and is sent the same way; it has no verdict:
// once stored it leaves the queue, and /progresso lists it. The badge counts answers only.
(function () {
  "use strict";
  if (!window.indexedDB || !window.fetch) return;
  var body = document.body;
  var STORE = "respostas";
  var WAITING = "waiting", GRADED = "graded", CHANGED = "changed", REFUSED = "refused";

  function open() {
    return new Promise(function (done, fail) {
      var request = indexedDB.open("curso", 1);
      request.onupgradeneeded = function () { request.result.createObjectStore(STORE, { keyPath: "chave" }); };
      request.onsuccess = function () { done(request.result); };
      request.onerror = function () { fail(request.error); };
    });
  }

  // Run work(store) in one transaction; resolves with what work's request gave, once committed.
  function withStore(mode, work) {
    return open().then(function (db) {
      return new Promise(function (done, fail) {
        var tx = db.transaction(STORE, mode);
        var request = work(tx.objectStore(STORE));
        tx.oncomplete = function () { db.close(); done(request ? request.result : undefined); };
        tx.onerror = tx.onabort = function () { db.close(); fail(tx.error); };
      });
    });
  }

  function all() {
    return withStore("readonly", function (store) { return store.getAll(); }).then(function (list) {
      return list.sort(function (a, b) { return a.seq - b.seq; });
    });
  }

  function put(entry) { return withStore("readwrite", function (store) { return store.put(entry); }); }
  function drop(key) { return withStore("readwrite", function (store) { return store.delete(key); }); }

  function account() { return body.getAttribute("data-account") || ""; }

  function csrf() {
    try { return JSON.parse(body.getAttribute("hx-headers") || "{}")["x-csrftoken"] || ""; } catch (e) { return ""; }
  }

  // --- keeping an answer ----------------------------------------------------------------------

  function markKept(form) {
    if (form.querySelector(".offline-kept")) return;
    form.querySelectorAll("input, button, select, textarea").forEach(function (el) { el.disabled = true; });
    var note = document.createElement("p");
    note.className = "notice offline-kept";
    note.setAttribute("role", "status");
    note.setAttribute("tabindex", "-1");
    note.textContent = curso.message("offline-kept");
    // The button just pressed is disabled: the focus stays on the question, on what it says.
    var focused = document.activeElement;
    form.appendChild(note);
    if (!focused || focused === document.body || form.contains(focused)) note.focus();
  }

  function keep(form) {
    var fields = [];
    new FormData(form).forEach(function (value, name) {
      if (name !== "csrftoken" && typeof value === "string") fields.push([name, value]);
    });
    var key = form.querySelector('input[name="chave"]').value;
    var question = form.closest(".question");
    var title = form.querySelector(".question-title");
    var lesson = document.querySelector("[data-offline-lesson]");
    var now = new Date();
    var entry = {
      chave: key, url: new URL(form.getAttribute("action"), location.href).pathname, fields: fields,
      given: now.toISOString(), seq: now.getTime(), account: account(), state: WAITING,
      title: title ? title.textContent.trim() : "", anchor: question ? question.id : "",
      page: lesson ? lesson.getAttribute("data-url") : location.pathname, reason: "", verdict: ""
    };
    return put(entry).then(function () {
      markKept(form);
      curso.announce(curso.message("offline-kept"));
      badge();
      requestSync();
    }, function () { curso.showError(curso.message("offline")); });
  }

  function requestSync() {
    if (navigator.serviceWorker && navigator.serviceWorker.ready) {
      navigator.serviceWorker.ready.then(function (reg) {
        if (reg.sync) return reg.sync.register("curso-respostas");
      }).catch(function () { /* the online event and the next load send it */ });
    }
  }

  // A walk finished offline: walk.key (the finishing step's chave), walk.url (the tree's step),
  // walk.fields (the last step's, without the CSRF token and the key), walk.title and
  // walk.anchor (the widget's).
  function keepWalk(walk) {
    var key = walk.key;
    var lesson = document.querySelector("[data-offline-lesson]");
    var now = new Date();
    return put({
      chave: key, kind: "walk", url: walk.url, fields: walk.fields.concat([["chave", key]]),
      given: now.toISOString(), seq: now.getTime(), account: account(), state: WAITING,
      title: walk.title, anchor: walk.anchor,
      page: lesson ? lesson.getAttribute("data-url") : location.pathname, reason: "", verdict: ""
    }).then(requestSync, function () { /* the walk is shown; only its record is lost */ });
  }

  // An answer form of a lesson downloaded on this device (offline.js keeps their list): on
  // other pages a send that fails says so and the learner sends again (htmx's error message).
  function answerForm(el) {
    if (!el || el.tagName !== "FORM" || !el.querySelector('input[name="chave"]')) return null;
    var box = document.querySelector("[data-offline-lesson]");
    var held = window.cursoOffline ? window.cursoOffline.held() : {};
    return box && held[box.getAttribute("data-url")] ? el : null;
  }

  // Before htmx's own listener (capture, on the document): offline, the answer is kept instead.
  // A button with its own address (a hint's, ``formaction``) sends no answer: not kept.
  document.addEventListener("submit", function (evt) {
    var form = answerForm(evt.target);
    if (!form || navigator.onLine) return;
    if (evt.submitter && evt.submitter.hasAttribute("formaction")) return;
    evt.preventDefault();
    evt.stopImmediatePropagation();
    keep(form);
  }, true);
  // A hint needs the server (the device holds none): offline, the block says so and what the
  // learner chose stays as it was. Before htmx's listener on the button, and before the form
  // is submitted.
  function hintOf(el) {
    var button = el && el.closest ? el.closest(".hint-button") : null;
    return button && answerForm(button.form) ? button : null;
  }

  function hintOffline(button) {
    var block = button.closest(".hints");
    if (!block) return;
    var note = block.querySelector(".offline-hint");
    if (!note) {
      note = document.createElement("p");
      note.className = "notice offline-hint";
      note.setAttribute("role", "status");
      block.appendChild(note);
    }
    note.textContent = curso.message("offline-hint");
    curso.announce(curso.message("offline-hint"));
  }

  document.addEventListener("click", function (evt) {
    var button = hintOf(evt.target);
    if (!button || navigator.onLine) return;
    evt.preventDefault();
    evt.stopImmediatePropagation();
    hintOffline(button);
  }, true);
  // The browser said it was online, but the request found no network. On the document and
  // capturing, before swap-a11y.js's listener: nothing says "not sent" of an answer kept here.
  document.addEventListener("htmx:sendError", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    // The answer form sent by its hint button (a submit htmx-on-demand.js replayed) is a hint.
    var config = evt.detail && evt.detail.requestConfig;
    var submitter = config && config.triggeringEvent && config.triggeringEvent.submitter;
    var button = hintOf(submitter && submitter.hasAttribute("formaction") ? submitter : elt);
    var form = button ? null : answerForm(elt);
    if (!button && !form) return;
    evt.stopImmediatePropagation();
    if (button) hintOffline(button);
    else keep(form);
  }, true);

  // --- what is waiting ------------------------------------------------------------------------

  function badge() {
    return all().then(function (list) {
      var count = list.filter(function (e) { return e.state !== GRADED && e.kind !== "walk"; }).length;
      document.querySelectorAll("[data-offline-badge]").forEach(function (el) {
        el.querySelector("[data-offline-count]").textContent = String(count);
        el.hidden = count === 0;
      });
      // A page opened again offline (its copy has the same keys): its kept answers stay marked.
      var waiting = {};
      list.forEach(function (e) { if (e.state === WAITING) waiting[e.chave] = true; });
      document.querySelectorAll('form input[name="chave"]').forEach(function (input) {
        if (waiting[input.value]) markKept(input.form);
      });
      return list;
    }, function () { return []; });
  }

  function stateText(entry) {
    if (entry.account !== account()) return curso.message("offline-other");
    if (entry.state === CHANGED) return curso.message("offline-changed");
    if (entry.state === REFUSED) return curso.message("offline-refused").split("{reason}").join(entry.reason);
    return curso.message("offline-waiting");
  }

  function queueList(list) {
    all().then(function (entries) {
      list.textContent = "";
      entries.filter(function (e) { return e.state !== GRADED; }).forEach(function (entry) {
        var li = document.createElement("li");
        var link = document.createElement("a");
        link.href = entry.page + (entry.anchor ? "#" + entry.anchor : "");
        link.textContent = entry.title || entry.page;
        var state = document.createElement("p");
        state.className = "offline-state";
        state.textContent = stateText(entry);
        li.append(link, state);
        if (entry.state === CHANGED || entry.state === REFUSED) {
          var discard = document.createElement("button");
          discard.type = "button";
          discard.className = "button-secondary";
          discard.textContent = curso.message("offline-discard");
          discard.setAttribute("aria-label", curso.message("offline-discard") + ": " + (entry.title || entry.page));
          discard.addEventListener("click", function () {
            drop(entry.chave).then(function () { queueList(list); badge(); });
          });
          li.appendChild(discard);
        }
        list.appendChild(li);
      });
      var none = document.querySelector("[data-offline-none]");
      if (none) none.hidden = list.children.length > 0;
    });
  }

  // --- sending --------------------------------------------------------------------------------

  function send(entry) {
    var token = csrf();
    var data = new URLSearchParams();
    entry.fields.forEach(function (pair) { data.append(pair[0], pair[1]); });
    data.append("csrftoken", token);
    data.append("dada_em", entry.given);
    return fetch(entry.url, {
      method: "POST", body: data, credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRFToken": token }
    }).then(function (response) {
      return response.text().then(function (html) { return { status: response.status, html: html }; });
    });
  }

  function settle(entry, answer) {
    var doc = new DOMParser().parseFromString(answer.html, "text/html");
    if (answer.status >= 200 && answer.status < 300) {
      var verdict = doc.querySelector(".verdict");
      var question = doc.querySelector(".question");
      entry.state = GRADED;
      entry.verdict = verdict ? verdict.textContent.replace(/\s+/g, " ").trim() : "";
      entry.html = question ? question.outerHTML : "";
    } else if (answer.status === 409) {
      entry.state = CHANGED;
    } else {
      var error = doc.querySelector(".form-error");
      entry.state = REFUSED;
      entry.reason = error ? error.textContent.trim() : (doc.body.textContent || "").trim().slice(0, 200) || String(answer.status);
    }
    return put(entry).then(function () { return entry; });
  }

  // Send every waiting answer of this account, oldest first; stop at the first network failure
  // or server error (tried again later). Resolves with the answers graded and not yet shown:
  // those graded now and those a page left before showing them (its learner moved on while it
  // sent); each is dropped once shown.
  function sendAll() {
    return all().then(function (entries) {
      var mine = entries.filter(function (e) { return e.state === WAITING && e.account === account(); });
      var graded = entries.filter(function (e) { return e.state === GRADED && e.account === account(); });
      return mine.reduce(function (chain, entry) {
        return chain.then(function (stopped) {
          if (stopped) return true;
          return send(entry).then(function (answer) {
            if (answer.status >= 500) return true;
            return settle(entry, answer).then(function (done) {
              if (done.state === GRADED) graded.push(done);
              return false;
            });
          }, function () { return true; });
        });
      }, Promise.resolve(false)).then(function () { return graded; });
    });
  }

  function showGraded(stored) {
    var graded = stored.filter(function (entry) { return entry.kind !== "walk"; });
    if (!graded.length) return;
    var main = document.getElementById("conteudo");
    var box = document.createElement("section");
    box.className = "notice offline-graded";
    box.setAttribute("aria-labelledby", "corrigidas-agora");
    var heading = document.createElement("h2");
    heading.id = "corrigidas-agora";
    heading.textContent = curso.message("offline-graded");
    var list = document.createElement("ul");
    graded.forEach(function (entry) {
      var li = document.createElement("li");
      var title = document.createElement("span");
      title.textContent = entry.title + " — ";
      var verdict = document.createElement("strong");
      verdict.className = "offline-verdict";
      verdict.textContent = entry.verdict;
      var link = document.createElement("a");
      link.href = entry.page + (entry.anchor ? "#" + entry.anchor : "");
      link.textContent = curso.message("offline-see");
      li.append(title, verdict, document.createTextNode(" "), link);
      list.appendChild(li);
      // The question on this page shows its grade and explanation, as after an answer online.
      var here = entry.anchor && document.getElementById(entry.anchor);
      if (here && entry.html) {
        var fresh = new DOMParser().parseFromString(entry.html, "text/html").querySelector(".question");
        if (fresh) {
          here.replaceWith(document.adoptNode(fresh));
          curso.withHtmx(function () { window.htmx.process(fresh); });
        }
      }
    });
    box.append(heading, list);
    if (main) main.insertBefore(box, main.firstChild);
    curso.announce(curso.message("offline-graded"));
  }

  var running = null;
  function sync() {
    if (!navigator.onLine) return Promise.resolve();
    if (running) return running;
    // Shown, then dropped, under the lock: with two tabs, each verdict is shown by one of them.
    var work = function () {
      return sendAll().then(function (graded) {
        showGraded(graded);
        // Shown: the server holds them now (the verdicts stay on the lesson page).
        return Promise.all(graded.map(function (entry) { return drop(entry.chave); }));
      });
    };
    running = (navigator.locks ? navigator.locks.request("curso-respostas", work) : work())
      .catch(function () { /* kept; tried again on the next event */ })
      .then(function () {
        running = null;
        badge();
        var list = document.querySelector("[data-offline-queue]");
        if (list) queueList(list);
      });
    return running;
  }

  // Signing out leaves nothing of this learner on the device: the kept answers, the downloaded
  // pages and their list go. Answers still waiting are named first; a second press signs out.
  function forgetAll() {
    var held = window.caches ? caches.delete("curso-sem-internet") : Promise.resolve();
    try { window.localStorage.removeItem("curso-baixadas"); } catch (e) { /* nothing kept */ }
    return Promise.all([held, withStore("readwrite", function (store) { return store.clear(); })]);
  }

  function signOut(form) {
    form.addEventListener("submit", function (evt) {
      if (form.getAttribute("data-cleared") === "1") return;
      evt.preventDefault();
      all().then(function (entries) {
        var waiting = entries.filter(function (e) { return e.state !== GRADED && e.account === account(); });
        if (waiting.length && form.getAttribute("data-warned") !== "1") {
          var warning = form.querySelector(".form-error") || document.createElement("p");
          warning.className = "form-error";
          warning.setAttribute("role", "alert");
          warning.textContent = form.getAttribute("data-msg-warning").split("{count}").join(String(waiting.length));
          form.insertBefore(warning, form.firstChild);
          form.setAttribute("data-warned", "1");
          return;
        }
        return forgetAll().catch(function () { /* sign out all the same */ }).then(function () {
          form.setAttribute("data-cleared", "1");
          form.submit();
        });
      });
    });
  }

  window.cursoOfflineAnswers = { keepWalk: keepWalk };

  curso.onLoad("[data-offline-queue]", queueList);
  curso.onLoad("[data-offline-sign-out]", signOut);
  window.addEventListener("online", sync);
  if (navigator.serviceWorker) {
    navigator.serviceWorker.addEventListener("message", function (evt) {
      if (evt.data && evt.data.curso === "sync") sync();
    });
  }
  // Not during the first paint: the count and the sending wait until the browser is idle.
  curso.later(function () {
    badge().then(function (list) {
      // Waiting, or graded by a page left before it showed the verdicts.
      if (list.some(function (e) {
        return e.state === WAITING || (e.state === GRADED && e.account === account());
      })) sync();
    });
  });
})();
