// Search in the browser, as a static site does: the header box's suggestions come from the
// course's index (/busca/indice.<digest>.json, built by the server from the lessons:
// app/content/search.py, client_index), searched with MiniSearch (static/minisearch.min.js).
// The words typed are stemmed with a port of the server's Snowball Portuguese stemmer
// (static/snowball-stemmers.min.js), the lessons' words come with their keys from the server,
// and the sections are ordered by SQLite FTS5's BM25 as the server's are (title ×8, text ×1),
// so both sides list the same sections in the same order (tests/test_search_browser.py).
// The index and the two libraries load on the first focus of the box (or a touch of the
// phone's search button); until they are there, or if they fail, the server answers (htmx,
// /busca/lista), and without JavaScript the box is a form that opens the search page.
// Hooks: data-search-index (the index's address) and data-search-scripts (the libraries'
// addresses, space-separated) on the header's box; its list is the one aria-controls names.
(function () {
  "use strict";
  var esc = curso.esc; // text and double-quoted attribute values alike
  var MAX_RESULTS = 20, MAX_QUERY_WORDS = 8, SNIPPET_WORDS = 28;
  var K1 = 1.2, B = 0.75, WEIGHTS = { t: 8, b: 1 };  // as bm25(section, ..., 8.0, 1.0)
  var WORD = /[\p{L}\p{N}_]+/gu;  // Python's \w (app/content/text.py, words)
  var TOKEN = /[\p{L}\p{N}]+/gu;  // SQLite's unicode61 tokenizer: "_" and the rest separate
  var ENDINGS = [["coes", "ções"], ["cao", "ção"], ["oes", "ões"], ["aes", "ães"], ["ao", "ão"]];

  var index = null, loading = null;

  // app/content/text.py, fold: no case, no accents, whatever the Unicode form.
  var folds = new Map();
  function fold(text) {
    var done = folds.get(text);
    if (done === undefined) {
      done = text.normalize("NFKD").replace(/\p{Mn}/gu, "").toLowerCase().normalize("NFC");
      folds.set(text, done);
    }
    return done;
  }

  function words(text) {
    var out = [], match;
    WORD.lastIndex = 0;
    while ((match = WORD.exec(text))) out.push({ start: match.index, end: match.index + match[0].length, text: match[0] });
    return out;
  }

  function tokens(term) { return term.match(TOKEN) || []; }

  // app/content/text.py, term_key, for a word typed (the lessons' words come with their key).
  var stemmer = null;
  function termKey(word) {
    var folded = fold(word);
    if (index.keys.has(folded)) return index.keys.get(folded);  // a word of the lessons
    if (index.plain.has(folded)) return folded;
    for (var i = 0; i < ENDINGS.length; i++) {
      if (folded.endsWith(ENDINGS[i][0])) { folded = folded.slice(0, -ENDINGS[i][0].length) + ENDINGS[i][1]; break; }
    }
    var key = fold(stemmer.stem(folded));
    if (key.length > 3 && key.endsWith("s") && !key.endsWith("ss")) key = key.slice(0, -1);
    return key;
  }
  function docKey(word) {
    var folded = fold(word);
    return index.keys.has(folded) ? index.keys.get(folded) : folded;
  }

  // The index as the server's (app/content/search.py, index_terms): each word's key, and its
  // folded form when different, cut into tokens as FTS5 cuts them.
  function terms(text) {
    var out = [];
    words(text).forEach(function (w) {
      var folded = fold(w.text), key = docKey(w.text);
      Array.prototype.push.apply(out, tokens(key));
      if (folded !== key) Array.prototype.push.apply(out, tokens(folded));
    });
    return out;
  }

  function build(data) {
    var keys = new Map(Object.keys(data.keys).map(function (k) { return [k, data.keys[k]]; }));
    index = { keys: keys, plain: new Set(), lessons: data.lessons, sections: [], counts: [], total: 0, df: new Map() };
    var docs = data.sections.map(function (s, id) {
      var t = terms(s[2]), b = terms(s[3]);
      var counts = new Map();
      t.forEach(function (tok) { var c = counts.get(tok) || [0, 0]; c[0]++; counts.set(tok, c); });
      b.forEach(function (tok) { var c = counts.get(tok) || [0, 0]; c[1]++; counts.set(tok, c); });
      index.sections.push({ lesson: s[0], anchor: s[1], title: s[2], text: s[3], size: t.length + b.length });
      index.counts.push(counts);
      index.total += t.length + b.length;
      return { id: id, t: t.join(" "), b: b.join(" ") };
    });
    words(data.sections.map(function (s) { return s[2] + " " + s[3]; }).join(" ")).forEach(function (w) {
      var folded = fold(w.text);
      if (!keys.has(folded)) index.plain.add(folded);
    });
    var split = function (text) { return text ? text.split(" ") : []; };
    var same = function (term) { return term; };
    index.search = new MiniSearch({
      fields: ["t", "b"], tokenize: split, processTerm: same,
      searchOptions: { tokenize: function (q) { return [q]; }, processTerm: same, fuzzy: false }
    });
    index.search.addAll(docs);
  }

  // app/content/search.py, Query.parse: per word typed, its key, its folded form, and whether
  // it matches word starts (3 letters or more).
  function parse(raw) {
    return words(raw.normalize("NFC")).slice(0, MAX_QUERY_WORDS).map(function (w) {
      return { key: termKey(w.text), folded: fold(w.text), prefix: Array.from(w.text).length >= 3 };
    });
  }

  // Query.fts: every word must match, as its key or folded form; each form is a "phrase" of
  // FTS5's (the ones BM25 weighs), of one token or (with a "_") several.
  function phrases(query) {
    var out = [];
    query.forEach(function (term) {
      [term.key, term.folded].forEach(function (form, i) {
        if (i === 1 && form === term.key) return;
        out.push({ word: term, tokens: tokens(form), prefix: term.prefix });
      });
    });
    return out;
  }

  function phraseQuery(phrase) {
    var last = phrase.tokens.length - 1;
    return {
      combineWith: "AND",
      queries: phrase.tokens.map(function (tok, i) { return { queries: [tok], prefix: phrase.prefix && i === last }; })
    };
  }

  function tree(query, list) {
    return {
      combineWith: "AND",
      queries: query.map(function (term) {
        return { combineWith: "OR", queries: list.filter(function (p) { return p.word === term; }).map(phraseQuery) };
      })
    };
  }

  // FTS5's bm25(): per phrase, its IDF over every section, its weighted count in this one.
  function frequency(phrase, counts, matched) {
    var tok = phrase.tokens[phrase.tokens.length - 1], f = 0;
    (phrase.prefix ? matched : [tok]).forEach(function (term) {
      if (term !== tok && !(phrase.prefix && term.startsWith(tok))) return;
      var c = counts.get(term);
      if (c) f += c[0] * WEIGHTS.t + c[1] * WEIGHTS.b;
    });
    return f;
  }

  function idf(phrase) {
    var name = (phrase.prefix ? "*" : "=") + phrase.tokens.join(" ");
    var n = index.df.get(name);
    if (n === undefined) {
      n = index.search.search(phraseQuery(phrase)).length;
      index.df.set(name, n);
    }
    var rows = index.sections.length, value = Math.log((rows - n + 0.5) / (n + 0.5));
    return value <= 0 ? 1e-6 : value;
  }

  function search(raw) {
    var query = parse(raw);
    if (!query.length) return { query: query, hits: [] };
    var list = phrases(query).filter(function (p) { return p.tokens.length; });
    var found = index.search.search(tree(query, list));
    var avgdl = index.total / index.sections.length;
    var weights = list.map(idf);
    found.forEach(function (result) {
      var counts = index.counts[result.id], size = index.sections[result.id].size, score = 0;
      list.forEach(function (phrase, i) {
        var f = frequency(phrase, counts, result.terms);
        score += weights[i] * (f * (K1 + 1)) / (f + K1 * (1 - B + B * size / avgdl));
      });
      result.bm25 = score;
    });
    found.sort(function (a, b) {
      return (b.bm25 - a.bm25) || (index.sections[a.id].lesson - index.sections[b.id].lesson) || (a.id - b.id);
    });
    return { query: query, hits: found.slice(0, MAX_RESULTS).map(function (r) { return index.sections[r.id]; }) };
  }

  // Query.matches: a word of a lesson is one of the words typed.
  function matches(query, word) {
    var key = docKey(word), folded = fold(word);
    return query.some(function (t) {
      return [[key, t.key], [folded, t.folded], [folded, t.key]].some(function (pair) {
        return pair[0] === pair[1] || (t.prefix && pair[0].startsWith(pair[1]));
      });
    });
  }

  // app/content/search.py, snippet: an excerpt around the first match, matches in <mark>.
  function snippet(text, query) {
    var found = words(text);
    if (!found.length) return "";
    var first = -1, marked = found.map(function (w, i) {
      var yes = matches(query, w.text);
      if (yes && first < 0) first = i;
      return yes;
    });
    var start = Math.max(0, (first < 0 ? 0 : first) - Math.floor(SNIPPET_WORDS / 3));
    var end = Math.min(found.length, start + SNIPPET_WORDS);
    var begin = start ? found[start].start : 0;
    var finish = end < found.length ? found[end - 1].end : text.length;
    var out = "", cursor = begin;
    for (var i = start; i < end; i++) {
      var w = found[i];
      out += esc(text.slice(cursor, w.start));
      out += marked[i] ? "<mark>" + esc(w.text) + "</mark>" : esc(w.text);
      cursor = w.end;
    }
    out += esc(text.slice(cursor, finish));
    return (begin ? "… " : "") + out.trim() + (finish < text.length ? " …" : "");
  }


  // The list as _search_listbox.html writes it, put in as htmx would put the server's.
  function render(input, typed) {
    var old = document.getElementById(input.getAttribute("aria-controls"));
    if (!old) return;
    var list = old.cloneNode(false), prefix = input.getAttribute("data-lesson-prefix");
    list.setAttribute("data-query", typed);
    list.removeAttribute("data-announce");
    var html = "", id = list.id;
    if (typed) {
      var result = search(typed);
      var highlight = new URLSearchParams({ destaque: typed }).toString();
      result.hits.forEach(function (hit, i) {
        var lesson = index.lessons[hit.lesson];
        var href = prefix + encodeURIComponent(lesson[0]) + "?" + highlight + (hit.anchor ? "#" + hit.anchor : "");
        var detail = curso.message("search-detail").replace("{position}", hit.lesson + 1).replace("{title}", lesson[1]);
        html += '<li id="' + id + "-" + i + '" role="option" aria-selected="false" data-href="' + esc(href) + '">' +
          '<span class="search-popup-title">' + esc(hit.title) + "</span>" +
          '<span class="search-popup-detail">' + esc(detail) + "</span>" +
          '<span class="search-popup-snippet">' + (snippet(hit.text, result.query) || esc(hit.title)) + "</span></li>";
      });
      var all = input.form.getAttribute("action") + "?" + new URLSearchParams({ q: typed }).toString();
      html += '<li id="' + id + "-" + result.hits.length + '" role="option" aria-selected="false" data-href="' + esc(all) + '">' +
        '<span class="search-popup-title">' + esc(curso.message("search-all")) + "</span></li>";
      var n = result.hits.length;
      var summary = curso.message(n === 0 ? "search-none" : n === 1 ? "search-one" : "search-many");
      list.setAttribute("data-announce", summary.replace("{num}", n).replace("{query}", typed));
      list.hidden = false;
    } else {
      list.hidden = true;
    }
    list.innerHTML = html;
    old.replaceWith(list);
    curso.loaded(list);  // search-box.js opens it while it answers what is in the box
    if (typed) curso.announce(list.getAttribute("data-announce"));
  }

  function typedIn(input) { return input.value.replace(/\s+/g, " ").trim(); }

  function script(src) {
    return new Promise(function (resolve, reject) {
      var el = document.createElement("script");
      el.src = src;
      el.onload = resolve;
      el.onerror = reject;
      document.head.appendChild(el);
    });
  }

  function load(input) {
    if (loading) return loading;
    var scripts = (input.getAttribute("data-search-scripts") || "").split(" ").filter(Boolean);
    var data = window.fetch(input.getAttribute("data-search-index"), { credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); });
    loading = Promise.all([data].concat(scripts.map(script))).then(function (done) {
      stemmer = window.snowballFactory.newStemmer("portuguese");
      build(done[0]);
      // Words typed while it loaded get their list, unless the server's answer to them is in.
      var list = document.getElementById(input.getAttribute("aria-controls"));
      var typed = typedIn(input);
      if (document.activeElement === input && typed && (!list || list.getAttribute("data-query") !== typed)) render(input, typed);
    }).catch(function () { index = null; });
    return loading;
  }

  // Search what is in the box now: here when the index is in, else on the server.
  curso.search = function (input) {
    if (index) return render(input, typedIn(input));
    load(input);
    curso.withHtmx(function () { if (!index) htmx.trigger(input, "curso:ask"); });
  };

  curso.onLoad("[data-search-index]", function (input) {
    var start = function () { load(input); };
    input.addEventListener("focus", start);
    input.addEventListener("pointerenter", start);
    var toggle = document.querySelector("[data-search-toggle]");
    if (toggle) {
      toggle.addEventListener("touchstart", start, { passive: true });
      toggle.addEventListener("pointerenter", start);
    }
    input.addEventListener("input", function () { curso.search(input); });
    // Once the index is in, the server's lists no longer replace the browser's (an answer still
    // on its way is for words since typed; aborting it would log an error).
    input.addEventListener("htmx:beforeSwap", function (evt) { if (index) evt.detail.shouldSwap = false; });
  });
})();
