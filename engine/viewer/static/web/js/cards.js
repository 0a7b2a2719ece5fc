// Shared helpers of the replay viewer and the table: cards, seats around the board, DOM,
// and the words of both in the page's language. gettext, ngettext, pgettext and interpolate
// come from Django's JavaScript catalogue (/jsi18n/, loaded by base.html before any module);
// the engine's words (action labels, explanations, contract and bid names) are in that
// catalogue too (web/static/web/js/engine_words.js lists them for makemessages).

/* global gettext, pgettext */
const gt = (text) => gettext(text);
const pgt = (context, text) => pgettext(context, text);

/** A message of the catalogue with its %(name)s filled in from `values`. */
export function tr(format, values) {
  return format.replace(/%\((\w+)\)s/g, (_m, key) => String(values[key]));
}

/** A word or sentence of the engine in the page's language (as it is when not in the catalogue). */
export function engineWords(text) {
  return text ? gt(text) : text;
}

const RANK_NAMES = {
  2: pgettext("card rank", "two"), 3: pgettext("card rank", "three"), 4: pgettext("card rank", "four"),
  5: pgettext("card rank", "five"), 6: pgettext("card rank", "six"), 7: pgettext("card rank", "seven"),
  8: pgettext("card rank", "eight"), 9: pgettext("card rank", "nine"), T: pgettext("card rank", "ten"),
  J: pgettext("card rank", "jack"), Q: pgettext("card rank", "queen"), K: pgettext("card rank", "king"),
  A: pgettext("card rank", "ace"),
};
const SUIT_NAMES = {
  C: pgettext("suit", "clubs"), D: pgettext("suit", "diamonds"), H: pgettext("suit", "hearts"), S: pgettext("suit", "spades"),
};
const SUIT_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANK_LETTERS = { T: "10", J: pgettext("card letter", "J"), Q: pgettext("card letter", "Q"), K: pgettext("card letter", "K"), A: pgettext("card letter", "A") };

/** "QS" -> "QS"; "10S" -> "TS" (records may spell a ten either way). */
export function normaliseCard(card) {
  return card.startsWith("10") ? "T" + card.slice(2) : card;
}

/** "QS" -> "queen of spades" (in the page's language: "schoppen vrouw", "spader dam"). */
export function cardName(card) {
  const c = normaliseCard(card);
  return tr(pgettext("card name", "%(rank)s of %(suit)s"), { rank: RANK_NAMES[c[0]] ?? c[0], suit: SUIT_NAMES[c[1]] ?? c[1] });
}

/** "8C" -> "the eight of clubs" ("de klaveren acht", "klöver åtta"): a card as one names it
 * in a sentence (league/words/table_notices.py's card_in_words, the same catalogue words). */
export function cardInSentence(card) {
  const c = normaliseCard(card);
  return tr(pgettext("a card in a sentence", "the %(rank)s of %(suit)s"), { rank: RANK_NAMES[c[0]] ?? c[0], suit: SUIT_NAMES[c[1]] ?? c[1] });
}

/** An action said in a sentence: a card played by its name ("play 8C" -> "the eight of
 * clubs"), anything else as the table shows it (actionWords). */
export function actionInSentence(action) {
  const [verb, ...rest] = String(action).split(" ");
  const object = rest.join(" ");
  return verb === "play" && /^(10|[2-9TJQKA])[CDHS]$/.test(object) ? cardInSentence(object) : actionWords(action);
}

/** "QS" -> "Q♠" ("V♠" in Dutch, "D♠" in Swedish): a card in short. */
export function cardShort(card) {
  const c = normaliseCard(card);
  return `${RANK_LETTERS[c[0]] ?? c[0]}${SUIT_SYMBOLS[c[1]] ?? c[1]}`;
}

/** "trump H" -> "trump ♥", "play QS" -> "play Q♠": suit letters shown as symbols. */
export function prettyAction(text) {
  return text.replace(/\b([2-9TJQKA]|10)?([CDHS])\b/g, (match, rank, suit) =>
    `${rank ?? ""}${SUIT_SYMBOLS[suit]}`);
}

export function suitSymbol(letter) {
  return SUIT_SYMBOLS[letter] ?? letter;
}

// The compass position of each seat, seat 0 first, clockwise: engine/table_sheet.py's
// COMPASS_OF, the positions the club night's table cards print (seat 0 is North).
const COMPASS_OF = {
  3: ["North", "East", "West"],
  4: ["North", "East", "South", "West"],
  5: ["North", "North-East", "South-East", "South-West", "North-West"],
};
const COMPASS_WORDS = {
  North: pgettext("compass", "North"), East: pgettext("compass", "East"),
  South: pgettext("compass", "South"), West: pgettext("compass", "West"),
  "North-East": pgettext("compass", "North-East"), "South-East": pgettext("compass", "South-East"),
  "South-West": pgettext("compass", "South-West"), "North-West": pgettext("compass", "North-West"),
};

/** Seat 2 of 4 -> "South" in the page's language: the name people give a seat at a card table. */
export function compassName(seat, numSeats) {
  const name = COMPASS_OF[numSeats]?.[seat];
  return name ? COMPASS_WORDS[name] : tr(gettext("Seat %(seat)s"), { seat: seat + 1 });
}

/** The seat drawn at the bottom for a reader who sits at none (a replay): South where the
 * table has one, so North is at the top, as on a bridge diagram. */
export function readersBottomSeat(numSeats) {
  const south = (COMPASS_OF[numSeats] ?? []).indexOf("South");
  return south >= 0 ? south : 0;
}

/** "H" -> "♥ hearts" in the page's language. */
export function suitWords(letter) {
  return SUIT_NAMES[letter] ? `${SUIT_SYMBOLS[letter]} ${SUIT_NAMES[letter]}` : letter;
}

/** An action string as people read it in the page's language: its verb and its object
 * ("contract kings_jacks" -> "contract Heer & Zot", "play QS" -> "speel V♠"). */
export function actionWords(action) {
  const [verb, ...rest] = String(action).split(" ");
  const object = rest.join(" ");
  const verbWords = pgettext("action verb", verb);
  if (!object) return verbWords;
  let objectWords;
  if (/^(10|[2-9TJQKA])[CDHS]$/.test(object)) objectWords = cardShort(object);
  else if (/^[CDHS]$/.test(object)) objectWords = suitWords(object);
  else if (/^\d+$/.test(object)) objectWords = object;
  else if (/^\d+(up|down)$/.test(object)) {
    const n = object.replace(/\D+$/, "");
    objectWords = object.endsWith("up") ? tr(gettext("%(count)s up"), { count: n }) : tr(gettext("%(count)s down"), { count: n });
  } else objectWords = gt(object.replaceAll("_", " "));
  return `${verbWords} ${objectWords}`;
}

/** A contract as the engine names it ("kings_jacks") in the page's language ("Heer & Zot"). */
export function contractWords(contract) {
  return engineWords(String(contract).replaceAll("_", " "));
}

/** A move played for the person on timeout (league.domain.table_phase.moves_played_for). */
export function movedWords(moved) {
  // The move time, as the server said it ("No move within 2 min: ..."), in short units.
  const within = /^No move within (.+?): /.exec(moved.text ?? "");
  const time = within ? within[1].replace(/ days$/, ` ${gettext("days")}`) : "";
  const values = { time, action: actionInSentence(moved.action ?? ""), strike: moved.strike, of: moved.strikes_allowed };
  const text = time
    ? tr(gettext("No move within %(time)s: %(action)s was played for you (strike %(strike)s of %(of)s)"), values)
    : tr(gettext("No move in time: %(action)s was played for you (strike %(strike)s of %(of)s)"), values);
  return moved.strike >= moved.strikes_allowed
    ? `${text}; ${gettext("a bot plays your seat for the rest of the game")}.`
    : `${text}.`;
}

// Where el() makes its nodes: the page, or while drawnApart draws, a document that is not
// shown (an image made there loads nothing, until it is put in the page).
let making = document;
let apart = null;

/** What `draw()` returns, its nodes (el) made in a document apart from the page: a part
 * drawn anew to be merged into the page with morph, where most of it is already shown,
 * loads no image and lays out nothing it discards. A node it puts in the page moves there. */
export function drawnApart(draw) {
  apart = apart ?? document.implementation.createHTMLDocument("");
  const before = making;
  making = apart;
  try {
    return draw();
  } finally {
    making = before;
  }
}

/** A DOM element: el("li", {class: "x", "aria-label": "y"}, child, "text", ...). */
export function el(tag, attributes = {}, ...children) {
  const node = making.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : making.createTextNode(String(child)));
  }
  return node;
}

// What identifies an element among its siblings when a redraw is matched to what is shown
// (morph): a card, an action, a seat, an area, a role; or the one element it holds (a hand's
// <li> is its card).
const KEY_ATTRIBUTES = ["data-card", "data-action", "data-seat", "data-position", "data-role"];

function keyOf(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  for (const name of KEY_ATTRIBUTES) {
    const value = node.getAttribute(name);
    if (value !== null) return `${node.tagName} ${name}=${value}`;
  }
  return node.childElementCount === 1 && node.childNodes.length === 1 ? keyOf(node.firstElementChild) : null;
}

function sameKind(shown, fresh) {
  return shown.nodeType === fresh.nodeType && shown.nodeName === fresh.nodeName;
}

/** Make `shown` (in the page) look like `fresh` (drawn anew, detached), changing only what
 * differs. A <details> keeps its "open", which the reader toggles. */
function morphNode(shown, fresh) {
  if (shown.nodeType !== Node.ELEMENT_NODE) {
    if (shown.nodeValue !== fresh.nodeValue) shown.nodeValue = fresh.nodeValue;
    return;
  }
  if (shown.isEqualNode(fresh)) return; // the whole subtree, compared natively
  const attributes = fresh.attributes;
  let extra = attributes.length !== shown.attributes.length; // shown may have one fresh has not
  for (let i = 0; i < attributes.length; i += 1) {
    const { name, value } = attributes[i];
    const was = shown.getAttribute(name);
    if (was === value) continue;
    shown.setAttribute(name, value);
    if (was === null) extra = true;
  }
  if (extra) {
    for (const name of shown.getAttributeNames()) {
      if (!fresh.hasAttribute(name) && !(name === "open" && shown.nodeName === "DETAILS")) shown.removeAttribute(name);
    }
  }
  morph(shown, [...fresh.childNodes]);
}

/**
 * Make the children of `parent` those of the list `fresh` (nodes drawn anew, not in the
 * page), keeping every node already shown that stays the same: what did not change is not
 * laid out again, an image is not decoded again, and the focus stays where it is. Elements
 * are matched by their key (keyOf: the same card, action or seat), the others in order.
 * Elements that are kept keep their event listeners, so the nodes of a part drawn this way
 * have none of their own: their container listens (event delegation).
 */
export function morph(parent, fresh) {
  const keyed = new Map();
  const unkeyed = [];
  for (const node of parent.childNodes) {
    const key = keyOf(node);
    if (key === null) unkeyed.push(node);
    else if (keyed.has(key)) keyed.get(key).push(node);
    else keyed.set(key, [node]);
  }
  let nextUnkeyed = 0;
  const matched = fresh.map((node) => {
    const key = keyOf(node);
    if (key !== null) return keyed.get(key)?.shift() ?? null;
    if (nextUnkeyed >= unkeyed.length) return null;
    const candidate = unkeyed[nextUnkeyed];
    nextUnkeyed += 1;
    return sameKind(candidate, node) ? candidate : null;
  });
  // What goes first, so that what stays keeps its place (a node moved loses the focus).
  const kept = new Set(matched.filter(Boolean));
  for (const node of [...parent.childNodes]) if (!kept.has(node)) node.remove();
  fresh.forEach((node, at) => {
    const shown = matched[at];
    if (shown) morphNode(shown, node);
    const placed = shown ?? node;
    const there = parent.childNodes[at] ?? null;
    if (there !== placed) parent.insertBefore(placed, there);
  });
}

/** Set a node's text only when it differs (the same text set again is a change to lay out). */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** A name as nodes that may wrap after a hyphen, an underscore or a dot ("greedy-" then
 * "3" in a narrow column header, never "greed" then "y-3"): a <wbr> after each. */
export function breakableName(name) {
  return String(name).split(/(?<=[-_.])/).flatMap((part, i) => (i ? [el("wbr"), part] : [part]));
}

/** An image of a card face (or the back for null), in a span.card: from `base` on the
 * site, from the page itself (window.klCardImages: data URLs) on a standalone replay. */
export function cardImage(base, card, { small = false, label = null } = {}) {
  const file = card === null ? "back" : normaliseCard(card);
  const alt = label ?? (card === null ? gettext("a hidden card") : cardName(card));
  const src = window.klCardImages?.[file] ?? `${base}${file}.svg`;
  return el(
    "span",
    { class: small ? "card small" : "card", "data-card": card ?? "" },
    el("img", { src, alt, width: 200, height: 280, draggable: "false" }),
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
    const error = new Error(detail ?? tr(gettext("The server answered %(status)s %(text)s."), { status: response.status, text: response.statusText }));
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
 * message; onState("live" | "reconnecting" | "restarting" | "offline") tells the page ("restarting":
 * the server closed it because it is restarting). Returns {close, isOpen, send}.
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
    socket.addEventListener("close", (event) => {
      if (closed) return;
      // 1012: the server is restarting (a deploy, or ./scripts/run stopped): it will be
      // back, and the balancer or the next process answers the next try.
      const restarting = event.code === 1012;
      onState?.(restarting ? "restarting" : "reconnecting");
      if (restarting) pause = 1000;
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
    /** Send `message` as JSON if the socket is open (else it is dropped); true if sent. */
    send(message) {
      if (socket?.readyState !== WebSocket.OPEN) return false;
      socket.send(JSON.stringify(message));
      return true;
    },
  };
}
