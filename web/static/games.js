// The pages of the games kept by hand (web/games_routes.py). Every entry is one JSON event posted with the
// table PIN and the CSRF token; the answer and the server-sent events carry the re-rendered panels, which
// are swapped in without a reload. A panel with a field being typed in waits until the field is left.
(function () {
  "use strict";
  var root = document.getElementById("game");
  if (!root) { return; }
  var gameId = String(root.dataset.game);
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var pinInput = document.getElementById("table-pin");
  var msg = document.getElementById("game-msg");
  var liveState = document.getElementById("live-state");
  var waiting = {};  // panel name -> html held back while a field in it has the focus

  var pinLabel = document.getElementById("pin-label");

  function say(text, bad) {
    if (!msg) { return; }
    msg.textContent = text;
    msg.classList.toggle("g-bad", Boolean(bad));
  }

  // A form somebody has typed in is "dirty" until it is sent: while the focus is in it (a field, or its
  // button between press and click) its panel waits; when the panel is swapped, typed values are kept.
  function typingIn(panel) {
    var el = document.activeElement;
    if (!el || !panel.contains(el)) { return false; }
    var form = el.closest("form.g-form");
    return el.matches("input:not([type=checkbox]), select, textarea") || Boolean(form && form.dataset.dirty);
  }

  function formKey(form) { return (form.dataset.type || "") + "|" + (form.dataset.fixed || ""); }

  function typed(panel) {
    var kept = {};
    panel.querySelectorAll("form.g-form[data-dirty]").forEach(function (form) {
      kept[formKey(form)] = Array.prototype.map.call(form.elements, function (el) {
        return el.type === "checkbox" ? el.checked : el.value;
      });
    });
    return kept;
  }

  function retype(panel, kept) {
    panel.querySelectorAll("form.g-form").forEach(function (form) {
      var values = kept[formKey(form)];
      if (!values || values.length !== form.elements.length) { return; }
      Array.prototype.forEach.call(form.elements, function (el, i) {
        if (el.type === "checkbox") { el.checked = values[i]; } else if (el.tagName !== "BUTTON") { el.value = values[i]; }
      });
      form.dataset.dirty = "1";
    });
  }

  function put(name, html) {
    var panel = root.querySelector('[data-panel="' + name + '"]');
    if (!panel) { return; }
    if (typingIn(panel)) { waiting[name] = html; return; }
    delete waiting[name];
    var kept = typed(panel);
    panel.innerHTML = html;
    retype(panel, kept);
  }

  root.addEventListener("input", function (e) {
    var form = e.target.closest("form.g-form");
    if (form) { form.dataset.dirty = "1"; }
  });

  function swap(data) {
    if (!data || !data.html) { return; }
    var sameEpoch = String(data.epoch || root.dataset.epoch) === String(root.dataset.epoch);
    if (sameEpoch && Number(data.version) < Number(root.dataset.version || 0)) { return; }  // late and older
    root.dataset.version = data.version;
    if (data.epoch) { root.dataset.epoch = data.epoch; }
    Object.keys(data.html).forEach(function (name) { put(name, data.html[name]); });
  }

  root.addEventListener("focusout", function () {
    window.setTimeout(function () {
      Object.keys(waiting).forEach(function (name) { put(name, waiting[name]); });
    }, 0);
  });

  // The PIN is asked once per phone session (as on the dashboard): it goes with the next change only, and
  // the server remembers that this phone gave it.
  function send(path, body, form) {
    var pin = pinInput ? pinInput.value.trim() : "";
    var headers = {"Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": csrf};
    if (pin) { headers["X-Table-Pin"] = pin; }
    say("Sending…", false);
    fetch(path, {method: "POST", credentials: "same-origin", body: JSON.stringify(body), headers: headers})
      .then(function (r) { return r.json().then(function (d) { return {ok: r.ok, status: r.status, d: d}; }); })
      .then(function (res) {
        if (!res.ok) {
          say(res.d.error || "Refused.", true);
          if (res.status === 403 && pinLabel) { pinLabel.hidden = false; if (pinInput) { pinInput.focus(); } }
          return;
        }
        if (form) { delete form.dataset.dirty; }  // sent: the answer's panel shows what was entered
        if (pinInput) { pinInput.value = ""; }
        if (pinLabel) { pinLabel.hidden = true; }
        say(res.d.message, false);
        if (document.activeElement && root.contains(document.activeElement)) { document.activeElement.blur(); }
        swap({version: res.d.version, epoch: res.d.epoch, html: res.d.html});
      })
      .catch(function () { say("No answer from the table; is the companion running?", true); });
  }

  function setPath(obj, dotted, value, list) {
    var keys = dotted.split(".");
    var last = keys.pop();
    keys.forEach(function (k) { obj = obj[k] = obj[k] || {}; });
    if (list) { obj[last] = obj[last] || []; if (value !== undefined) { obj[last].push(value); } }
    else { obj[last] = value; }
  }

  function numberOf(el) { return el.value.trim() === "" ? null : Number(el.value); }

  function formEvent(form, submitter) {
    var ev = {type: form.dataset.type};
    if (form.dataset.fixed) { Object.assign(ev, JSON.parse(form.dataset.fixed)); }
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.disabled || el.tagName === "BUTTON" || el.tagName === "FIELDSET") { return; }
      var list = el.name.slice(-2) === "[]";
      var name = list ? el.name.slice(0, -2) : el.name;
      if (el.type === "checkbox") {
        if (list) { setPath(ev, name, el.checked ? Number(el.value) : undefined, true); }
        else { setPath(ev, name, el.checked, false); }
      } else if (el.type === "number" || el.hasAttribute("data-number")) {
        setPath(ev, name, numberOf(el), list);
      } else {
        setPath(ev, name, el.value, list);
      }
    });
    if (submitter && submitter.name) { ev[submitter.name] = submitter.value; }
    return ev;
  }

  root.addEventListener("submit", function (e) {
    var form = e.target.closest("form.g-form");
    if (!form) { return; }
    e.preventDefault();
    send(root.dataset.post, formEvent(form, e.submitter), form);
  });

  root.addEventListener("click", function (e) {
    var button = e.target.closest("button[data-event]");
    if (button) {
      e.preventDefault();
      if (button.dataset.confirm && !window.confirm(button.dataset.confirm)) { return; }
      send(root.dataset.post, JSON.parse(button.dataset.event));
      return;
    }
    if (e.target.closest("#undo")) { send(root.dataset.undo, {}); }
  });

  if (root.dataset.live !== "1" || !window.EventSource) { return; }
  var source = new EventSource("/play/events");
  source.addEventListener("state", function (ev) {
    var data;
    try { data = JSON.parse(ev.data); } catch (err) { return; }
    if (String(data.game) !== gameId) { window.location.href = "/"; return; }  // the table started another game
    swap(data);
    if (liveState) { liveState.textContent = "live · update " + data.version; }
  });
  source.onopen = function () { if (liveState) { liveState.textContent = "live"; } };
  source.onerror = function () { if (liveState) { liveState.textContent = "reconnecting…"; } };
}());
