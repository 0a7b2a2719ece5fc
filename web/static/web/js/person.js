// The navigation bar's counts of the signed-in person: games where it is their move and
// unread notifications. The person's WebSocket (/ws/me/) says {"type": "counts"} when they
// may have changed; the page then asks the API for them. While the socket is down the
// counts are asked for every minute instead (and once when the socket comes back). Messages
// within a second make one request: at a live table every move changes whose move it is,
// for the mover and the next person, several times a second when people play quickly.

import { liveSocket } from "./cards.js";

const nav = document.querySelector("[data-person-socket]");
const POLL_MS = 60000;
const GATHER_MS = 1000;

function show(counts) {
  for (const badge of document.querySelectorAll("[data-count]")) {
    const value = counts[badge.dataset.count];
    if (typeof value !== "number") continue;
    badge.textContent = String(value);
    badge.hidden = value === 0;
  }
  for (const link of document.querySelectorAll("[data-counted]")) {
    const value = counts[link.dataset.counted];
    if (typeof value !== "number") continue;
    const label = link.dataset.label || "";
    link.setAttribute(
      "aria-label",
      value ? `${label}, ${value} ${link.dataset.countedWords || ""}`.trim() : label,
    );
  }
  document.dispatchEvent(new CustomEvent("person-counts", { detail: counts }));
}

let asking = null;
async function refresh() {
  if (asking) return asking;
  asking = (async () => {
    try {
      const response = await fetch(nav.dataset.countsUrl, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (response.ok) show(await response.json());
    } catch {
      // Offline: the next message or poll tries again.
    } finally {
      asking = null;
    }
  })();
  return asking;
}

let gathering = null;
function refreshSoon() {
  if (gathering !== null) return;
  gathering = window.setTimeout(() => {
    gathering = null;
    refresh();
  }, GATHER_MS);
}

if (nav) {
  let socket = null;
  socket = liveSocket(nav.dataset.personSocket, {
    onMessage: (message) => {
      if (message.type === "counts") refreshSoon();
    },
    onOpen: () => refresh(),
    onState: (state) => {
      nav.dataset.live = state;
    },
  });
  window.setInterval(() => {
    if (!(socket && socket.isOpen && socket.isOpen())) refresh();
  }, POLL_MS);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refresh();
  });
}
