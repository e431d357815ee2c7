// Live dashboard: every server-sent "state" event carries the re-rendered panels; swap them in.
(function () {
  "use strict";
  var dash = document.getElementById("dash");
  var status = document.getElementById("live-state");
  if (!dash || !window.EventSource) { return; }
  var source = new EventSource("/events");
  source.addEventListener("state", function (ev) {
    var data;
    try { data = JSON.parse(ev.data); } catch (e) { return; }
    if (!data.html) { return; }
    if (Number(data.version) < Number(dash.dataset.version || 0)) { return; }  // an older update, late
    if (String(data.game) !== String(dash.dataset.game || data.game)) { window.location.reload(); return; }
    dash.dataset.game = data.game;
    Object.keys(data.html).forEach(function (name) {
      var panel = dash.querySelector('[data-panel="' + name + '"]');
      if (panel) { panel.innerHTML = data.html[name]; }
    });
    dash.dataset.version = data.version;
    // undo and correction name the log they were made on; keep that current with each update
    document.querySelectorAll('input[name="event"]').forEach(function (i) { i.value = data.last_move == null ? "" : data.last_move; });
    document.querySelectorAll('input[name="after"]').forEach(function (i) { i.value = data.events == null ? "" : data.events; });
    if (status) { status.textContent = "live · update " + data.version; }
  });
  source.onopen = function () { if (status) { status.textContent = "live"; } };
  source.onerror = function () { if (status) { status.textContent = "reconnecting…"; } };
}());
