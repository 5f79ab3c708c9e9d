// Small progressive enhancements on top of htmx. The site works without this file.
// Texts come from data-msg-* attributes on <body>, which the server fills from the catalog.
(function () {
  "use strict";
  var YEAR_S = 365 * 24 * 3600;

  function message(name) {
    return document.body.getAttribute("data-msg-" + name) || "";
  }

  function announce(text) {
    var region = document.getElementById("anuncio");
    if (!region || !text) return;
    region.textContent = "";
    // A fresh text node after a tick makes screen readers announce repeated messages.
    window.setTimeout(function () { region.textContent = text; }, 50);
  }

  function showError(text) {
    var box = document.getElementById("aviso-erro");
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
    window.clearTimeout(showError.timer);
    showError.timer = window.setTimeout(function () { box.hidden = true; }, 10000);
  }

  // Values are plain words and IANA zone names ("America/Manaus"), sent as they are.
  function setCookie(name, value) {
    if (!/^[A-Za-z0-9_+\-\/]+$/.test(value)) return;
    var secure = window.location.protocol === "https:" ? "; secure" : "";
    document.cookie = name + "=" + value + "; path=/; max-age=" + YEAR_S + "; samesite=lax" + secure;
  }

  // Dates are shown in the learner's time zone: tell the server which one it is (before the next
  // lesson is fetched ahead: the pages vary by cookie). Temporal reads the zone at no cost; the
  // first Intl call loads the locale data (some 30 ms on a fast machine, more than a phone can
  // spare while the lesson is being laid out), so without Temporal it waits for an idle moment.
  var TEMPORAL = !!(window.Temporal && Temporal.Now && Temporal.Now.timeZoneId);

  function rememberTimeZone() {
    var zone = TEMPORAL ? Temporal.Now.timeZoneId() : window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && (" " + document.cookie + ";").indexOf(" fuso=" + zone + ";") === -1) setCookie("fuso", zone);
  }

  // The theme switch: apply at once, remember in the same cookie the server reads.
  function enhanceThemeSwitch() {
    var form = document.querySelector(".theme-switch");
    if (!form) return;
    form.addEventListener("submit", function (evt) {
      var button = evt.submitter;
      if (!button || !button.value) return;
      evt.preventDefault();
      var dark = button.value === "escuro";
      setCookie("tema", button.value);
      document.documentElement.setAttribute("data-theme", dark ? "dark" : "light");
      var sheet = document.querySelector("link[data-dark-theme]");
      if (sheet) sheet.media = dark ? "all" : "not all";
      // The pressed button is now hidden: keep keyboard focus on the one that took its place.
      var other = form.querySelector(dark ? ".theme-to-light" : ".theme-to-dark");
      if (other) other.focus();
      announce(message(dark ? "dark" : "light"));
    });
  }

  // A copy button for each code block (useless without JavaScript, so added here).
  function addCopyButtons(root) {
    var blocks = root.querySelectorAll ? root.querySelectorAll(".code-block") : [];
    Array.prototype.forEach.call(blocks, function (block) {
      if (block.querySelector(".copy-button")) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy-button";
      button.textContent = message("copy");
      button.addEventListener("click", function () {
        var text = block.querySelector("pre").innerText.replace(/\n$/, "");
        var done = function () { announce(message("copied")); };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(done, function () { legacyCopy(text); done(); });
        } else {
          legacyCopy(text);
          done();
        }
      });
      block.appendChild(button);
    });
  }

  function legacyCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }

  // Keep the current node of each tree map in view (the map may be wider than its box). Done
  // when the map comes into view: measuring a map that is not rendered yet (a closed "Ver o mapa"
  // on a phone, or far below) would force its layout while the page is loading.
  var mapsInView = window.IntersectionObserver && new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (!entry.isIntersecting) return;
      mapsInView.unobserve(entry.target);
      revealInMap(entry.target);
    });
  });

  function revealCurrent(root) {
    var maps = root.querySelectorAll ? root.querySelectorAll(".tree-map") : [];
    Array.prototype.forEach.call(maps, function (map) {
      if (mapsInView) mapsInView.observe(map); else revealInMap(map);
    });
  }

  function revealInMap(map) {
    var node = map.querySelector(".tree-node.current");
    if (!node) return;
    var box = node.getBoundingClientRect(), frame = map.getBoundingClientRect();
    // Scroll only when the current node is not fully in view, and just enough to show it.
    if (box.left >= frame.left && box.right <= frame.right) return;
    var target = box.right > frame.right ? map.scrollLeft + box.right - frame.right + 24 : map.scrollLeft + box.left - frame.left - 24;
    var calm = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    map.scrollTo({ left: Math.max(0, target), behavior: calm ? "auto" : "smooth" });
  }

  var NARROW = "(max-width: 59.99rem)";

  function calm() {
    return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  // The section being read: the last heading (or question) whose top has passed the upper third
  // of the window. An IntersectionObserver (no work on every scroll event) fires "curso:secao"
  // when it changes; the contents rail, the address bar and "Continuar de onde parei" listen.
  function followSections() {
    var article = document.querySelector("article.lesson[data-licao]");
    if (!article || !window.IntersectionObserver) return;
    // A tree counts as a place too, so its step's address (#arvore-...) is kept while it is read.
    var selector = ":scope > .heading-anchor > h2[id], :scope > .heading-anchor > h3[id], .question[id], .tree-widget[id]";
    var marks = article.querySelectorAll(selector);
    if (!marks.length) return;
    var current = null, quiet = false;
    function find() {
      marks = article.querySelectorAll(selector);  // htmx swaps questions and trees
      var found = "", line = window.innerHeight / 3;
      for (var i = 0; i < marks.length; i++) {
        if (marks[i].getBoundingClientRect().top > line) break;
        found = marks[i].id;
      }
      return found;
    }
    function update() {
      var section = find();
      if (section === current) return;
      // A swap (not the reader) moved things, or the page has just opened: keep the address.
      // The setup runs in an idle task; a reader who scrolled before it ran has chosen a place.
      var opened = current === null && (window.location.hash !== "" || window.scrollY === 0);
      var first = opened || quiet;
      current = section;
      document.dispatchEvent(new CustomEvent("curso:secao", { detail: { id: section, first: first } }));
    }
    var observer = new IntersectionObserver(update, { rootMargin: "0px 0px -66% 0px" });
    function observeAll() {
      observer.disconnect();
      Array.prototype.forEach.call(article.querySelectorAll(selector), function (mark) { observer.observe(mark); });
    }
    observeAll();
    // Only the swap's own moves are quiet, from the swap to the settle (and the focus moved
    // then): the reader's next scroll moves the address again.
    document.body.addEventListener("htmx:afterSwap", function () { quiet = true; });
    document.body.addEventListener("htmx:afterSettle", function () {
      quiet = true;
      observeAll();
      update();
      quiet = false;
    });
    update();
  }

  // The contents rail marks the section being read; the address follows it (replaceState).
  function followInRail() {
    var links = document.querySelectorAll(".toc a[href^='#']");
    var headings = {};
    Array.prototype.forEach.call(links, function (link) { headings[link.getAttribute("href").slice(1)] = link; });
    var article = document.querySelector("article.lesson");
    var written = null;  // the address this code last wrote (path, query and hash)
    function forget() { written = null; }  // an address htmx or the reader put there
    document.body.addEventListener("htmx:pushedIntoHistory", forget);
    document.body.addEventListener("htmx:replacedInHistory", forget);
    window.addEventListener("popstate", forget);
    document.addEventListener("curso:secao", function (evt) {
      var id = evt.detail.id;
      // A question belongs to the section of the heading above it.
      var section = id;
      if (id && !headings[id]) {
        var el = document.getElementById(id), hs = article.querySelectorAll("h2[id], h3[id]");
        section = "";
        for (var i = 0; i < hs.length; i++) {
          if (!headings[hs[i].id]) continue;
          if (hs[i].compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) section = hs[i].id; else break;
        }
      }
      Array.prototype.forEach.call(links, function (link) { link.removeAttribute("aria-current"); });
      if (headings[section]) headings[section].setAttribute("aria-current", "location");
      if (evt.detail.first) return;  // opening the page keeps the address it was opened with
      // An address the reader chose (a link, a tree step: ?arvore=...#arvore-..., which back
      // and forward walk) stays while its target is on screen; one this code wrote follows the
      // reading. Once the reader has passed the target, the address follows the reading again.
      var here = window.location.pathname + window.location.search + window.location.hash;
      var held = here !== written && window.location.hash &&
        document.getElementById(window.location.hash.slice(1));
      if (held) {
        var box = held.getBoundingClientRect();
        if (box.bottom > 0 && box.top < window.innerHeight) return;
      }
      var url = window.location.pathname + window.location.search + (id ? "#" + id : "");
      if (url !== here) {
        window.history.replaceState(window.history.state, "", url);
        written = url;
      }
    });
  }

  // "Continuar de onde parei": tell the server which section of the lesson is being read,
  // once the reader has stayed a second on it (scrolling up to the menu to leave records nothing).
  function trackPlace() {
    var article = document.querySelector("article.lesson[data-licao]");
    var headers = document.body.getAttribute("hx-headers");
    if (!article || !headers || !window.fetch) return;
    var token = JSON.parse(headers)["x-csrftoken"];
    var lesson = article.getAttribute("data-licao");
    var sent = null, timer = null;
    function send(section) {
      if (section === sent) return;
      sent = section;
      var body = new URLSearchParams({ csrftoken: token, licao: lesson, secao: section });
      fetch("/progresso/lugar", { method: "POST", body: body, credentials: "same-origin", keepalive: true })
        .catch(function () { sent = null; });
    }
    document.addEventListener("curso:secao", function (evt) {
      window.clearTimeout(timer);
      if (evt.detail.first) { sent = evt.detail.id; return; }  // opening the lesson already stored it
      if (evt.detail.id.indexOf("arvore-") === 0) return;  // a tree is not a place the server knows
      timer = window.setTimeout(function () { send(evt.detail.id); }, 1000);
    });
  }

  // On a phone the header hides while the reader scrolls down and comes back on the way up
  // (or when focus enters it). On wide screens it is simply sticky (app.css).
  function reachableHeader() {
    var header = document.querySelector(".site-header");
    if (!header) return;
    // Jumps land below the header (scroll-padding-top in app.css): keep its real height.
    function measure() {
      document.documentElement.style.setProperty("--header-h", header.offsetHeight + "px");
    }
    if (window.ResizeObserver) new ResizeObserver(measure).observe(header);
    else measure();
    // The scroll position is read in the first frame, where the layout is done anyway (reading
    // it now, while the lesson may not be laid out yet, would force that layout here).
    var narrow = null, last = null, ticking = false;
    window.requestAnimationFrame(function () {
      if (last !== null) return;
      last = window.scrollY;
      // A page opened on a section (#...) starts as a jump does: the section uncovered.
      if (window.location.hash && last > header.offsetHeight) hide(true);
    });
    function hide(yes) {
      narrow = narrow || window.matchMedia(NARROW);
      header.classList.toggle("is-hidden", yes && narrow.matches);
    }
    window.addEventListener("scroll", function () {
      if (ticking) return;
      ticking = true;
      window.requestAnimationFrame(function () {
        ticking = false;
        var y = window.scrollY, delta = last === null ? 0 : y - last;
        last = y;
        if (header.contains(document.activeElement) && document.activeElement !== document.body) return hide(false);
        if (y <= header.offsetHeight) hide(false);
        else if (delta > 4) hide(true);
        else if (delta < -4) hide(false);
      });
    }, { passive: true });
    header.addEventListener("focusin", function () { hide(false); });
    // A jump to a section lands with the heading at the top: keep it uncovered.
    window.addEventListener("hashchange", function () { if (window.scrollY > header.offsetHeight) hide(true); });
  }

  // "Voltar ao topo" appears after one screen of scrolling. Where the text fills the width
  // (phones, narrow windows) it would sit on the text, so there it shows only while the reader
  // scrolls up, as the header does, and while it has the focus.
  function backToTop() {
    var link = document.querySelector(".to-top");
    if (!link) return;
    var narrow = window.matchMedia("(max-width: 60rem)");
    var ticking = false, lastY = window.scrollY, up = false;
    function update() {
      ticking = false;
      var y = window.scrollY;
      if (y > lastY + 4) up = false;
      else if (y < lastY - 4) up = true;
      lastY = y;
      var wanted = y >= window.innerHeight && (!narrow.matches || up || document.activeElement === link);
      link.hidden = !wanted;
    }
    window.addEventListener("scroll", function () {
      if (!ticking) { ticking = true; window.requestAnimationFrame(update); }
    }, { passive: true });
    window.requestAnimationFrame(update);  // a page opened further down (#section) shows it
    link.addEventListener("click", function (evt) {
      evt.preventDefault();
      window.scrollTo({ top: 0, behavior: calm() ? "auto" : "smooth" });
      var main = document.getElementById("conteudo");
      if (main) main.focus({ preventScroll: true });
    });
  }

  // The phone menu: a modal <dialog> that borrows this page's contents and the course's lessons
  // while it is open (they go back in place when it closes), so the page keeps one copy of each.
  function phoneMenu() {
    var button = document.querySelector(".menu-button"), dialog = document.getElementById("gaveta");
    if (!button || !dialog || typeof dialog.showModal !== "function") return;
    var body = dialog.querySelector(".drawer-body");
    // The site's links and the theme switch leave the phone's bar for the menu; a lesson adds
    // its contents and the course navigation.
    var parts = [
      document.querySelector(".site-header .site-nav"),
      document.querySelector(".site-header .theme-switch"),
      document.querySelector(".lesson-aside .toc"),
      document.getElementById("navegacao-curso")
    ];
    var homes = [];
    button.hidden = false;
    function bringBack() {
      homes.forEach(function (home) {
        home.marker.parentNode.insertBefore(home.node, home.marker);
        home.marker.remove();
        if (home.details) home.details.open = home.wasOpen;
      });
      homes = [];
    }
    button.addEventListener("click", function () {
      parts.forEach(function (node) {
        if (!node || !node.parentNode) return;
        var marker = document.createComment("menu");
        node.parentNode.insertBefore(marker, node);
        var details = node.querySelector("details");
        homes.push({ node: node, marker: marker, details: details, wasOpen: details && details.open });
        if (details) details.open = true;
        body.appendChild(node);
      });
      dialog.showModal();
      button.setAttribute("aria-expanded", "true");
      var current = dialog.querySelector(".toc [aria-current], .course-nav [aria-current]");
      var target = (current && current.querySelector("a")) || current || dialog.querySelector(".drawer-close");
      if (target && target.focus) target.focus();
    });
    dialog.querySelector(".drawer-close").addEventListener("click", function () { dialog.close(); });
    // A tap on the backdrop (outside the panel) closes the menu too.
    dialog.addEventListener("click", function (evt) { if (evt.target === dialog) dialog.close(); });
    // A link followed inside the page closes the menu and lands on its section.
    body.addEventListener("click", function (evt) {
      var link = evt.target.closest && evt.target.closest("a[href^='#']");
      if (link) dialog.close();
    });
    // Keep Tab inside the menu (showModal makes the page inert; this also wraps around).
    dialog.addEventListener("keydown", function (evt) {
      if (evt.key !== "Tab") return;
      var items = Array.prototype.filter.call(
        dialog.querySelectorAll("a[href], button, summary, [tabindex]:not([tabindex='-1'])"),
        function (el) { return el.offsetParent !== null; });
      if (!items.length) return;
      var first = items[0], lastItem = items[items.length - 1];
      if (evt.shiftKey && document.activeElement === first) { evt.preventDefault(); lastItem.focus(); }
      else if (!evt.shiftKey && document.activeElement === lastItem) { evt.preventDefault(); first.focus(); }
    });
    // Escape (the dialog's own "cancel"), the close button, the backdrop or a link: focus goes
    // back to the menu button.
    dialog.addEventListener("close", function () {
      bringBack();
      button.setAttribute("aria-expanded", "false");
      button.focus({ preventScroll: true });
    });
    button.setAttribute("aria-expanded", "false");
  }

  // On a phone the bar has a search button instead of the box: it opens the box under the bar
  // and focuses it; leaving the box (focus elsewhere, Escape on an empty box) closes it.
  function openSearch() {
    var header = document.querySelector(".site-header");
    var toggle = document.querySelector(".search-toggle");
    if (!header || !toggle || toggle.offsetParent === null) return;
    header.classList.add("is-searching");
    toggle.setAttribute("aria-expanded", "true");
  }
  function searchToggle() {
    var header = document.querySelector(".site-header");
    var toggle = document.querySelector(".search-toggle");
    var form = document.getElementById("busca-form");
    if (!header || !toggle || !form) return;
    toggle.hidden = false;
    function close(refocus) {
      header.classList.remove("is-searching");
      toggle.setAttribute("aria-expanded", "false");
      if (refocus) toggle.focus();
    }
    toggle.addEventListener("click", function () {
      if (header.classList.contains("is-searching")) return close(false);
      openSearch();
      var box = form.querySelector("input");
      box.focus();
      box.select();
    });
    form.addEventListener("focusout", function (evt) {
      if (evt.relatedTarget && (form.contains(evt.relatedTarget) || evt.relatedTarget === toggle)) return;
      close(false);
    });
    form.addEventListener("keydown", function (evt) {
      if (evt.key === "Escape" && !evt.defaultPrevented && header.classList.contains("is-searching")) close(true);
    });
  }

  // Search from anywhere: "/" or "s" focus the search box (outside text fields); the header box
  // shows results as you type in a listbox (a combobox: arrows, Enter, Escape, counts announced).
  // Without JavaScript it is a form that opens /busca.
  function searchFromAnywhere() {
    document.addEventListener("keydown", function (evt) {
      if (evt.defaultPrevented || evt.ctrlKey || evt.metaKey || evt.altKey) return;
      if (evt.key !== "/" && evt.key !== "s" && evt.key !== "S") return;
      var active = document.activeElement;
      if (active && (active.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName))) return;
      if (document.querySelector("dialog[open]")) return;
      var box = document.querySelector("[data-search-box]") || document.getElementById("busca");
      if (!box) return;
      evt.preventDefault();
      openSearch();
      box.focus();
      box.select();
    });
    var input = document.querySelector("[data-search-box]");
    if (input && window.fetch) searchCombobox(input);
  }

  function searchCombobox(input) {
    var form = input.form;
    var list = document.createElement("ul");
    list.id = input.id + "-lista";
    list.className = "search-popup";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", input.labels && input.labels[0] ? input.labels[0].textContent : "");
    list.hidden = true;
    form.appendChild(list);
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", list.id);
    var timer = null, active = -1, asked = "", controller = null;

    function options() { return list.querySelectorAll("[role=option]"); }
    function open(yes) {
      list.hidden = !yes;
      input.setAttribute("aria-expanded", yes ? "true" : "false");
      if (!yes) choose(-1);
    }
    function choose(index) {
      var items = options();
      active = index;
      Array.prototype.forEach.call(items, function (item, i) { item.setAttribute("aria-selected", i === index ? "true" : "false"); });
      if (index >= 0 && items[index]) {
        input.setAttribute("aria-activedescendant", items[index].id);
        items[index].scrollIntoView({ block: "nearest" });
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }
    function go(item) { window.location.assign(item.getAttribute("data-href")); }
    function option(index, href, title, detail) {
      var item = document.createElement("li");
      item.id = list.id + "-" + index;
      item.setAttribute("role", "option");
      item.setAttribute("aria-selected", "false");
      item.setAttribute("data-href", href);
      var strong = document.createElement("span");
      strong.className = "search-popup-title";
      strong.textContent = title;
      item.appendChild(strong);
      if (detail) {
        var small = document.createElement("span");
        small.className = "search-popup-detail";
        small.textContent = detail;
        item.appendChild(small);
      }
      item.addEventListener("mousedown", function (evt) { evt.preventDefault(); });  // keep focus in the box
      item.addEventListener("click", function () { go(item); });
      return item;
    }
    function show(query, html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      list.textContent = "";
      var hits = doc.querySelectorAll(".search-hit");
      Array.prototype.forEach.call(hits, function (hit, i) {
        var link = hit.querySelector(".search-hit-title a");
        var where = hit.querySelector(".search-hit-lesson");
        list.appendChild(option(i, link.getAttribute("href"), link.textContent, where ? where.textContent : ""));
      });
      list.appendChild(option(hits.length, "/busca?" + new URLSearchParams({ q: query }), message("search-all"), ""));
      open(true);
      var summary = doc.querySelector("[data-announce]");
      announce(summary ? summary.getAttribute("data-announce") : "");
    }
    function ask() {
      var query = input.value.replace(/\s+/g, " ").trim();
      if (query === asked && !list.hidden) return;
      asked = query;
      if (controller) controller.abort();
      if (!query) { list.textContent = ""; open(false); return; }
      controller = window.AbortController ? new AbortController() : null;
      fetch("/busca?" + new URLSearchParams({ q: query }), {
        headers: { "HX-Request": "true" }, credentials: "same-origin", signal: controller && controller.signal,
      }).then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.text();
      }).then(function (html) {
        if (input.value.replace(/\s+/g, " ").trim() === query) show(query, html);
      }).catch(function (err) {
        if (err && err.name === "AbortError") return;
        list.textContent = "";
        open(false);
        announce(message("search-error"));
      });
    }
    input.addEventListener("input", function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(ask, 50);  // a request per pause in typing; a newer one aborts it
    });
    input.addEventListener("keydown", function (evt) {
      var items = options();
      if (evt.key === "ArrowDown" || evt.key === "ArrowUp") {
        if (list.hidden) { if (items.length) open(true); else ask(); evt.preventDefault(); return; }
        evt.preventDefault();
        var n = items.length;
        choose(evt.key === "ArrowDown" ? (active + 1) % n : (active <= 0 ? n - 1 : active - 1));
      } else if (evt.key === "Enter" && !list.hidden && active >= 0 && items[active]) {
        evt.preventDefault();
        go(items[active]);
      } else if (evt.key === "Escape" && !list.hidden) {
        evt.preventDefault();
        evt.stopPropagation();
        open(false);
      }
    });
    input.addEventListener("blur", function () { window.setTimeout(function () { open(false); }, 150); });
    input.addEventListener("focus", function () { if (list.childNodes.length && input.value.trim() === asked) open(true); });
  }

  // A page opened from a search result (?destaque=...) marks the searched words with <mark>
  // and scrolls to the first one (after the section the result pointed at). Done here, on the
  // client, so the page's HTML (and its cache) does not depend on the query.
  function fold(text) {
    var out = "";
    for (var i = 0; i < text.length; i++) {
      var c = text[i].normalize("NFD")[0].toLowerCase();
      out += c.length === 1 ? c : text[i];
    }
    return out;
  }

  function markSearchedWords() {
    var article = document.querySelector("article.lesson");
    var query = new URLSearchParams(window.location.search).get("destaque");
    if (!article || !query) return;
    var stems = fold(query).split(/[^a-z0-9\u00c0-\uffff]+/).filter(function (w) { return w.length >= 2; })
      .map(function (w) { return w.length > 4 ? w.replace(/(es|s)$/, "") : w; })
      .map(function (w) { return w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); });
    if (!stems.length) return;
    var pattern = new RegExp("(^|[^a-z0-9\u00c0-\uffff])((?:" + stems.join("|") + ")[a-z0-9\u00c0-\uffff]*)", "g");
    var walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        var parent = node.parentNode;
        if (!node.nodeValue.trim() || parent.closest("script, style, svg, button, input, textarea, mark, .heading-link, form .hint")) {
          return NodeFilter.FILTER_REJECT;
        }
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    var nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    var marks = [];
    nodes.forEach(function (node) {
      var text = node.nodeValue, folded = fold(text), cursor = 0, match, pieces = [];
      pattern.lastIndex = 0;
      while ((match = pattern.exec(folded))) {
        var start = match.index + match[1].length, end = start + match[2].length;
        pieces.push(document.createTextNode(text.slice(cursor, start)));
        var mark = document.createElement("mark");
        mark.textContent = text.slice(start, end);
        pieces.push(mark);
        marks.push(mark);
        cursor = end;
      }
      if (!pieces.length) return;
      pieces.push(document.createTextNode(text.slice(cursor)));
      var frag = document.createDocumentFragment();
      pieces.forEach(function (p) { frag.appendChild(p); });
      node.parentNode.replaceChild(frag, node);
    });
    if (!marks.length) return;
    var target = window.location.hash && document.getElementById(window.location.hash.slice(1));
    var first = marks[0];
    if (target) {
      for (var i = 0; i < marks.length; i++) {
        if (target.compareDocumentPosition(marks[i]) & (Node.DOCUMENT_POSITION_FOLLOWING | Node.DOCUMENT_POSITION_CONTAINED_BY)) { first = marks[i]; break; }
      }
    }
    first.classList.add("mark-first");
    first.scrollIntoView({ block: "center", behavior: "auto" });
    announce(message("marked").replace("{count}", marks.length));
  }

  // Ordering questions: the form posts one position select per step (that is all it needs
  // without JavaScript). Here the steps also move by drag and drop and by Move up/down buttons;
  // after every move each select takes its step's new position, so the post is the same.
  function enhanceOrdering(root) {
    var lists = root.querySelectorAll ? root.querySelectorAll("[data-ordering]:not([data-enhanced])") : [];
    Array.prototype.forEach.call(lists, function (list) {
      list.setAttribute("data-enhanced", "");
      list.classList.add("ordering-enhanced");
      var form = list.closest("form");
      var hint = form && form.querySelector(".ordering-js-hint");
      if (hint) hint.hidden = false;
      var selectHint = form && form.querySelector(".ordering-nojs-hint");
      if (selectHint) selectHint.hidden = true;
      var dragged = null;
      Array.prototype.forEach.call(list.children, function (item) {
        item.querySelector(".ordering-moves").hidden = false;
        item.querySelector(".ordering-position").hidden = true;
        item.draggable = true;
        item.addEventListener("dragstart", function (evt) {
          dragged = item;
          item.classList.add("dragging");
          evt.dataTransfer.effectAllowed = "move";
          evt.dataTransfer.setData("text/plain", item.getAttribute("data-item"));
        });
        item.addEventListener("dragend", function () {
          item.classList.remove("dragging");
          dragged = null;
        });
        item.addEventListener("dragover", function (evt) {
          if (!dragged || dragged === item) return;
          evt.preventDefault();
          var box = item.getBoundingClientRect();
          var after = evt.clientY > box.top + box.height / 2;
          list.insertBefore(dragged, after ? item.nextSibling : item);
        });
        item.addEventListener("drop", function (evt) {
          evt.preventDefault();
          if (dragged) moved(list, dragged, null);
        });
      });
      list.addEventListener("click", function (evt) {
        var button = evt.target.closest(".ordering-move");
        if (!button) return;
        var item = button.closest(".ordering-item");
        var step = Number(button.getAttribute("data-move"));
        var other = step < 0 ? item.previousElementSibling : item.nextElementSibling;
        if (other) list.insertBefore(item, step < 0 ? other : other.nextSibling);
        moved(list, item, button);
      });
      number(list);
    });
  }

  function number(list) {
    Array.prototype.forEach.call(list.children, function (item, index) {
      var select = item.querySelector("select");
      select.value = item.getAttribute("data-item") + "=" + (index + 1);
    });
  }

  function moved(list, item, button) {
    number(list);
    if (button) {
      var again = item.querySelector('[data-move="' + button.getAttribute("data-move") + '"]');
      if (again) again.focus();
    }
    var position = Array.prototype.indexOf.call(list.children, item) + 1;
    var text = list.getAttribute("data-msg-moved")
      .replace("{step}", item.querySelector(".ordering-text").textContent.trim())
      .replace("{num}", position).replace("{total}", list.children.length);
    announce(text);
  }

  // Work that is not needed for the first paint waits until the browser is idle (a phone's main
  // thread is busy laying out the lesson then); Safari has no requestIdleCallback.
  function later(work) {
    if (window.requestIdleCallback) window.requestIdleCallback(work, { timeout: 1500 });
    else window.setTimeout(work, 200);
  }

  // The next lesson is fetched ahead when the browser is idle, and any lesson link on hover or
  // focus, as <link rel="prefetch"> (the HTML only, about 14 KB: the page stays under 100 KB).
  // Nothing is fetched ahead when the reader asked to save data.
  function prefetchLessons() {
    var connection = navigator.connection;
    if (connection && connection.saveData) return;
    var done = {};
    function prefetch(href) {
      var url = new URL(href, window.location.href);
      if (url.origin !== window.location.origin || url.pathname === window.location.pathname) return;
      if (done[url.pathname]) return;
      done[url.pathname] = true;
      var link = document.createElement("link");
      link.rel = "prefetch";
      link.href = url.pathname;
      document.head.appendChild(link);
    }
    var next = document.querySelector("link[rel='next']");
    if (next) prefetch(next.getAttribute("href"));
    function ahead(evt) {
      var link = evt.target.closest && evt.target.closest("a[href^='/licoes/']");
      if (link) prefetch(link.getAttribute("href"));
    }
    document.addEventListener("pointerover", ahead, { passive: true });
    document.addEventListener("focusin", ahead);
  }

  function find(elt, selector) {
    return elt.matches && elt.matches(selector) ? elt : elt.querySelector && elt.querySelector(selector);
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (TEMPORAL) rememberTimeZone(); else later(rememberTimeZone);
    // Listeners and a few attributes: nothing here reads the layout, so this stays a few
    // milliseconds even while the lesson is still being laid out.
    enhanceThemeSwitch();
    enhanceOrdering(document);
    reachableHeader();
    backToTop();
    phoneMenu();
    searchFromAnywhere();
    searchToggle();
    // Marking the searched words walks the whole lesson and scrolls: after the first frame.
    window.requestAnimationFrame(function () { window.setTimeout(markSearchedWords, 0); });
    // These measure the laid-out page (forced layout) or only matter once the reader scrolls.
    // One idle task each, so none of them blocks the main thread for long; the section listeners
    // are set up before followSections fires its first event.
    later(function () { trackPlace(); followInRail(); followSections(); });
    later(function () { revealCurrent(document); });
    later(function () { addCopyButtons(document); });
    later(prefetchLessons);
    // Plain listeners: htmx may arrive later (a lesson loads it on the first interaction).
    // After a swap: announce the new content and move focus to its heading, except while the
    // learner is typing (live search), where focus stays in the box and only the announcement plays.
    document.body.addEventListener("htmx:afterSettle", function (evt) {
      var elt = evt.target;
      if (!elt || elt === document.body) return;
      revealCurrent(elt.parentNode || elt);
      addCopyButtons(elt);
      enhanceOrdering(elt.parentNode || elt);
      var config = evt.detail && evt.detail.requestConfig;
      var typing = config && config.triggeringEvent && config.triggeringEvent.type === "input";
      var target = find(elt, "[data-focus]");
      if (target && !typing) {
        target.focus();
        // Focus scrolls only a target out of the window: one under the header (the sticky
        // bar, or the phone's bar come back) is brought below it, its question from the top.
        var block = target.closest(".question") || target;
        var header = document.querySelector(".site-header");
        var below = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
        if (block.getBoundingClientRect().top < below) block.scrollIntoView({ block: "start" });
      }
      var news = find(elt, "[data-announce]");
      if (news) announce(news.getAttribute("data-announce"));
    });
    document.body.addEventListener("htmx:responseError", function (evt) {
      var xhr = evt.detail.xhr;
      var doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
      var text = (doc.body && doc.body.textContent || "").trim();
      showError(text || message("send-error").replace("{status}", xhr.status));
    });
    document.body.addEventListener("htmx:sendError", function () {
      showError(message("offline"));
    });
  });
})();
