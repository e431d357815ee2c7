// The live table. Every server-sent "state" event carries all panels re-rendered from the game as it is
// now (forms included); they are swapped in, keeping what a player is typing in a form that still applies.
// Changes go through fetch with JSON answers: errors appear in the form, which keeps what was typed.
(function () {
  "use strict";
  var dash = document.getElementById("dash");
  var liveState = document.getElementById("live-state");
  var csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  var drawing = {key: null, cells: {}, armed: false};  // the move being tapped in, survives panel swaps

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }

  // -- answers ------------------------------------------------------------------------------------
  function say(text, isError) {
    var flash = document.getElementById("flash");
    if (!flash) { return; }
    flash.innerHTML = "";
    var p = document.createElement("p");
    p.textContent = text;
    if (isError) { p.className = "error"; }
    flash.appendChild(p);
  }

  function formMessage(form, text, isError) {
    var slot = $(".form-msg", form);
    if (slot) { slot.textContent = text; slot.classList.toggle("error", !!isError); }
  }

  function formJSON(form) {
    var data = {};
    new FormData(form).forEach(function (value, name) {
      if (name === "pin" || name === "csrf_token") { return; }
      if (name === "place") { try { value = JSON.parse(value); } catch (e) { /* typed text */ } }
      data[name] = value;
    });
    return data;
  }

  function submit(form) {
    // the PIN typed in the form itself (the picker's dialog covers the page), else in the page's PIN bar
    var own = $(".pin-field:not([hidden]) input[name=pin]", form);
    var pinInput = own && own.value.trim() ? own : document.getElementById("pin-input");
    var headers = {"Accept": "application/json", "Content-Type": "application/json", "X-CSRF-Token": csrf};
    if (pinInput && pinInput.value.trim()) { headers["X-Table-Pin"] = pinInput.value.trim(); }
    var button = $("button[type=submit], button:not([type])", form);
    if (button) { button.disabled = true; }
    formMessage(form, "…", false);
    return fetch(form.getAttribute("action"), {method: "POST", headers: headers, credentials: "same-origin",
                                               body: JSON.stringify(formJSON(form))})
      .then(function (response) {
        return response.json().catch(function () { return {error: response.statusText}; })
          .then(function (body) { return {status: response.status, body: body}; });
      })
      .then(function (answer) {
        if (button) { button.disabled = false; }
        if (answer.status < 300 && answer.body.ok) {
          if (pinInput) { pinInput.value = ""; }
          if (answer.body.pin_ok) {
            $all("#pin-bar, .pin-field").forEach(function (el) { el.hidden = true; $all("input", el).forEach(function (i) { i.value = ""; }); });
          }
          formMessage(form, answer.body.message, false);
          say(answer.body.message, false);
          delete form.dataset.dirty;
          if (form.id === "move-form") { drawing.cells = {}; drawing.armed = false; }
          var dialog = form.closest("dialog");
          if (dialog && dialog.open) { dialog.close(); }
          var next = answer.body.redirect || (form.id === "setup-form" && answer.body.page);
          if (next) { window.location.href = next; }
          return;
        }
        var message = (answer.body && answer.body.error) || ("HTTP " + answer.status);
        formMessage(form, message, true);
        if (answer.status === 403 || answer.status === 429) {
          if (answer.status === 403 && /PIN/.test(message)) {
            var field = $(".pin-field", form) || document.getElementById("pin-bar");
            if (field) { field.hidden = false; $("input", field).focus(); }
          }
        }
      })
      .catch(function () {
        if (button) { button.disabled = false; }
        formMessage(form, "The companion cannot be reached; check the Wi-Fi and try again.", true);
      });
  }

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.classList || !form.classList.contains("js-form")) { return; }
    ev.preventDefault();
    submit(form);
  });
  document.addEventListener("input", function (ev) {
    var form = ev.target.form;
    if (form && form.classList.contains("js-form")) { form.dataset.dirty = "1"; }
  });
  document.addEventListener("change", function (ev) {
    var form = ev.target.form;
    if (form && form.classList.contains("js-form")) { form.dataset.dirty = "1"; }
  });

  // -- keeping typed values across live updates --------------------------------------------------------
  function saveForms(panel) {
    return $all("form[id]", panel).map(function (form) {
      var fields = $all("input, select, textarea", form).filter(function (el) { return el.name && el.type !== "hidden"; })
        .map(function (el) { return {name: el.name, value: el.value, checked: el.checked, type: el.type}; });
      var active = document.activeElement && form.contains(document.activeElement) ? document.activeElement.name : null;
      return {id: form.id, key: form.dataset.key, dirty: form.dataset.dirty, fields: fields, active: active,
              message: ($(".form-msg", form) || {}).textContent || "",
              open: $all("details", form).map(function (d) { return d.open; })};
    });
  }

  function restoreForms(saved) {
    saved.forEach(function (s) {
      var form = document.getElementById(s.id);
      if (!form || form.dataset.key !== s.key) { return; }  // another turn: the fresh form applies
      if (s.message) { formMessage(form, s.message, /error/.test(($(".form-msg", form) || {}).className)); }
      $all("details", form).forEach(function (d, i) { if (s.open[i]) { d.open = true; } });
      if (!s.dirty) { return; }
      form.dataset.dirty = s.dirty;
      s.fields.forEach(function (f) {
        $all("[name=\"" + f.name + "\"]", form).forEach(function (el) {
          if (el.type === "radio" || el.type === "checkbox") {
            if (el.value === f.value) { el.checked = f.checked; }
          } else { el.value = f.value; }
        });
      });
      if (s.active) { var el = form.elements[s.active]; if (el && el.focus) { el.focus(); } }
    });
  }

  // -- drawing a move by tapping cells ---------------------------------------------------------------
  function moveForm() { return document.getElementById("move-form"); }

  function showDrawing() {
    var form = moveForm();
    if (!form) { return; }
    if (drawing.key !== form.dataset.key) { drawing = {key: form.dataset.key, cells: {}, armed: false}; }
    var place = Object.keys(drawing.cells).sort().map(function (c) { return {cell: c, item: drawing.cells[c].item}; });
    form.elements.place.value = JSON.stringify(place);
    var list = $(".drawn", form);
    list.innerHTML = "";
    if (!place.length) { list.textContent = list.dataset.empty; }
    Object.keys(drawing.cells).sort().forEach(function (c) {
      var chip = document.createElement("button");
      chip.type = "button";
      chip.className = "chip-cell";
      chip.dataset.cell = c;
      chip.textContent = c + " " + drawing.cells[c].glyph + " ✕";
      list.appendChild(chip);
    });
    var arm = $(".arm", form);
    if (arm) { arm.setAttribute("aria-pressed", drawing.armed ? "true" : "false");
               arm.textContent = drawing.armed ? arm.dataset.on : arm.dataset.off; }
    document.body.classList.toggle("drawing", drawing.armed);
    $all("svg.city g.cell.m-tapped").forEach(function (g) { g.classList.remove("m-tapped"); });
    var player = form.elements.player.value;
    var svg = $('svg.city[data-player="' + player + '"]');
    if (svg) {
      Object.keys(drawing.cells).forEach(function (c) {
        var g = $('g.cell[data-cell="' + c + '"]', svg);
        if (g) { g.classList.add("m-tapped"); }
      });
    }
  }

  function openPicker(svg, cell) {
    var dialog = document.getElementById("picker");
    if (!dialog) { return; }
    var form = $("form", dialog);
    form.elements.player.value = svg.dataset.player;
    form.elements.cell.value = cell.dataset.cell;
    var title = document.getElementById("picker-title");
    title.textContent = title.dataset.template.replace("{cell}", cell.dataset.cell).replace("{name}", svg.dataset.name);
    $all('input[name="item"]', form).forEach(function (r) { r.checked = r.value === cell.dataset.item; });
    form.elements.remember.checked = false;
    formMessage(form, "", false);
    if (dialog.showModal) { dialog.showModal(); } else { dialog.setAttribute("open", ""); }
  }

  function tapCell(cell) {
    var svg = cell.closest("svg.city");
    if (!svg || !svg.classList.contains("tappable") || cell.classList.contains("tower")) { return; }
    var form = moveForm();
    if (form && drawing.armed && svg.dataset.player === form.elements.player.value) {
      var name = cell.dataset.cell;
      var chosen = $('input[name="draw"]:checked', form);
      if (drawing.cells[name]) { delete drawing.cells[name]; }
      else if (chosen) {
        drawing.cells[name] = {item: chosen.value, glyph: $(".chip", chosen.parentNode).textContent};
      }
      form.dataset.dirty = "1";
      showDrawing();
      return;
    }
    openPicker(svg, cell);
  }

  document.addEventListener("click", function (ev) {
    var cell = ev.target.closest && ev.target.closest("svg.city g.cell");
    if (cell) { tapCell(cell); return; }
    var chip = ev.target.closest && ev.target.closest(".chip-cell");
    if (chip) { delete drawing.cells[chip.dataset.cell]; showDrawing(); return; }
    var arm = ev.target.closest && ev.target.closest("#move-form .arm");
    if (arm) { drawing.armed = !drawing.armed; showDrawing(); return; }
    if (ev.target.closest && ev.target.closest("[data-close]")) {
      var dialog = ev.target.closest("dialog");
      if (dialog) { dialog.close(); }
    }
  });
  document.addEventListener("keydown", function (ev) {
    if ((ev.key === "Enter" || ev.key === " ") && ev.target.matches && ev.target.matches("svg.city g.cell")) {
      ev.preventDefault();
      tapCell(ev.target);
    }
  });
  document.addEventListener("change", function (ev) {
    if (ev.target.name === "draw" && moveForm() && moveForm().contains(ev.target)) { drawing.armed = true; showDrawing(); }
  });

  // -- the New game page speaks the language being chosen (while no name is typed yet) -------------------
  var languageSelect = document.getElementById("language-select");
  if (languageSelect) {
    languageSelect.addEventListener("change", function () {
      var typed = $all('#setup-form input[name^="player"]').some(function (i) { return i.value.trim(); });
      if (!typed) { window.location.search = "?lang=" + encodeURIComponent(languageSelect.value); }
    });
  }

  // -- live updates ----------------------------------------------------------------------------------------
  if (!dash) { return; }
  showDrawing();
  if (!window.EventSource) { return; }
  var source = new EventSource("/events");
  source.addEventListener("state", function (ev) {
    var data;
    try { data = JSON.parse(ev.data); } catch (e) { return; }
    if (!data.html) { return; }
    var sameRun = data.epoch === dash.dataset.epoch;
    // within one run of the server an older version is a late update; a new epoch is a restarted server
    if (sameRun && Number(data.version) <= Number(dash.dataset.version || 0)) { return; }
    if (String(data.game) !== String(dash.dataset.game) || (data.lang && data.lang !== document.documentElement.lang)) {
      window.location.reload();
      return;
    }
    Object.keys(data.html).forEach(function (name) {
      var panel = dash.querySelector('[data-panel="' + name + '"]');
      if (!panel) { return; }
      var saved = saveForms(panel);
      panel.innerHTML = data.html[name];
      restoreForms(saved);
    });
    dash.dataset.version = data.version;
    // undo and correction name the log they were made on; keep that current with each update
    document.querySelectorAll('input[name="event"]').forEach(function (i) { i.value = data.last_move == null ? "" : data.last_move; });
    document.querySelectorAll('input[name="after"]').forEach(function (i) { i.value = data.events == null ? "" : data.events; });
    dash.dataset.epoch = data.epoch;
    showDrawing();
    if (liveState) { liveState.textContent = liveState.dataset.live + " · " + data.version; }
  });
  source.onopen = function () { if (liveState) { liveState.textContent = liveState.dataset.live; } };
  source.onerror = function () { if (liveState) { liveState.textContent = liveState.dataset.reconnecting; } };
}());
