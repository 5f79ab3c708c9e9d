// Decision trees without the server (issue 40, item 2). Online, a step is the server's
// (htmx posts it, the server draws the widget and stores a finished walk). When the server
// cannot be reached (the browser is offline, or htmx's request found no network), the step,
// "Voltar um passo" and "Recomeçar" are worked out here from the tree's data in the page
// (<script type="application/json" data-tree-data>, app/learning/trees.py: offline_tree) and
// drawn as _tree_widget.html draws them: the same elements, classes and texts, focus on the
// new heading, its data-announce read, the address pushed, Back walking back. A page opened
// again offline at a walk's address (the device's copy shows the start) is drawn at that walk.
// A walk finished here is kept on the device (static/js/offline-answers.js, keepWalk) and sent
// when the connection returns as the step that finished it, which the server checks against the
// tree and stores as it stores a walk finished online: once, by the key the finishing step
// carries (chave, also online, so a step whose answer was lost is not stored twice).
(function () {
  "use strict";
  var SLOT = "__c__";
  var trees = {}; // widget id → its data
  var chosen = null; // the option last sent: [form, value]

  var esc = curso.esc, fill = curso.fill;

  // The text of some HTML, as app/content/markdown.py's plain_text gives it (read inert).
  function plain(html) {
    var box = document.createElement("template");
    box.innerHTML = html;
    return box.content.textContent.replace(/\s+/g, " ").trim();
  }

  function split(raw) { return (raw || "").split(",").filter(Boolean); }

  // The walk after values: steps [question id, option index], then the question or result
  // reached; null when a value is no option of its question (the server restarts then).
  function walk(data, values) {
    var steps = [], node = data.s;
    for (var i = 0; i < values.length; i++) {
      var question = data.q[node];
      if (!question) return null;
      var index = question[2].findIndex(function (option) { return option[1] === values[i]; });
      if (index < 0) return null;
      steps.push([node, index]);
      node = question[2][index][2];
    }
    return { steps: steps, node: node, values: values };
  }

  function url(template, values) {
    return template.split(SLOT).join(encodeURIComponent(values.join(",")));
  }

  function pageUrl(data, values) { return values.length ? url(data.u[1], values) : data.u[0]; }

  function control(data, values, text) {
    var page = esc(pageUrl(data, values));
    return '<a class="button-secondary" href="' + page + '" hx-get="' + esc(url(data.u[2], values)) +
      '" hx-target="closest .tree-widget" hx-swap="outerHTML" hx-push-url="' + page + '">' + esc(text) + "</a>";
  }

  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["x-csrftoken"] || ""; } catch (e) { return ""; }
  }

  // The inside of .tree-walk, as _tree_widget.html writes it.
  function walkHtml(data, tid, sub, at) {
    var m = data.m, html = "";
    if (at.steps.length) {
      html += '<ol class="tree-path" aria-label="' + esc(m.path) + '">' + at.steps.map(function (step) {
        var question = data.q[step[0]];
        return '<li><span class="tree-path-facet">' + esc(question[0]) + ":</span> " + question[2][step[1]][0] + "</li>";
      }).join("") + "</ol>";
    }
    var question = data.q[at.node], result = data.r[at.node];
    if (question) {
      var number = String(at.steps.length + 1), action = esc(data.u[3]);
      html += '<form class="tree-step" method="post" action="' + action + '" hx-post="' + action +
        '" hx-target="closest .tree-widget" hx-swap="outerHTML" hx-disabled-elt="find .tree-options button" hx-sync="this:drop">' +
        '<input type="hidden" name="csrftoken" value="' + esc(csrf()) + '">' +
        '<input type="hidden" name="c" value="' + esc(at.values.join(",")) + '">' +
        '<input type="hidden" name="licao" value="' + esc(data.u[4]) + '">' +
        '<input type="hidden" name="versao" value="' + esc(data.u[5]) + '">' +
        '<fieldset id="' + tid + "-passo-" + at.steps.length + '" class="tree-question enter"><legend>' +
        "<" + sub + ' class="tree-question-heading" tabindex="-1" data-focus data-announce="' +
        esc(fill(m.ask, { n: number, text: plain(question[1]) })) + '">' +
        '<span class="tree-step-count">' + esc(fill(m.step, { n: number })) + "</span>" +
        '<span class="tree-question-text">' + question[1] + "</span></" + sub + "></legend>" +
        '<div class="tree-options">' + question[2].map(function (option) {
          return '<button type="submit" name="escolha" value="' + esc(option[1]) + '" class="tree-option">' + option[0] + "</button>";
        }).join("") + "</div></fieldset></form>";
    } else {
      var also = result[1].join(", ");
      var news = fill(also ? m.newsAlso : m.news, { main: result[0], also: also, verdict: result[3] });
      html += '<div id="' + tid + '-resultado" class="tree-result verdict-' + result[2] + ' enter">' +
        '<p class="eyebrow">' + esc(m.result) + "</p>" +
        "<" + sub + ' class="tree-result-engines" tabindex="-1" data-focus data-announce="' + esc(news) + '">' + esc(result[0]) + "</" + sub + ">" +
        (also ? '<p class="tree-also">' + esc(fill(m.also, { also: also })) + "</p>" : "") +
        '<p class="tree-verdict"><span class="verdict-badge verdict-badge-' + result[2] +
        '"><span class="verdict-icon" aria-hidden="true"></span>' + esc(result[3]) + "</span></p>" +
        '<div class="tree-why">' + result[4] + "</div>" +
        (result[5] ? '<aside class="callout callout-tip" role="note" aria-label="' + esc(m.other) +
          '"><p class="callout-title">' + esc(m.other) + "</p>" + result[5] + "</aside>" : "") + "</div>";
    }
    if (at.steps.length) {
      html += '<nav class="tree-controls" aria-label="' + esc(m.controls) + '">' +
        control(data, at.values.slice(0, -1), "← " + m.back) + control(data, [], "↺ " + m.again) + "</nav>";
    }
    return html;
  }

  // The map's classes and description at this point of the walk, as app/learning/trees.py's
  // tree_map gives them.
  function drawMap(widget, data, tid, at) {
    var visited = {}, taken = {}, latest = "";
    at.steps.forEach(function (step) { visited[step[0]] = true; taken[step[0] + "-" + step[1]] = true; });
    if (at.steps.length) latest = at.steps[at.steps.length - 1].join("-");
    visited[at.node] = true;
    function each(kind, work) {
      widget.querySelectorAll('[id^="' + tid + "-" + kind + '-"]').forEach(function (el) {
        work(el, el.id.slice(tid.length + kind.length + 2));
      });
    }
    each("n", function (box, id) {
      var kept = box.getAttribute("class").split(" ").filter(function (name) { return name !== "visited" && name !== "current"; });
      var verdict = kept.filter(function (name) { return name.indexOf("verdict-") === 0; });
      box.setAttribute("class", kept.slice(0, 2).concat(visited[id] ? ["visited"] : [], id === at.node ? ["current"] : [], verdict).join(" "));
    });
    each("e", function (edge, id) {
      edge.setAttribute("class", ["tree-edge"].concat(taken[id] ? ["taken"] : [], id === latest ? ["latest"] : []).join(" "));
    });
    each("r", function (row, id) { row.setAttribute("class", "tree-row" + (taken[id] ? " taken" : "")); });
    var desc = widget.querySelector("#" + tid + "-mapa-d");
    if (desc) {
      var labels = at.steps.map(function (step) { return plain(data.q[step[0]][2][step[1]][0]); });
      desc.textContent = data.n + " " + (labels.length ? fill(data.m.mapPath, { path: labels.join(" → ") }) : data.m.mapStart);
    }
  }

  // Put the widget at the walk after values in place of the one on the page; false when the
  // values do not lead through the tree. moved: the learner did it (focus and announce).
  function show(widget, values, moved) {
    var data = trees[widget.id], at = data && walk(data, values);
    if (!at) return false;
    var heading = widget.querySelector("#" + widget.id + "-titulo");
    var sub = "h" + (Number(heading.tagName.slice(1)) + 1);
    var fresh = widget.cloneNode(true);
    fresh.setAttribute("data-c", values.join(","));
    fresh.querySelector(".tree-walk").innerHTML = walkHtml(data, widget.id, sub, at);
    drawMap(fresh, data, widget.id, at);
    widget.replaceWith(fresh);
    if (window.htmx) window.htmx.process(fresh);
    curso.loaded(fresh);
    if (moved) curso.arrived(fresh, false);
    return true;
  }

  function step(widget, values) {
    var before = widget.getAttribute("data-c") || "";
    if (!show(widget, values, true)) return;
    // The entry the walk starts from remembers where the widget was, for Back.
    if (!(history.state && history.state.cursoTree)) history.replaceState({ cursoTree: widget.id, c: before }, "");
    history.pushState({ cursoTree: widget.id, c: values.join(",") }, "", pageUrl(trees[widget.id], values));
  }

  function finishes(widget, values) {
    var data = trees[widget.id], at = data && walk(data, values);
    return !!(at && data.r[at.node]);
  }

  // The step that finishes a walk carries a key of its own (chave): the server stores the walk
  // once however often it arrives, so a step whose answer the network lost (the server may have
  // stored it) can be kept and sent again. Set before htmx reads the form.
  function keyed(form) {
    var input = form.querySelector('input[name="chave"]');
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = "chave";
      form.appendChild(input);
    }
    input.value = window.crypto && crypto.randomUUID ? crypto.randomUUID()
      : String(Date.now()) + "-" + Math.random().toString(36).slice(2);
    return input.value;
  }

  // A step the learner took here (a form's option, not Back or an address) that reached a
  // result: the walk is kept, to be sent as that last step with the form's key.
  function answered(widget, form, values) {
    var data = trees[widget.id], input = form.querySelector('input[name="chave"]');
    if (!finishes(widget, values) || !input || !window.cursoOfflineAnswers) return;
    var heading = widget.querySelector("#" + widget.id + "-titulo");
    window.cursoOfflineAnswers.keepWalk({
      key: input.value,
      url: new URL(data.u[3], location.href).pathname,
      fields: [["c", values.slice(0, -1).join(",")], ["escolha", values[values.length - 1]],
        ["licao", data.u[4]], ["versao", data.u[5]]],
      title: heading ? heading.textContent.replace(/\s+/g, " ").trim() : "",
      anchor: widget.id
    });
  }

  function widgetOf(el) {
    var widget = el && el.closest && el.closest(".tree-widget");
    return widget && trees[widget.id] ? widget : null;
  }

  function formValues(form, value) {
    return split(form.querySelector('input[name="c"]').value).concat([value]);
  }

  // Capture, before htmx and the other listeners: offline, the step is taken here.
  document.addEventListener("submit", function (evt) {
    var form = evt.target, widget = form.matches(".tree-step") && widgetOf(form);
    if (!widget || !evt.submitter || !evt.submitter.value) return;
    chosen = [form, evt.submitter.value];
    var values = formValues(form, evt.submitter.value);
    if (finishes(widget, values)) keyed(form);
    if (navigator.onLine) return;
    evt.preventDefault();
    evt.stopImmediatePropagation();
    step(widget, values);
    answered(widget, form, values);
  }, true);

  document.addEventListener("click", function (evt) {
    var link = evt.target.closest && evt.target.closest(".tree-controls a[href]");
    var widget = link && widgetOf(link);
    if (!widget || navigator.onLine || evt.button !== 0) return;
    evt.preventDefault();
    evt.stopImmediatePropagation();
    step(widget, split(new URL(link.href).searchParams.get("c")));
  }, true);

  // The browser said it was online, but the request found no network: the step is taken
  // here, and static/js/swap-a11y.js (listening on the body) does not say it failed.
  document.addEventListener("htmx:sendError", function (evt) {
    var elt = evt.detail && evt.detail.elt, widget = widgetOf(elt);
    if (!widget) return;
    if (elt.matches("form") && chosen && chosen[0] === elt) {
      var values = formValues(elt, chosen[1]);
      step(widget, values);
      answered(widget, elt, values);
    } else if (elt.matches("a[href]")) step(widget, split(new URL(elt.href).searchParams.get("c")));
    else return;
    evt.stopPropagation();
  }, true);

  window.addEventListener("popstate", function (evt) {
    var state = evt.state, widget = state && state.cursoTree && document.getElementById(state.cursoTree);
    if (widget && trees[widget.id]) show(widget, split(state.c), true);
  });

  curso.onLoad("[data-tree-data]", function (island) {
    var id = island.id.replace(/-dados$/, ""), widget = document.getElementById(id);
    try { trees[id] = JSON.parse(island.textContent); } catch (e) { return; }
    if (!widget) return;
    // The address names a walk the page does not show (a copy kept on the device): draw it.
    var query = new URLSearchParams(location.search);
    var mine = trees[id].u[4] ? query.get("arvore") === id.replace(/^arvore-/, "") : true;
    var wanted = query.get("c") || "";
    if (mine && wanted !== (widget.getAttribute("data-c") || "")) show(widget, split(wanted), false);
  });
})();
