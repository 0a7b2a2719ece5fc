// Shared helpers of the replay viewer and the table: cards, seats around the board, DOM.

const RANK_NAMES = {
  2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
  9: "nine", T: "ten", J: "jack", Q: "queen", K: "king", A: "ace",
};
const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const SUIT_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };

/** "QS" -> "QS"; "10S" -> "TS" (records may spell a ten either way). */
export function normaliseCard(card) {
  return card.startsWith("10") ? "T" + card.slice(2) : card;
}

/** "QS" -> "queen of spades". */
export function cardName(card) {
  const c = normaliseCard(card);
  return `${RANK_NAMES[c[0]] ?? c[0]} of ${SUIT_NAMES[c[1]] ?? c[1]}`;
}

/** "trump H" -> "trump ♥", "play QS" -> "play Q♠": suit letters shown as symbols. */
export function prettyAction(text) {
  return text.replace(/\b([2-9TJQKA]|10)?([CDHS])\b/g, (match, rank, suit) =>
    `${rank ?? ""}${SUIT_SYMBOLS[suit]}`);
}

export function suitSymbol(letter) {
  return SUIT_SYMBOLS[letter] ?? letter;
}

/** A DOM element: el("li", {class: "x", "aria-label": "y"}, child, "text", ...). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An image of a card face (or the back for null), in a span.card. */
export function cardImage(base, card, { small = false, label = null } = {}) {
  const file = card === null ? "back" : normaliseCard(card);
  const alt = label ?? (card === null ? "a hidden card" : cardName(card));
  return el(
    "span",
    { class: small ? "card small" : "card", "data-card": card ?? "" },
    el("img", { src: `${base}${file}.svg`, alt, width: 200, height: 280, draggable: "false" }),
  );
}

/**
 * Where each seat sits on the board, seen from `bottom`: an area name per seat.
 * Play goes clockwise: the next seat after the bottom one sits on its left (west).
 */
export function seatAreas(numSeats, bottom = 0) {
  const layouts = {
    2: ["south", "north"],
    3: ["south", "west", "east"],
    4: ["south", "west", "north", "east"],
    5: ["south", "west", "north", "north", "east"],
  };
  const layout = layouts[numSeats] ?? layouts[4];
  const areas = [];
  for (let seat = 0; seat < numSeats; seat += 1) {
    areas.push(layout[(seat - bottom + numSeats) % numSeats] ?? "north");
  }
  return areas;
}

/** The four areas of a board (or of its centre), each a container for seats or cards. */
export function boardAreas(container, className) {
  const areas = {};
  for (const name of ["north", "west", "east", "south"]) {
    areas[name] = el("div", { class: className, "data-position": name });
    container.append(areas[name]);
  }
  return areas;
}

/** Fetch JSON; on a non-2xx status throw an Error with the server's "detail" message. */
export async function fetchJSON(url, options = {}) {
  const response = await fetch(url, {
    credentials: "same-origin",
    headers: { Accept: "application/json", ...(options.headers ?? {}) },
    ...options,
  });
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const detail = body && typeof body.detail === "string" ? body.detail : null;
    const error = new Error(detail ?? `The server answered ${response.status} ${response.statusText}.`);
    error.status = response.status;
    error.body = body;
    throw error;
  }
  return body;
}

/** The CSRF token Django set in its cookie, for a POST from JavaScript. */
export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  if (meta && meta.content) return meta.content;
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

/**
 * A WebSocket that reconnects with a growing pause and calls onMessage(json) for each
 * message; onState("live" | "reconnecting" | "offline") tells the page. Returns {close}.
 */
export function liveSocket(path, { onMessage, onState, onOpen }) {
  if (!path || !("WebSocket" in window)) {
    onState?.("offline");
    return { close() {} };
  }
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  const url = `${scheme}//${window.location.host}${path}`;
  let socket = null;
  let pause = 1000;
  let closed = false;
  let timer = null;
  const connect = () => {
    socket = new WebSocket(url);
    socket.addEventListener("open", () => {
      pause = 1000;
      onState?.("live");
      onOpen?.();
    });
    socket.addEventListener("message", (event) => {
      try {
        onMessage(JSON.parse(event.data));
      } catch {
        // A message that is not JSON is ignored.
      }
    });
    socket.addEventListener("close", () => {
      if (closed) return;
      onState?.("reconnecting");
      timer = window.setTimeout(connect, pause);
      pause = Math.min(pause * 2, 15000);
    });
  };
  connect();
  return {
    close() {
      closed = true;
      window.clearTimeout(timer);
      socket?.close();
    },
    isOpen() {
      return socket?.readyState === WebSocket.OPEN;
    },
  };
}
