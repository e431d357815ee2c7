// Refresh the camera picture about once a second (a new JPEG with the recognition drawn over it).
(function () {
  "use strict";
  var img = document.getElementById("camera-img");
  if (!img) { return; }
  var base = img.getAttribute("src");
  setInterval(function () { img.src = base + "?t=" + Date.now(); }, 1000);
}());
