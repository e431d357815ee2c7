// The camera picture with the recognition drawn over it, about once a second. Until a frame exists the
// page says so instead of showing a broken image.
(function () {
  "use strict";
  var img = document.getElementById("camera-img");
  var none = document.getElementById("no-frame");
  if (!img) { return; }
  var base = img.dataset.src;
  var next = new Image();
  next.onload = function () { img.src = next.src; img.hidden = false; if (none) { none.hidden = true; } };
  setInterval(function () { next.src = base + "?t=" + Date.now(); }, 1000);
}());
