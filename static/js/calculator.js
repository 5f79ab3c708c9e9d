// Calculators without the server (issue 40, item 2). Online, htmx asks the server for the
// result as the learner types. When the server cannot be reached (the browser is offline, or
// htmx's request found no network), the result is worked out here from the calculator's data
// in the page (<script type="application/json" data-calculator-data>, app/content/calculators.py:
// offline_calculator) the way compute() does on the server: numbers read as parse_number reads
// them (Babel's strict pt_BR, then en_US), the formula worked out in doubles with Python's
// rules (division by zero, floor division, modulo, round half to even), the figure written as
// format_result writes it (three significant figures, pt-BR). The result is drawn as
// _calculator_result.html draws it and read out, and the address shares the values.
(function () {
  "use strict";
  var calculators = {}; // section id → its data
  var esc = curso.esc, fill = curso.fill;
  var ZERO = { why: "zero" }, NONE = { why: "none" };
  var MAX_POWER = 4000000, MAX_MAGNITUDE = 12, MAX_CHARS = 40, MAX_PLACES = 12;
  var MINUS = /[\u2212\u2013\ufe63\u2010\uff0d]/g;
  var PREFIX = /^(?:≈|~|=|cerca de|aprox\.?|aproximadamente)\s*/i;
  var SUFFIX = /\s*(?:×|x|vezes)$/i;
  var SPACES = /(?<=\d)[\s\u00a0\u202f](?=\d{3}\b)/g;
  var DIGITS = "\\d(?:_?\\d)*";
  var DECIMAL = new RegExp("^\\s*([+-]?)(?:(" + DIGITS + ")(?:\\.(" + DIGITS + ")?)?|\\.(" + DIGITS + "))(?:[eE]([+-]?" + DIGITS + "))?\\s*$");
  var SPECIAL = /^\s*[+-]?(?:inf(?:inity)?|s?nan\d*)\s*$/i;

  // --- decimals as Python's Decimal holds them: sign, digits, exponent -------------------------

  // What decimal.Decimal(text) reads, or null; {special: true} for an infinity or a NaN.
  function decimal(text) {
    if (SPECIAL.test(text)) return { special: true };
    var m = DECIMAL.exec(text);
    if (!m) return null;
    var whole = (m[2] || "").replace(/_/g, ""), part = (m[3] || m[4] || "").replace(/_/g, "");
    return { neg: m[1] === "-", digits: whole + part, exp: Number((m[5] || "0").replace(/_/g, "")) - part.length };
  }

  // Its digits before and after the point, no zeros in front of the first or after the last.
  function split(dec) {
    var digits = dec.digits, whole, part;
    if (dec.exp >= 0) { whole = digits + "0".repeat(dec.exp); part = ""; }
    else {
      digits = "0".repeat(Math.max(0, -dec.exp - digits.length + 1)) + digits;
      whole = digits.slice(0, dec.exp); part = digits.slice(dec.exp);
    }
    return [whole.replace(/^0+(?=\d)/, ""), part.replace(/0+$/, "")];
  }

  function isZero(dec) { return !/[1-9]/.test(dec.digits); }

  function number(dec) { return Number((dec.neg ? "-" : "") + (dec.digits || "0") + "e" + dec.exp); }

  // Babel's format_decimal with every decimal the number has (decimal_quantization=False).
  function written(dec, group, point) {
    var parts = split(dec);
    return (dec.neg ? "-" : "") + parts[0].replace(/\B(?=(\d{3})+$)/g, group) + (parts[1] ? point + parts[1] : "");
  }

  // Babel's parse_decimal(text, strict=True) with a locale's group and decimal symbols.
  function strict(text, group, point) {
    var dec = decimal(text.split(group).join("").split(point).join("."));
    if (!dec || dec.special || text.indexOf(group) < 0) return dec;
    var proper = written(dec, group, point);
    // _remove_trailing_zeros_after_decimal: the zeros at the end of the decimals dropped.
    var halves = text.split(point), after = halves.slice(1).join(point), tail = after.replace(/0+$/, "");
    var trimmed = after ? halves[0] + (tail ? point + tail : "") : text;
    return text === proper || proper === trimmed ? dec : null;
  }

  // app/content/numbers.py's parse_number: a Decimal, or throws the message to show.
  function parse(text, unit, m) {
    var raw = text.trim().replace(MINUS, "-");
    if (!raw) throw m.empty;
    if (raw.length > MAX_CHARS) throw m.long;
    raw = raw.replace(PREFIX, "");
    if (unit && raw.toLowerCase().endsWith(unit.toLowerCase())) raw = raw.slice(0, -unit.length).trimEnd();
    raw = raw.replace(SUFFIX, "").replace(SPACES, "").trim();
    var dec = strict(raw, ".", ",") || strict(raw, ",", ".");
    if (!dec || dec.special) throw fill(m.nan, { text: text.trim().slice(0, MAX_CHARS) });
    if (!isZero(dec)) {
      var digits = dec.digits.replace(/^0+/, ""), adjusted = dec.exp + digits.length - 1;
      if (adjusted < -MAX_MAGNITUDE || adjusted > MAX_MAGNITUDE) throw m.huge;
    }
    return dec;
  }

  // --- a formula, worked out as Python and simpleeval work it out ------------------------------

  function finite(x) { if (!isFinite(x)) throw NONE; return x; }

  function mod(a, b) {
    if (b === 0) throw ZERO;
    var r = a % b;
    if (r) { if ((b < 0) !== (r < 0)) r += b; } else r = b < 0 ? -0 : 0;
    return r;
  }

  function floorDiv(a, b) {
    if (b === 0) throw ZERO;
    var r = a % b, div = (a - r) / b;
    if (r && (b < 0) !== (r < 0)) div -= 1;
    if (!div) return (a / b < 0 ? -0 : 0);
    var whole = Math.floor(div);
    return div - whole > 0.5 ? whole + 1 : whole;
  }

  function power(a, b) {
    if (Math.abs(a) > MAX_POWER || Math.abs(b) > MAX_POWER) throw NONE;
    if (a === 0 && b < 0) throw ZERO;
    return finite(Math.pow(a, b)); // Python: OverflowError, or a complex number
  }

  // A plain decimal text rounded half to even at places after the point (before it when
  // negative), as Python's round and Babel do.
  function roundText(text, places) {
    var neg = text[0] === "-", body = neg ? text.slice(1) : text;
    var halves = body.split("."), whole = halves[0], part = halves[1] || "";
    var digits = whole + part, cut = whole.length + places;
    if (cut < 0) return "0";
    digits = digits + "0".repeat(Math.max(0, cut - digits.length + 1));
    var kept = digits.slice(0, cut) || "0", rest = digits.slice(cut);
    var up = rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || Number(kept[kept.length - 1]) % 2 === 1));
    if (up) kept = (BigInt(kept) + BigInt(1)).toString().padStart(kept.length, "0");
    var out = places > 0 ? kept.slice(0, kept.length - places) + "." + kept.slice(kept.length - places) : kept + "0".repeat(-places);
    return (neg ? "-" : "") + (out[0] === "." ? "0" + out : out);
  }

  // Python's round(x, n) on a double: half to even on its exact value.
  function pyRound(x, places) {
    if (places === undefined) {
      if (!isFinite(x)) throw NONE;
      var low = Math.floor(x), d = x - low;
      return d > 0.5 || (d === 0.5 && low % 2 !== 0) ? low + 1 : low;
    }
    if (!isFinite(x) || (Math.abs(x) >= 1e21 && places >= 0)) return x;
    return Number(roundText(x.toFixed(100), places));
  }

  function logOf(x) { if (!(x > 0)) throw NONE; return Math.log(x); }

  var CALLS = {
    min: function (args) { if (args.length < 2) throw NONE; return Math.min.apply(null, args); },
    max: function (args) { if (args.length < 2) throw NONE; return Math.max.apply(null, args); },
    abs: function (args) { return Math.abs(args[0]); },
    round: function (args) { return pyRound(args[0], args[1]); },
    sqrt: function (args) { if (args[0] < 0) throw NONE; return Math.sqrt(args[0]); },
    log: function (args) {
      if (args.length === 1) return logOf(args[0]);
      var base = logOf(args[1]);
      if (base === 0) throw ZERO;
      return logOf(args[0]) / base;
    },
    log2: function (args) { if (!(args[0] > 0)) throw NONE; return Math.log2(args[0]); },
    log10: function (args) { if (!(args[0] > 0)) throw NONE; return Math.log10(args[0]); },
    ceil: function (args) { return Math.ceil(finite(args[0])); },
    floor: function (args) { return Math.floor(finite(args[0])); }
  };
  var ARITY = { min: [2, 99], max: [2, 99], round: [1, 2], log: [1, 2] };

  function work(node, values) {
    if (typeof node === "number") return node;
    if (typeof node === "string") return values[node];
    var args = node.slice(1).map(function (arg) { return work(arg, values); }), a = args[0], b = args[1];
    switch (node[0]) {
      case "add": return a + b;
      case "sub": return a - b;
      case "mul": return a * b;
      case "div": if (b === 0) throw ZERO; return a / b;
      case "floordiv": return floorDiv(a, b);
      case "mod": return mod(a, b);
      case "pow": return power(a, b);
      case "neg": return -a;
    }
    var arity = ARITY[node[0]] || [1, 1];
    if (args.length < arity[0] || args.length > arity[1]) throw NONE;
    return CALLS[node[0]](args);
  }

  // format_result: three significant figures, written as pt-BR writes them.
  function figure(value) {
    if (value === 0) return "0";
    var places = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value))));
    var dec = decimal(String(pyRound(value, places)));
    var parts = split(dec);
    if (parts[1].length > MAX_PLACES) {
      parts = split(decimal(roundText((dec.neg ? "-" : "") + parts[0] + "." + parts[1], MAX_PLACES)));
    }
    return written({ neg: dec.neg, digits: parts[0] + parts[1], exp: -parts[1].length }, ".", ",");
  }

  // app/content/calculators.py's compute: the messages per input, or each output's figure.
  function compute(data, typed) {
    var errors = [], values = {}, m = data.m;
    data.i.forEach(function (item) {
      try {
        var value = number(parse((typed[item[0]] || "").trim().slice(0, MAX_CHARS), item[2], m));
        if (value < item[3] || value > item[4]) throw item[5];
        values[item[0]] = value;
      } catch (message) { errors.push([item[1], message]); }
    });
    if (errors.length) return { errors: errors };
    try {
      return { figures: data.o.map(function (output) { return figure(finite(work(output[0], values))); }) };
    } catch (e) {
      return { errors: [], problem: e === ZERO ? m.zero : m.none };
    }
  }

  // The result as _calculator_result.html writes it, with what the live region says.
  function resultHtml(data, id, result) {
    var m = data.m, html, news;
    if (result.figures) {
      news = data.o.map(function (output, i) {
        return fill(m.say, { label: output[4], value: result.figures[i], unit: output[1] });
      }).join(" ").split(" .").join(".");
      var words = m.words.split("{words}");
      html = '<dl class="calculator-outputs">' + data.o.map(function (output, i) {
        return '<div class="calculator-output"><dt>' + output[2] + "</dt><dd>" +
          '<strong class="calculator-value">' + esc(fill(m.value, { value: result.figures[i], unit: output[1] })) + "</strong> " +
          '<span class="calculator-formula">' + esc(words[0]) + output[3] + esc(words[1] || "") + "</span></dd></div>";
      }).join("") + "</dl>";
    } else {
      var lines = result.errors.map(function (e) { return esc(e[0]) + ": " + esc(e[1]); });
      if (result.problem) lines.push(esc(result.problem));
      news = result.errors.map(function (e) { return e[1]; }).concat([result.problem || ""]).join(" ").trim();
      html = '<ul class="calculator-problems">' + lines.map(function (line) { return "<li>" + line + "</li>"; }).join("") + "</ul>";
    }
    return '<div class="calculator-result" id="' + id + '-resultado" data-announce="' + esc(news) + '">' + html + "</div>";
  }

  function show(section, say) {
    var data = calculators[section.id], form = section.querySelector(".calculator-form");
    var typed = {}, query = new URLSearchParams();
    query.set("calculadora", section.id.replace(/^calculadora-/, ""));
    data.i.forEach(function (item) {
      var field = form.elements[item[0]];
      typed[item[0]] = field ? field.value : "";
      query.set(item[0], typed[item[0]].trim().slice(0, MAX_CHARS));
    });
    var drawn = resultHtml(data, section.id, compute(data, typed));
    var old = section.querySelector("#" + section.id + "-resultado");
    var box = document.createElement("template");
    box.innerHTML = drawn;
    var fresh = box.content.firstChild;
    old.replaceWith(fresh);
    if (say) {
      curso.arrived(fresh, true);
      history.replaceState(history.state, "", data.u + "?" + query.toString() + "#" + section.id);
    }
  }

  function sectionOf(el) {
    var form = el && el.closest && el.closest(".calculator-form"), section = form && form.closest(".calculator");
    return section && calculators[section.id] ? section : null;
  }

  var timer = null;
  document.addEventListener("input", function (evt) {
    var section = sectionOf(evt.target);
    if (!section || navigator.onLine) return;
    evt.stopImmediatePropagation();
    window.clearTimeout(timer);
    timer = window.setTimeout(function () { show(section, true); }, 150);
  }, true);

  document.addEventListener("submit", function (evt) {
    var section = sectionOf(evt.target);
    if (!section || navigator.onLine) return;
    evt.preventDefault();
    evt.stopImmediatePropagation();
    window.clearTimeout(timer);
    show(section, true);
  }, true);

  // The browser said it was online, but the request found no network: the result is worked
  // out here, and static/js/swap-a11y.js (listening on the body) does not say it failed.
  document.addEventListener("htmx:sendError", function (evt) {
    var section = sectionOf(evt.detail && evt.detail.elt);
    if (!section) return;
    show(section, true);
    evt.stopPropagation();
  }, true);

  curso.onLoad("[data-calculator-data]", function (island) {
    var id = island.id.replace(/-dados$/, ""), section = document.getElementById(id);
    try { calculators[id] = JSON.parse(island.textContent); } catch (e) { return; }
    // Offline, the address's values (a shared link, a reload) on the device's copy of the page.
    var query = new URLSearchParams(location.search);
    if (!section || navigator.onLine || query.get("calculadora") !== id.replace(/^calculadora-/, "")) return;
    var form = section.querySelector(".calculator-form");
    calculators[id].i.forEach(function (item) {
      if (query.has(item[0]) && form.elements[item[0]]) form.elements[item[0]].value = query.get(item[0]);
    });
    show(section, false);
  });
})();
