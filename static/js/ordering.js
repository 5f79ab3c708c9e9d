// Ordering questions: the form posts one position select per step (that is all it needs
// without JavaScript). Here the steps also move by drag and drop and by Move up/down buttons;
// after every move each select takes its step's new position, so the post is the same.
// Hook: data-ordering on the list of steps (its data-msg-moved is the announcement).
(function () {
  "use strict";
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
    curso.announce(text);
  }

  // Set up when the browser is idle: the questions are far from a lesson's first screen, and
  // showing the buttons and numbering the selects restyles every step (a long task on a phone
  // at start-up, Lighthouse's blocking time). Until then the list is the form without
  // JavaScript, which works.
  curso.onLoad("[data-ordering]", function (list) {
    curso.later(function () { if (list.isConnected) enhance(list); });
  });

  function enhance(list) {
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
  }
})();
