// The table: one person's seat in a running match.
//
// data attributes of #table:
//   data-view-url    GET: {"view": PlayerView.to_json(), "deadline": ISO or null, "your_turn": bool}
//   data-action-url  POST {"action": "play QS"}: 200 with the new view, 4xx {"detail": "..."}
//   data-socket-url  WebSocket path; each {"type": "update"} makes the page refetch its view
//   data-seat        this person's seat
// Everything shown comes from the server's view, so a reload or a reconnect resumes the game.
// While the socket is down the page polls the view every few seconds.

import {
  boardAreas, cardImage, cardName, csrfToken, el, fetchJSON, liveSocket, prettyAction,
  seatAreas, suitSymbol,
} from "./cards.js";

const root = document.getElementById("table");
const part = (role) => root.querySelector(`[data-role="${role}"]`);
const cardBase = root.dataset.cardUrl;
const mySeat = Number.parseInt(root.dataset.seat ?? "0", 10);
const seatsElement = document.getElementById("table-seats");
let seatNames = seatsElement ? distinctNames(JSON.parse(seatsElement.textContent)) : null;

/** Names that say which seat they are when several seats have the same name. */
function distinctNames(names) {
  return names.map((name, seat) =>
    names.filter((other) => other === name).length > 1 ? `${name} (seat ${seat})` : name);
}

let current = null; // the last response of the view URL
let sending = false;
let deadlineTimer = null;
let socket = null;
let pollTimer = null;

function nameOf(seat) {
  if (seat === mySeat) return seatNames?.[seat] && seatNames[seat] !== "You" ? `${seatNames[seat]} (you)` : "You";
  return seatNames?.[seat] ?? `Seat ${seat}`;
}

function showError(message) {
  const box = part("error");
  box.textContent = message;
  box.hidden = !message;
}

// ---------------------------------------------------------------- rendering

const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };
const RANK_ORDER = "23456789TJQKA";
function cardOrder(a, b) {
  const suit = SUIT_ORDER[a[1]] - SUIT_ORDER[b[1]];
  return suit !== 0 ? suit : RANK_ORDER.indexOf(b[0]) - RANK_ORDER.indexOf(a[0]);
}

/** The seats in the order they play a trick led by `leader`. */
function playOrder(view, leader) {
  const seating = view.public && Array.isArray(view.public.seating) ? view.public.seating : null;
  const n = view.hand_sizes.length;
  if (seating && seating.includes(leader)) {
    const at = seating.indexOf(leader);
    return seating.slice(at).concat(seating.slice(0, at));
  }
  return Array.from({ length: n }, (_, i) => (leader + i) % n);
}

function render(data) {
  const view = data.view;
  const n = view.hand_sizes.length;
  if (!seatNames && Array.isArray(data.seats)) seatNames = distinctNames(data.seats.map((s) => s.name));
  const where = seatAreas(n, mySeat);
  const legal = new Set(view.legal);
  const myTurn = Boolean(data.your_turn) && !sending;
  const board = part("board");
  board.replaceChildren();
  const areas = boardAreas(board, "area");
  const centre = el("div", { class: "centre" });
  board.append(centre);
  const slots = boardAreas(centre, "slot");
  const trakarl = view.public && Array.isArray(view.public.trakarl) ? view.public.trakarl : null;

  for (let seat = 0; seat < n; seat += 1) {
    const toAct = view.to_act === seat;
    const box = el("section", {
      class: `seat${toAct ? " to-act" : ""}`,
      "data-seat": seat,
      "aria-label": `${nameOf(seat)}${toAct ? ", to act" : ""}`,
    });
    const label = el("div", { class: "seat-label" }, el("span", { class: "seat-name" }, nameOf(seat)));
    if (view.dealer === seat) label.append(el("span", { class: "badge" }, "dealer"));
    if (view.public?.ranks?.[seat]) label.append(el("span", { class: "badge" }, view.public.ranks[seat]));
    const won = view.tricks_won[seat] ?? 0;
    label.append(el("span", { class: "badge" }, `${won} trick${won === 1 ? "" : "s"}`));
    box.append(label);
    if (seat === mySeat) {
      const hand = el("ul", { class: "hand", "aria-label": "Your hand" });
      for (const card of [...view.hand].sort(cardOrder)) {
        const action = `play ${card}`;
        const playable = myTurn && legal.has(action);
        const button = el("button", {
          type: "button",
          class: `card-button${playable ? " legal" : ""}`,
          "data-card": card,
          "aria-label": `${cardName(card)}${playable ? ", playable" : ""}`,
          // Every card is sent: for one the rules forbid, the server's answer names the rule.
          onclick: () => send(action),
        }, cardImage(cardBase, card, { label: "" }));
        hand.append(el("li", {}, button));
      }
      box.append(hand);
    } else if (trakarl && seat === n - 1 && trakarl.length) {
      // Priffe's träkarl: its hand is public once the first card is led.
      const hand = el("ul", { class: "hand compact", "aria-label": `Hand of ${nameOf(seat)}` });
      for (const card of [...trakarl].sort(cardOrder)) {
        const action = `play ${card}`;
        const playable = myTurn && legal.has(action);
        const item = playable
          ? el("button", { type: "button", class: "card-button legal", "data-card": card, "aria-label": `${cardName(card)} from the dummy, playable`, onclick: () => send(action) }, cardImage(cardBase, card, { small: true, label: "" }))
          : cardImage(cardBase, card, { small: true });
        hand.append(el("li", {}, item));
      }
      box.append(hand);
    } else {
      const size = view.hand_sizes[seat] ?? 0;
      const hand = el("ul", { class: "hand compact", "aria-label": `${nameOf(seat)} holds ${size} card${size === 1 ? "" : "s"}` });
      for (let i = 0; i < size; i += 1) hand.append(el("li", { "aria-hidden": "true" }, cardImage(cardBase, null, { small: true })));
      box.append(hand);
    }
    areas[where[seat]].append(box);
  }

  // The trick in play, or the last one completed with its winner.
  let trick = view.trick;
  let leader = view.leader;
  let winner = null;
  if (!trick.length && view.tricks.length) {
    const last = view.tricks[view.tricks.length - 1];
    trick = last.cards;
    leader = last.leader;
    winner = last.winner;
  }
  const order = playOrder(view, leader);
  trick.forEach((card, i) => {
    const seat = order[i];
    const slot = el("div", { class: `played${winner === seat ? " winner" : ""}`, "data-seat": seat });
    slot.append(cardImage(cardBase, card, { label: `${nameOf(seat)} played the ${cardName(card)}` }));
    slots[where[seat]].append(slot);
  });
  if (winner !== null) {
    centre.append(el("p", { class: "trick-note" }, `${nameOf(winner)} won the trick`));
  }

  // Bids and choices: every legal action that is not a card.
  const choices = part("choices");
  choices.replaceChildren();
  if (myTurn) {
    for (const action of view.legal.filter((a) => !a.startsWith("play "))) {
      choices.append(el("button", {
        type: "button", class: "primary", "data-action": action, onclick: () => send(action),
      }, prettyAction(action)));
    }
  }

  renderFacts(view);
  renderStatus(data);
  startDeadline(data.deadline);
}

function renderFacts(view) {
  const rows = [["Game", view.game]];
  if (view.deal) rows.push(["Deal", view.deals ? `${view.deal} of ${view.deals}` : String(view.deal)]);
  if (view.contract) rows.push(["Contract", prettyAction(view.contract).replaceAll("_", " ")]);
  rows.push(["Trumps", view.trump ? suitSymbol(view.trump) : "none"]);
  const pub = view.public ?? {};
  if (Array.isArray(pub.bids) && pub.bids.length) {
    rows.push(["Bids", pub.bids.map((b) => `${nameOf(b.seat)}: ${b.bid}`).join(", ")]);
  }
  if (Array.isArray(pub.auction) && pub.auction.length) {
    rows.push(["Auction", pub.auction.map((b) => (typeof b === "object" ? `${nameOf(b.seat)}: ${b.bid ?? b.action ?? ""}` : String(b))).join(", ")]);
  }
  if (Array.isArray(pub.partners)) {
    rows.push(["Partners", pub.partners.map((pair) => pair.map(nameOf).join(" & ")).join(" vs ")]);
  }
  const priv = view.private ?? {};
  for (const [key, value] of Object.entries(priv)) {
    rows.push([`Yours: ${key.replaceAll("_", " ")}`, Array.isArray(value) ? value.join(" ") : String(value)]);
  }
  part("facts").replaceChildren(...rows.flatMap(([t, v]) => [el("dt", {}, t), el("dd", {}, v)]));

  const n = view.hand_sizes.length;
  const header = el("tr", {}, el("th", { scope: "col" }, "Deal"),
    ...Array.from({ length: n }, (_, s) => el("th", { scope: "col", class: "num" }, nameOf(s))));
  const rowsHtml = view.deal_scores.map((scores, i) => el("tr", {}, el("th", { scope: "row" }, `${i + 1}`),
    ...scores.map((x) => el("td", { class: "num" }, x))));
  part("scores").replaceChildren(el("table", { class: "data" },
    el("caption", { class: "visually-hidden" }, "Scores of each deal and the totals"),
    el("thead", {}, header), el("tbody", {}, ...rowsHtml),
    el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, "Total"),
      ...view.scores.map((x) => el("td", { class: "num" }, el("strong", {}, x)))))));
}

function renderStatus(data) {
  const view = data.view;
  let text;
  if (view.to_act < 0 || data.status === "finished") {
    text = `The game is over. Scores: ${view.scores.map((s, i) => `${nameOf(i)} ${s}`).join(", ")}.`;
    root.dataset.over = "true";
    if (root.dataset.recordUrl) {
      part("status").replaceChildren(text, " ", el("a", { href: root.dataset.recordUrl }, "See the replay"));
      return;
    }
  } else if (data.your_turn) {
    const cards = view.legal.filter((a) => a.startsWith("play ")).length;
    text = cards ? "Your turn: play one of the marked cards." : "Your turn: choose below.";
  } else {
    text = `Waiting for ${nameOf(view.to_act)}…`;
  }
  root.dataset.yourTurn = data.your_turn ? "true" : "false";
  part("status").textContent = text;
}

function startDeadline(deadline) {
  window.clearInterval(deadlineTimer);
  const box = part("deadline");
  if (!deadline) {
    box.textContent = "";
    return;
  }
  const end = Date.parse(deadline);
  const tick = () => {
    const left = Math.max(0, Math.round((end - Date.now()) / 1000));
    const minutes = Math.floor(left / 60);
    const seconds = String(left % 60).padStart(2, "0");
    box.textContent = `Time for this move: ${minutes}:${seconds}`;
    box.classList.toggle("urgent", left <= 10);
    if (left === 0) window.clearInterval(deadlineTimer);
  };
  tick();
  deadlineTimer = window.setInterval(tick, 1000);
}

// ---------------------------------------------------------------- talking to the server

async function refresh() {
  try {
    const fresh = await fetchJSON(root.dataset.viewUrl);
    // Redraw only when something changed, so a card is never replaced under a finger.
    if (!current || JSON.stringify(fresh) !== JSON.stringify(current)) {
      current = fresh;
      render(current);
    }
    root.dataset.ready = "true";
  } catch (error) {
    part("status").textContent = `Could not load the table: ${error.message}`;
  }
  poll(); // the next look, sooner while others are to play
}

async function send(action) {
  if (sending) return;
  sending = true;
  showError("");
  try {
    const data = await fetchJSON(root.dataset.actionUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify({ action }),
    });
    sending = false;
    if (data && data.view) {
      current = { ...current, ...data };
      render(current);
    }
    await refresh(); // the bots may have played since the move was answered
  } catch (error) {
    sending = false;
    showError(error.message);
    await refresh();
  }
}

function poll() {
  // The socket makes updates instant where the channel layer reaches the workers; the
  // poll is the safety net: often while others are to play, seldom on this seat's turn.
  window.clearTimeout(pollTimer);
  const waiting = !(current && current.your_turn);
  const socketLive = socket && socket.isOpen && socket.isOpen();
  const pause = waiting ? (socketLive ? 2500 : 1500) : 10000;
  pollTimer = window.setTimeout(() => {
    if (root.dataset.over !== "true") refresh();
  }, pause);
}

function connectionState(state) {
  const badge = part("connection");
  badge.textContent = { live: "live", reconnecting: "reconnecting…", offline: "" }[state] ?? "";
}

refresh();
socket = liveSocket(root.dataset.socketUrl, {
  onMessage: (message) => {
    if (message.type === "update") refresh();
  },
  onState: connectionState,
  onOpen: refresh, // catch up on whatever happened while disconnected
});
