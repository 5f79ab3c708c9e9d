// Dates are shown in the learner's time zone: tell the server which one it is (before the next
// lesson is fetched ahead: the pages vary by cookie). Temporal reads the zone at no cost; the
// first Intl call loads the locale data (some 30 ms on a fast machine, more than a phone can
// spare while the lesson is being laid out), so without Temporal it waits for an idle moment.
// Hook: data-zone-cookie="<cookie name>" on <body>.
(function () {
  "use strict";
  var TEMPORAL = !!(window.Temporal && Temporal.Now && Temporal.Now.timeZoneId);

  curso.onLoad("[data-zone-cookie]", function (body) {
    var name = body.getAttribute("data-zone-cookie");
    function remember() {
      var zone = TEMPORAL ? Temporal.Now.timeZoneId() : window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
      if (zone && (" " + document.cookie + ";").indexOf(" " + name + "=" + zone + ";") === -1) curso.setCookie(name, zone);
    }
    if (TEMPORAL) remember(); else curso.later(remember);
  });
})();
