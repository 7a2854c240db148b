// The Live page: the box's changes arrive as Server-Sent Events carrying the page's new
// content; the Café clock counts down between them from the wall time the server gave.
(function () {
  "use strict";
  var live = document.getElementById("live");
  var link = document.getElementById("link");
  var offset = 0;  // the server's clock minus this phone's, in seconds

  function tick() {
    var clock = document.getElementById("clock");
    if (!clock || !clock.dataset.ends) return;
    var left = Number(clock.dataset.ends) - (Date.now() / 1000 + offset);
    var whole = Math.max(0, Math.ceil(left - 1e-9));
    clock.textContent = Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
    clock.classList.toggle("low", whole <= 30);
  }

  function adopt() {
    var clock = document.getElementById("clock");
    if (clock && clock.dataset.now) offset = Number(clock.dataset.now) - Date.now() / 1000;
    tick();
  }

  adopt();
  setInterval(tick, 200);
  var source = new EventSource("/events");
  source.addEventListener("live", function (event) {
    live.innerHTML = JSON.parse(event.data).html;
    adopt();
  });
  source.onopen = function () { link.textContent = "Updates as the box plays."; };
  source.onerror = function () { link.textContent = "Reconnecting to the box…"; };
})();
