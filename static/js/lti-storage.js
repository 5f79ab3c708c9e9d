// LTI Platform Storage: when the LMS keeps data for the course (it named its storage frame at
// the login), the login's state and nonce go there instead of a cookie, which a browser that
// blocks cookies in the LMS's iframe drops. The login page puts them (lti.put_data) and goes
// on to the LMS; the launch page gets them back (lti.get_data) and, when they are the launch's,
// posts the launch again, now from the course's own page. Every message goes to the LMS's
// origin, and only its answers from there are read. Specs: 1EdTech "LTI Client Side
// postMessages" and "LTI OIDC Login with LTI Client Side postMessages".
// Hook: data-lti-storage="put|get" with data-target, -origin, -state, -nonce, -next.
(function () {
  "use strict";
  var WAIT_MS = 10000;
  var counter = 0;

  function storageFrame(name) {
    var lms = window.opener || window.parent;
    if (!lms || lms === window) return null;
    if (name === "_parent") return lms;
    try { return lms.frames[name] || null; } catch (e) { return null; }
  }

  // One message to the storage frame; resolves with its answer, rejects on an error or silence.
  function ask(frame, origin, message) {
    counter += 1;
    message.message_id = "curso-" + counter + "-" + Math.random().toString(36).slice(2);
    return new Promise(function (resolve, reject) {
      var timer = window.setTimeout(function () { done(); reject(new Error("silence")); }, WAIT_MS);
      function done() {
        window.clearTimeout(timer);
        window.removeEventListener("message", listen);
      }
      function listen(evt) {
        var data = evt.data;
        if (evt.origin !== origin || !data || typeof data !== "object") return;
        if (data.subject !== message.subject + ".response" || data.message_id !== message.message_id) return;
        done();
        if (data.error) reject(new Error(String(data.error.code || "error")));
        else resolve(data);
      }
      window.addEventListener("message", listen);
      frame.postMessage(message, origin);
    });
  }

  curso.onLoad("[data-lti-storage]", function (box) {
    var origin = box.getAttribute("data-origin");
    var frame = storageFrame(box.getAttribute("data-target"));
    var state = box.getAttribute("data-state");
    var nonce = box.getAttribute("data-nonce");
    var kept = [["state-" + state, state], ["nonce-" + nonce, nonce]];
    function failed() {
      var status = document.getElementById("lti-armazenamento");
      if (status) status.textContent = box.getAttribute("data-msg-failed");
    }
    if (!frame || !origin || !state || !nonce) { failed(); return; }
    if (box.getAttribute("data-lti-storage") === "put") {
      Promise.all(kept.map(function (pair) {
        return ask(frame, origin, { subject: "lti.put_data", key: pair[0], value: pair[1] });
      })).then(function () {
        window.location.replace(box.getAttribute("data-next"));
      }, failed);
      return;
    }
    Promise.all(kept.map(function (pair) {
      return ask(frame, origin, { subject: "lti.get_data", key: pair[0] }).then(function (data) {
        if (data.value !== pair[1]) throw new Error("another value");
      });
    })).then(function () {
      document.getElementById("lti-conferida").submit();
    }, failed);
  });
})();
