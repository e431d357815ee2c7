// The teaching form sent without leaving the page: the photo goes as multipart form data, the answer (which
// seats were taught, which cells the camera misread before and after) shows in the form.
(function () {
  "use strict";
  var form = document.getElementById("teach-form");
  if (!form) { return; }
  var csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  var slot = document.getElementById("teach-msg");

  function show(text, isError) {
    slot.textContent = text;
    slot.classList.toggle("error", !!isError);
  }

  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var data = new FormData(form);
    var button = ev.submitter;
    if (button && button.name) { data.set(button.name, button.value); }
    var headers = {"Accept": "application/json", "X-CSRF-Token": csrf};
    var pinInput = document.getElementById("pin-input");
    if (pinInput && pinInput.value.trim()) { headers["X-Table-Pin"] = pinInput.value.trim(); }
    var buttons = Array.prototype.slice.call(form.querySelectorAll("button"));
    var wasDisabled = buttons.map(function (b) { return b.disabled; });
    buttons.forEach(function (b) { b.disabled = true; });
    show("…", false);
    fetch(form.getAttribute("action"), {method: "POST", headers: headers, credentials: "same-origin", body: data})
      .then(function (response) {
        return response.json().catch(function () {
          return {error: response.status === 413 ? "The photo is too large." : response.statusText};
        }).then(function (body) { return {status: response.status, body: body}; });
      })
      .then(function (answer) {
        if (answer.status < 300 && answer.body.ok) {
          show(answer.body.message, false);
          if (pinInput) { pinInput.value = ""; }
          if (answer.body.pin_ok) { var bar = document.getElementById("pin-bar"); if (bar) { bar.hidden = true; } }
          return;
        }
        show((answer.body && answer.body.error) || ("HTTP " + answer.status), true);
        if (answer.status === 403 && pinInput) { document.getElementById("pin-bar").hidden = false; pinInput.focus(); }
      })
      .catch(function () { show("The table could not be reached; try again.", true); })
      .then(function () { buttons.forEach(function (b, i) { b.disabled = wasDisabled[i]; }); });
  });
}());
