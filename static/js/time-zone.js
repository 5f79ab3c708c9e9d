// Dates are shown in the learner's time zone: tell the server which one it is (before the next
// lesson is fetched ahead: the pages vary by cookie). Temporal reads the zone at no cost; the
// first Intl call loads the locale data (some 30 ms on a fast machine, more than a phone can
// spare while the lesson is being laid out), so without Temporal it waits for an idle moment.
// Hook: data-zone-cookie="<cookie name>" on <body>.
(function () {
  "use strict";
  curso.onLoad("[data-zone-cookie]", function () {
    if (curso.temporal) curso.rememberZone(); else curso.later(curso.rememberZone);
  });
})();
