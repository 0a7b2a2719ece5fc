// Live league pages: the tournament's WebSocket says when a match finishes
// ({"type": "progress", "finished": n, "total": m}); the page then asks htmx to reload
// its standings and where the league stands (the element listening for "league-progress"). While the socket is down,
// htmx's own timer (every 15 s on a running league) keeps the page moving.

import { liveSocket } from "./cards.js";

const live = document.querySelector("[data-socket-url]");
if (live) {
  liveSocket(live.dataset.socketUrl, {
    onMessage: (message) => {
      if (message.type !== "progress") return;
      if (window.htmx) window.htmx.trigger(document.body, "league-progress");
      else window.location.reload();
    },
    onState: (state) => {
      live.dataset.live = state;
    },
  });
}
