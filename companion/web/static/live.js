// The Live page and the table view: the box's changes arrive as Server-Sent Events carrying
// the page's new part; the Café clock counts down between them from the wall time the server
// gave. A game in progress keeps the screen awake (Screen Wake Lock, where the browser has
// it); at the Café's TIME'S UP the page flashes and the phone vibrates (where it may). The
// live region says what the part's data-announce says when it changes: turns, never the clock.
(function () {
  "use strict";
  var live = document.getElementById("live");
  var link = document.getElementById("link");
  var announce = document.getElementById("announce");
  var offset = 0;       // the server's clock minus this device's, in seconds
  var lock = null;      // the screen wake lock held, if any
  var flashedFor = "";  // the round end already flashed for
  var said = null;

  function timesUp(ends) {
    if (flashedFor === ends) return;
    flashedFor = ends;
    document.body.classList.remove("timesup");
    void document.body.offsetWidth;   // restart the animation
    document.body.classList.add("timesup");
    if (navigator.vibrate) navigator.vibrate([400, 150, 400, 150, 800]);
    if (announce) announce.textContent = "Time's up!";
  }

  function tick() {
    var clock = document.getElementById("clock");
    if (!clock || !clock.dataset.ends) return;
    var left = Number(clock.dataset.ends) - (Date.now() / 1000 + offset);
    var whole = Math.max(0, Math.ceil(left - 1e-9));
    clock.textContent = Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
    clock.classList.toggle("low", whole <= 30);
    if (whole === 0) timesUp(clock.dataset.ends);
  }

  function keepAwake(playing) {
    if (!("wakeLock" in navigator)) return;
    if (playing && !lock && document.visibilityState === "visible") {
      navigator.wakeLock.request("screen").then(function (held) {
        lock = held;
        document.documentElement.dataset.awake = "1";
        held.addEventListener("release", function () {
          lock = null;
          delete document.documentElement.dataset.awake;
        });
      }, function () {});
    } else if (!playing && lock) {
      lock.release();
    }
  }

  function playing() {
    var part = live.querySelector("[data-status]");
    return !!part && part.dataset.status === "playing";
  }

  function adopt() {
    var clock = document.getElementById("clock");
    if (clock && clock.dataset.now) offset = Number(clock.dataset.now) - Date.now() / 1000;
    var part = live.querySelector("[data-announce]");
    var words = part ? part.dataset.announce : "";
    if (announce && said !== null && words && words !== said) announce.textContent = words;
    said = words;
    keepAwake(playing());
    tick();
  }

  adopt();
  setInterval(tick, 200);
  document.addEventListener("visibilitychange", function () { keepAwake(playing()); });
  var source = new EventSource("/events" + (live.dataset.view === "table" ? "?view=table" : ""));
  source.addEventListener("live", function (event) {
    live.innerHTML = JSON.parse(event.data).html;
    adopt();
  });
  source.onopen = function () { link.textContent = "Updates as the box plays."; };
  source.onerror = function () { link.textContent = "Reconnecting to the box…"; };
})();
