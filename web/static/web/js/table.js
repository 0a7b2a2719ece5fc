// The table: one person's seat in a match.
//
// data attributes of #table:
//   data-view-url    GET: the seat's view (docs/api.md, "Playing at a table"): {"view",
//                    "phase", "position", "to_act", "your_turn", "deadline", "seats",
//                    "missing", "actions", "moved_for_you", ...}
//   data-action-url  POST {"action": "play QS"}: 200 with the new view, 4xx {"detail": "..."}
//   data-socket-url  WebSocket path; {"type": "update", "event_index", "events"} carries the
//                    new events as anyone may see them (league.domain.public_events): the
//                    cards played are drawn at once, then the view is refetched;
//                    {"type": "chat"} is a line of the table's chat; {"type": "presence"}
//                    who is at the table (presence.js), which the page's heartbeat asks
//   data-vote-url    POST: vote to seat a bot for the person at a seat ("/0/vote/" with the seat)
//   data-next-url    GET: the next game where it is this person's move (optional)
//   data-seat        this person's seat
//
// Everything shown comes from the server's view and is derived again from each answer:
// whose turn it is, the phase, the deadline. A reload, or a reconnect after a network drop,
// asks the server again and is back where it was. Answers can arrive out of order (a
// refetch sent before a move may be answered after it): each request is numbered when it
// is sent, and an answer older than the one shown, or about an earlier position of the
// game, is dropped. While a move is being sent, socket updates only note that a refetch is
// due; it is made when the move's answer is in. The socket reconnects with a growing pause;
// meanwhile the page polls.
//
// A card played at the table is drawn from the socket's update as soon as it arrives (into
// the trick, out of that seat's hand), before the view is asked again: one refetch at a time,
// and one more if updates came meanwhile (the latest wins). The trick that ends a deal stays
// on the table with its winner for LAST_TRICK_MS (or until the next update) before the next
// deal is shown.
//
// Each answer or update is drawn anew apart from the page and merged into what is shown
// (morph, cards.js): only what changed is written, a card that stays is the same element
// (not laid out again, its focus kept), and clicks are heard by the containers.

import {
  actionWords, boardAreas, breakableName, cardImage, cardName, compassName, contractWords, csrfToken, el,
  drawnApart, engineWords, fetchJSON, liveSocket, morph, movedWords, seatAreas, setText, suitWords, tr,
} from "./cards.js";
import { tableChat } from "./chat.js";
import { tablePresence } from "./presence.js";
import { turnSignals } from "./turn_signals.js";

const root = document.getElementById("table");
const parts = new Map(); // the page's parts by role, found once (the template draws them)
function part(role) {
  let found = parts.get(role);
  if (!found) {
    found = root.querySelector(`[data-role="${role}"]`);
    if (found) parts.set(role, found);
  }
  return found;
}
const cardBase = root.dataset.cardUrl;
const mySeat = Number.parseInt(root.dataset.seat ?? "0", 10);
const matchId = Number.parseInt(root.dataset.match ?? "0", 10);
const seatsElement = document.getElementById("table-seats");
let seatNames = seatsElement ? distinctNames(JSON.parse(seatsElement.textContent)) : null;
let seatCount = seatNames ? seatNames.length : 4;
let personSeats = new Set(); // the seats a person plays: "to move", where a bot is "thinking"
const chatElement = document.querySelector(".table-chat[data-chat-url]");
const chat = chatElement ? tableChat(chatElement) : null;
const signals = turnSignals({ root, table: matchId });
const presence = tablePresence({
  root,
  mySeat,
  nameOf: (seat) => nameOf(seat),
  voteUrl: (seat) => root.dataset.voteUrl.replace("/0/vote/", `/${seat}/vote/`),
  onChange: () => renderPresence(),
  announce: (text) => announce(text),
});

/** Names that say which seat they are (North, East...) when several seats have the same name. */
function distinctNames(names) {
  return names.map((name, seat) =>
    names.filter((other) => other === name).length > 1 ? tr(gettext("%(name)s (%(compass)s)"), { name, compass: compassName(seat, names.length) }) : name);
}

let current = null; // the answer shown
let shownRequest = 0; // the number of the request whose answer is shown
let requests = 0; // requests sent so far
let sending = false; // a move is on its way
let refetchDue = false; // an update came while a move was on its way
let dueFrom = -1; // the latest event those updates announced (Infinity: one that did not say)
let deadlineTimer = null;
let socket = null;
let pollTimer = null;
let lastPhase = null; // the phase shown before the current one
let fetching = false; // a refetch is on its way
let fetchAgain = false; // an update came meanwhile: one more refetch once it is answered
let hold = null; // {deal, pending, timer, awaiting}: a deal's last trick shown (or, awaiting,
// on its way on the socket), the next deal waiting
const LAST_TRICK_MS = 1300;
// A page whose person is not next asks for its view this much later, so that the one
// server's first answers after a move go to the person to act next (docs/web.md).
const NOT_NEXT_REFETCH_MS = 700;
let laterTimer = null;

function nameOf(seat) {
  if (seat === mySeat) return seatNames?.[seat] && seatNames[seat] !== "You" ? tr(gettext("%(name)s (you)"), { name: seatNames[seat] }) : gettext("You");
  return seatNames?.[seat] ?? compassName(seat, seatCount);
}

/** Set a data attribute of the table only when it changes (each change restyles the page). */
function rootData(name, value) {
  if (root.dataset[name] !== value) root.dataset[name] = value;
}

function showError(message) {
  const box = part("error");
  box.textContent = message;
  box.hidden = !message;
}

// ---------------------------------------------------------------- screen readers and keys

/** Say `text` to screen readers (a polite live region; the last few lines are kept). */
function announce(text) {
  const log = part("announce");
  if (!log || !text) return;
  log.append(el("p", {}, text));
  while (log.childElementCount > 6) log.firstElementChild.remove();
}

let announced = null; // {deal, tricks, trick}: how much of the deal has been announced

/** Announce what changed on the table since the last view shown: each card played (who
 * played what) and each trick's winner. Views come from the server and from the socket's
 * updates alike, so every card is told once, whichever brought it. */
function announcePlays(view) {
  const before = announced;
  announced = { deal: view.deal, tricks: view.tricks.length, trick: view.trick.length };
  if (!before || before.deal !== view.deal) return; // a new deal, or the page just opened
  const played = (cards, leader, from) => {
    const order = playOrder(view, leader);
    cards.slice(from).forEach((card, i) => {
      announce(tr(gettext("%(name)s played the %(card)s"), { name: nameOf(order[from + i]), card: cardName(card) }));
    });
  };
  let from = before.trick;
  for (const trick of view.tricks.slice(before.tricks)) {
    played(trick.cards, trick.leader, from);
    announce(tr(gettext("%(name)s won the trick"), { name: nameOf(trick.winner) }));
    from = 0;
  }
  if (view.tricks.length < before.tricks) return;
  played(view.trick, view.leader, view.tricks.length === before.tricks ? before.trick : 0);
}

/** The buttons arrow keys move between in `container`: the legal cards of a hand (all of
 * them when none is legal), or every button of the choices. */
function rovingButtons(container) {
  const buttons = [...container.querySelectorAll("button")];
  const legal = buttons.filter((b) => b.classList.contains("legal"));
  return legal.length ? legal : buttons;
}

/** One tab stop per group: `chosen` (or the group's first) gets tabindex 0. */
function setRoving(container, chosen) {
  const buttons = rovingButtons(container);
  const target = chosen && buttons.includes(chosen) ? chosen : buttons[0];
  for (const button of container.querySelectorAll("button")) {
    const index = button === target ? 0 : -1;
    if (button.tabIndex !== index) button.tabIndex = index;
  }
  return target ?? null;
}

/** Arrow keys, Home and End move the focus within a hand or the choices. */
function rovingKeys(container) {
  container.addEventListener("keydown", (event) => {
    const keys = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: "first", End: "last" };
    const step = keys[event.key];
    if (step === undefined) return;
    const buttons = rovingButtons(container);
    if (!buttons.length) return;
    event.preventDefault();
    const at = buttons.indexOf(document.activeElement);
    let next;
    if (step === "first") next = 0;
    else if (step === "last") next = buttons.length - 1;
    else next = at < 0 ? 0 : (at + step + buttons.length) % buttons.length;
    setRoving(container, buttons[next]).focus();
  });
}

/** Focus the hand's card to play (H), or the first bid or choice (B). */
function focusHand() {
  const hand = part("board").querySelector(".hand.mine");
  const target = hand ? setRoving(hand, hand.querySelector('button[tabindex="0"]')) : null;
  target?.focus();
  return Boolean(target);
}

function focusChoices() {
  const target = setRoving(part("choices"), part("choices").querySelector('button[tabindex="0"]'));
  target?.focus();
  return Boolean(target);
}

/** The table's state in words (S): whose turn, the trick on the table, the time left. */
function stateInWords() {
  const view = current?.view;
  const parts = [part("status").textContent];
  if (view && view.trick.length) {
    const order = playOrder(view, view.leader);
    parts.push(view.trick.map((card, i) => tr(gettext("%(name)s played the %(card)s"), { name: nameOf(order[i]), card: cardName(card) })).join("; "));
  }
  if (part("deadline").textContent) parts.push(part("deadline").textContent);
  return parts.filter(Boolean).join(". ");
}

document.addEventListener("keydown", (event) => {
  const tag = event.target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || event.altKey || event.ctrlKey || event.metaKey) return;
  const key = event.key.toLowerCase();
  if (key === "h" && focusHand()) event.preventDefault();
  else if (key === "b" && focusChoices()) event.preventDefault();
  else if (key === "s") {
    event.preventDefault();
    announce(stateInWords());
  }
});

/** The phase of an answer; the sample table's answers (web.samples) do not name it. */
function phaseOf(data) {
  if (data.phase) return data.phase;
  if (data.status === "finished" || (data.view && data.view.to_act < 0)) return "finished";
  return data.your_turn ? "your_move" : "bots_to_move";
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

/** Show `data`: each part drawn anew apart from the page (drawnApart) and merged into
 * what is shown (morph), so that only what changed is laid out again. */
function render(data) {
  drawnApart(() => renderParts(data));
}

function renderParts(data) {
  // The focus survives the redraw: the same card or choice, else the next one to play.
  const focused = document.activeElement;
  const focusedCard = focused?.closest?.(".hand.mine") ? focused.dataset.card : null;
  const focusedChoice = focused?.closest?.("[data-role=choices]") ? focused.dataset.action : null;
  const wasInTable = focused === document.body || root.contains(focused);
  const phase = phaseOf(data);
  rootData("phase", phase);
  rootData("position", String(data.position ?? ""));
  if (Array.isArray(data.seats)) {
    seatNames = distinctNames(data.seats.map((s) => s.name));
    seatCount = data.seats.length;
    personSeats = new Set(data.seats.filter((s) => s.kind === "person" && !s.replaced).map((s) => s.seat));
  }
  renderMoved(data);
  renderWaiting(data);
  const view = data.view;
  if (!view) {
    for (const role of ["board", "choices", "facts", "scores"]) morph(part(role), []);
  } else {
    renderBoard(data, view);
    announcePlays(view);
    renderChoices(data, view);
    renderFacts(view);
  }
  const turnStarts = phase === "your_move" && lastPhase !== "your_move";
  renderStatus(data, phase);
  startDeadline(data.your_turn ? data.deadline : data.to_act_deadline, Boolean(data.your_turn));
  const hand = part("board").querySelector(".hand.mine");
  if (hand) {
    const again = focusedCard ? hand.querySelector(`button[data-card="${focusedCard}"]`) : null;
    const target = setRoving(hand, again);
    if (focusedCard && target && document.activeElement !== target) target.focus();
  }
  const choice = focusedChoice ? part("choices").querySelector(`button[data-action="${CSS.escape(focusedChoice)}"]`) : null;
  const choiceTarget = setRoving(part("choices"), choice);
  if (focusedChoice && choiceTarget && document.activeElement !== choiceTarget) choiceTarget.focus();
  if (turnStarts) {
    announce(part("status").textContent);
    // Whoever plays with the keys finds the focus where the move is made.
    if (wasInTable && !focusedCard && !focusedChoice) {
      if (!(view?.legal ?? []).some((a) => a.startsWith("play ")) || !focusHand()) focusChoices();
    }
  }
}

/** Each other person's seat says whether they are at the table: drawn into the board as
 * it stands, so a change of presence redraws no card (a click is never lost to it), or
 * into `board`, a board being drawn. */
function renderPresence(board = part("board")) {
  for (const box of board.querySelectorAll(".seat[data-seat]")) {
    const seat = Number(box.dataset.seat);
    const here = seat === mySeat ? null : presence.of(seat);
    let badge = box.querySelector(".badge.presence");
    if (!here) {
      badge?.remove();
      delete box.dataset.connected;
      continue;
    }
    if (!badge) {
      badge = el("span", { class: "badge presence" });
      box.querySelector(".seat-label")?.append(badge);
    }
    box.dataset.connected = here.connected ? "true" : "false";
    badge.classList.toggle("gone", !here.connected);
    setText(badge, here.connected ? gettext("at the table") : gettext("gone"));
  }
}

function renderBoard(data, view) {
  const n = view.hand_sizes.length;
  const where = seatAreas(n, mySeat);
  const legal = new Set(view.legal);
  const myTurn = Boolean(data.your_turn) && !sending;
  const toAct = data.to_act ?? view.to_act;
  // Drawn anew apart, then into the page changing only what differs (morph): the cards that
  // stay are not laid out again, and a card under the pointer or the focus stays.
  const board = el("div");
  const areas = boardAreas(board, "area");
  const centre = el("div", { class: "centre" });
  board.append(centre);
  const slots = boardAreas(centre, "slot");
  const trakarl = view.public && Array.isArray(view.public.trakarl) ? view.public.trakarl : null;
  const replaced = new Set((data.seats ?? []).filter((s) => s.replaced).map((s) => s.seat));

  for (let seat = 0; seat < n; seat += 1) {
    const acting = toAct === seat;
    const box = el("section", {
      class: `seat${acting ? " to-act" : ""}${seat === mySeat ? " mine" : ""}`,
      "data-seat": seat,
      "aria-label": acting ? tr(gettext("%(name)s, to act"), { name: nameOf(seat) }) : nameOf(seat),
    });
    const label = el("div", { class: "seat-label" }, el("span", { class: "seat-name" }, nameOf(seat)),
      el("span", { class: "badge compass" }, compassName(seat, n)));
    if (view.dealer === seat) label.append(el("span", { class: "badge" }, gettext("dealer")));
    if (view.public?.ranks?.[seat]) label.append(el("span", { class: "badge" }, engineWords(view.public.ranks[seat])));
    if (replaced.has(seat)) label.append(el("span", { class: "badge" }, gettext("a bot plays")));
    const won = view.tricks_won[seat] ?? 0;
    label.append(el("span", { class: "badge" }, tr(ngettext("%(count)s trick", "%(count)s tricks", won), { count: won })));
    box.append(label);
    if (seat === mySeat) {
      const hand = el("ul", { class: "hand mine", "aria-label": gettext("Your hand") });
      for (const card of [...view.hand].sort(cardOrder)) {
        const action = `play ${card}`;
        const playable = myTurn && legal.has(action);
        const button = el("button", {
          type: "button",
          class: `card-button${playable ? " legal" : ""}`,
          "data-card": card,
          "aria-label": playable ? tr(gettext("%(card)s, playable"), { card: cardName(card) }) : cardName(card),
          tabindex: "-1",
          // Every card is sent (cardClicked): for one the rules forbid, the server's answer names the rule.
        }, cardImage(cardBase, card, { label: "" }));
        hand.append(el("li", {}, button));
      }
      box.append(hand);
    } else if (trakarl && seat === n - 1 && trakarl.length) {
      // Priffe's träkarl: its hand is public once the first card is led.
      const hand = el("ul", { class: "hand compact dummy", "aria-label": tr(gettext("Hand of %(name)s"), { name: nameOf(seat) }) });
      for (const card of [...trakarl].sort(cardOrder)) {
        const action = `play ${card}`;
        const playable = myTurn && legal.has(action);
        const item = playable
          ? el("button", { type: "button", class: "card-button legal", "data-card": card, "aria-label": tr(gettext("%(card)s from the dummy, playable"), { card: cardName(card) }), tabindex: "-1" }, cardImage(cardBase, card, { small: true, label: "" }))
          : cardImage(cardBase, card, { small: true });
        hand.append(el("li", {}, item));
      }
      box.append(hand);
    } else {
      const size = view.hand_sizes[seat] ?? 0;
      label.append(el("span", { class: "badge cards-left" }, tr(ngettext("%(count)s card", "%(count)s cards", size), { count: size })));
      const hand = el("ul", { class: "hand compact", "aria-label": tr(ngettext("%(name)s holds %(count)s card", "%(name)s holds %(count)s cards", size), { name: nameOf(seat), count: size }) });
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
    slot.append(cardImage(cardBase, card, { label: tr(gettext("%(name)s played the %(card)s"), { name: nameOf(seat), card: cardName(card) }) }));
    slots[where[seat]].append(slot);
  });
  if (winner !== null) {
    centre.append(el("p", { class: "trick-note" }, tr(gettext("%(name)s won the trick"), { name: nameOf(winner) })));
  }
  renderPresence(board);
  morph(part("board"), [...board.childNodes]);
}

/** A card of the hand (or of the dummy) clicked: sent, playable or not. */
function cardClicked(event) {
  const button = event.target.closest?.("button.card-button[data-card]");
  if (button && part("board").contains(button)) send(`play ${button.dataset.card}`);
}

/** A bid or choice clicked: sent. */
function choiceClicked(event) {
  const button = event.target.closest?.("button[data-action]");
  if (button && part("choices").contains(button)) send(button.dataset.action);
}

/** A choice under the pointer or the focus: what it does, below the choices. */
function choiceDescribed(event) {
  const button = event.target.closest?.("button[data-action]");
  if (button && part("choices").contains(button)) setText(part("explanation"), button.title || "");
}

/** Bids and choices: every legal action that is not a card, under the game's plain label
 * of its kind, with what it does (the game's explanation) on hover, focus and below. */
function renderChoices(data, view) {
  const choices = part("choices");
  const groups = choiceGroups(data, view);
  if (!groups.length) setText(part("explanation"), "");
  morph(choices, groups);
}

/** The groups of choice buttons (none unless it is this person's move). */
function choiceGroups(data, view) {
  if (!data.your_turn || sending) return [];
  const drawn = [];
  const labelled = new Map((data.actions ?? []).map((a) => [a.action, a]));
  const groups = new Map();
  for (const action of view.legal.filter((a) => !a.startsWith("play "))) {
    const given = labelled.get(action) ?? { action, label: "", explanation: "" };
    const info = { ...given, label: engineWords(given.label), explanation: engineWords(given.explanation) };
    if (!groups.has(info.label)) groups.set(info.label, []);
    groups.get(info.label).push(info);
  }
  for (const [label, actions] of groups) {
    const group = el("div", { class: "choice-group", role: "group", "aria-label": label || gettext("Choices") });
    // The label of the kind ("Bid:", "Choose a contract:"), unless it only repeats the action.
    if (label && actions.some((info) => info.action !== label)) {
      group.append(el("span", { class: "choice-label" }, `${label[0].toUpperCase()}${label.slice(1)}:`));
    }
    for (const info of actions) {
      // Clicked: choiceClicked; under the pointer or the focus: choiceDescribed.
      group.append(el("button", {
        type: "button",
        class: "primary",
        "data-action": info.action,
        title: info.explanation || null,
        "aria-description": info.explanation || null,
      }, actionWords(info.action)));
    }
    drawn.push(group);
  }
  return drawn;
}

function renderMoved(data) {
  const box = part("moved");
  const moved = Array.isArray(data.moved_for_you) ? data.moved_for_you : [];
  if (!moved.length) {
    box.hidden = true;
    morph(box, []);
    return;
  }
  const latest = moved[moved.length - 1];
  const items = moved.map((m) => el("li", {}, movedWords(m)));
  const earlier = moved.length > 1
    ? [el("details", {}, el("summary", {}, tr(gettext("All %(count)s moves played for you"), { count: moved.length })), el("ol", {}, items))]
    : [];
  morph(box, [el("strong", {}, movedWords(latest)), ...earlier]);
  box.hidden = false;
}

function renderWaiting(data) {
  const box = part("waiting");
  const waiting = phaseOf(data) === "waiting_for_players";
  box.hidden = !waiting;
  if (!waiting) return;
  const missing = Array.isArray(data.missing) ? data.missing : [];
  morph(part("missing"), missing.map((m) => el("li", {},
    `${compassName(m.seat, seatCount)}: `, m.invitee ? tr(gettext("waiting for %(name)s to accept"), { name: m.invitee }) : gettext("an open seat, for whoever has the link"))));
}

function renderFacts(view) {
  const rows = [[gettext("Game"), root.dataset.gameName || view.game]];
  if (view.deal) rows.push([gettext("Deal"), view.deals ? tr(gettext("%(deal)s of %(deals)s"), { deal: view.deal, deals: view.deals }) : String(view.deal)]);
  if (view.contract) rows.push([gettext("Contract"), contractWords(view.contract)]);
  rows.push([gettext("Trumps"), view.trump ? suitWords(view.trump) : gettext("none")]);
  const pub = view.public ?? {};
  if (Array.isArray(pub.bids) && pub.bids.length) {
    rows.push([gettext("Bids"), pub.bids.map((b) => `${nameOf(b.seat)}: ${actionWords(String(b.bid))}`).join(", ")]);
  }
  if (Array.isArray(pub.auction) && pub.auction.length) {
    rows.push([gettext("Auction"), pub.auction.map((b) => (typeof b === "object" ? `${nameOf(b.seat)}: ${actionWords(String(b.bid ?? b.action ?? ""))}` : String(b))).join(", ")]);
  }
  if (Array.isArray(pub.partners)) {
    rows.push([gettext("Partners"), pub.partners.map((pair) => pair.map(nameOf).join(" & ")).join(gettext(" vs "))]);
  }
  const priv = view.private ?? {};
  for (const [key, value] of Object.entries(priv)) {
    rows.push([tr(gettext("Yours: %(what)s"), { what: engineWords(key.replaceAll("_", " ")) }), Array.isArray(value) ? value.map((v) => engineWords(String(v))).join(" ") : engineWords(String(value))]);
  }
  morph(part("facts"), rows.flatMap(([t, v]) => [el("dt", {}, t), el("dd", {}, v)]));

  const n = view.hand_sizes.length;
  const header = el("tr", {}, el("th", { scope: "col" }, gettext("Deal")),
    ...Array.from({ length: n }, (_, s) => el("th", { scope: "col", class: "num" }, breakableName(nameOf(s)))));
  const rowsHtml = view.deal_scores.map((scores, i) => el("tr", {}, el("th", { scope: "row" }, `${i + 1}`),
    ...scores.map((x) => el("td", { class: "num" }, x))));
  morph(part("scores"), [el("table", { class: "data" },
    el("caption", { class: "visually-hidden" }, gettext("Scores of each deal and the totals")),
    el("thead", {}, header), el("tbody", {}, ...rowsHtml),
    el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, gettext("Total")),
      ...view.scores.map((x) => el("td", { class: "num" }, el("strong", {}, x))))))]);
}

function renderStatus(data, phase) {
  const view = data.view;
  const status = part("status");
  rootData("yourTurn", data.your_turn && !sending ? "true" : "false");
  signals.update(Boolean(data.your_turn) && phase === "your_move");
  rootData("over", phase === "finished" || phase === "error" ? "true" : "false");
  const toAct = data.to_act ?? view?.to_act;
  if (sending) {
    setText(status, gettext("Sending your move…"));
    return;
  }
  switch (phase) {
    case "waiting_for_players": {
      const count = (data.missing ?? []).length;
      setText(status, tr(ngettext("Waiting for %(count)s more player to sit down.", "Waiting for %(count)s more players to sit down.", count), { count }));
      break;
    }
    case "your_move": {
      const cards = view.legal.filter((a) => a.startsWith("play ")).length;
      setText(status, cards ? gettext("Your move: play one of the marked cards.") : gettext("Your move: choose below."));
      break;
    }
    case "player_to_move":
      setText(status, toAct === mySeat ? gettext("Your move…") : tr(gettext("%(name)s to move…"), { name: nameOf(toAct) }));
      break;
    case "trick_won": { // drawn from a socket update: a deal's last trick, or the game's
      const last = view?.tricks?.[view.tricks.length - 1];
      setText(status, last ? tr(gettext("%(name)s won the last trick."), { name: nameOf(last.winner) }) : "");
      break;
    }
    case "bots_to_move":
      setText(status, toAct === mySeat && data.replaced
        ? (presence.of(mySeat)?.bot_for_absent ? gettext("A bot plays your seat until the next deal…") : gettext("A bot plays your seat for the rest of this game…"))
        : toAct === undefined || toAct === null ? gettext("The bots are thinking…")
          : toAct === mySeat ? gettext("Your move…")
            : personSeats.has(toAct) ? tr(gettext("%(name)s to move…"), { name: nameOf(toAct) })
              : tr(gettext("%(name)s is thinking…"), { name: nameOf(toAct) }));
      break;
    case "finished": {
      const text = view
        ? tr(gettext("The game is over. Scores: %(scores)s."), { scores: view.scores.map((s, i) => `${nameOf(i)} ${s}`).join(", ") })
        : gettext("The game is over.");
      status.replaceChildren(text, " ",
        root.dataset.recordUrl ? el("a", { href: root.dataset.recordUrl }, gettext("See the replay")) : "");
      // A people's table: Rematch and New table with these players (web/_play_again.html).
      const again = document.querySelector("[data-role=play-again]");
      if (again) again.hidden = false;
      break;
    }
    case "error":
      setText(status, tr(gettext("This game was stopped: %(reason)s."), { reason: data.error || gettext("an error") }));
      break;
    default:
      setText(status, "");
  }
  // Once this person's move is done (or on arrival, or at the end): where else they are due.
  if (phase === "your_move") part("next-game").hidden = true;
  else if (lastPhase === null || lastPhase === "your_move" || (phase === "finished" && lastPhase !== phase)) lookForNextGame();
  lastPhase = phase;
}

function startDeadline(deadline, mine) {
  window.clearInterval(deadlineTimer);
  const box = part("deadline");
  if (!deadline) {
    setText(box, "");
    box.classList.remove("urgent");
    return;
  }
  const end = Date.parse(deadline);
  const tick = () => {
    const left = Math.max(0, Math.round((end - Date.now()) / 1000));
    const days = Math.floor(left / 86400);
    const hours = Math.floor((left % 86400) / 3600);
    const minutes = Math.floor((left % 3600) / 60);
    const seconds = String(left % 60).padStart(2, "0");
    const clock = days ? tr(gettext("%(days)s d %(hours)s h"), { days, hours }) : hours ? tr(gettext("%(hours)s h %(minutes)s min"), { hours, minutes }) : `${minutes}:${seconds}`;
    setText(box, mine ? tr(gettext("Time for this move: %(clock)s"), { clock }) : tr(gettext("Time left for their move: %(clock)s"), { clock }));
    box.classList.toggle("urgent", mine && left <= 10);
    if (mine && (left === 30 || left === 10)) announce(tr(gettext("%(seconds)s seconds left for your move"), { seconds: left }));
    if (left === 0) window.clearInterval(deadlineTimer);
  };
  tick();
  deadlineTimer = window.setInterval(tick, 1000);
}

/** A link to the next game where it is this person's move, if one awaits them. */
async function lookForNextGame() {
  const link = part("next-game");
  const url = root.dataset.nextUrl;
  if (!url) return;
  try {
    // {"match", "seat", "deadline", "game_name", "url"}, all null when no game awaits.
    const next = await fetchJSON(url);
    const href = next?.url ?? null;
    link.hidden = !href || next.match === matchId;
    if (href) {
      link.href = href;
      link.textContent = next.game_name ? tr(gettext("Next game where it is your move: %(game)s"), { game: next.game_name }) : gettext("Next game where it is your move");
    }
  } catch {
    link.hidden = true; // no such game, or the read is not there: nothing to offer
  }
}

// ---------------------------------------------------------------- talking to the server

/** Show `fresh`, the answer to request number `request`, unless something newer is shown. */
function accept(fresh, request) {
  if (request < shownRequest) return false;
  if (current && typeof fresh.position === "number" && typeof current.position === "number"
      && fresh.position < current.position) return false;
  if (hold && fresh.view && fresh.view.deal !== hold.deal) {
    // The next deal: shown once the last trick of this one has been seen.
    if (!hold.pending || request >= hold.pending[1]) hold.pending = [fresh, request];
    return true;
  }
  shownRequest = request;
  // Redraw only when something changed, so a card is never replaced under a finger.
  if (!current || JSON.stringify(fresh) !== JSON.stringify(current)) {
    current = fresh;
    render(current);
  }
  return true;
}

/** Fetch the view again; `eventIndex` is the event a socket update announced, if any.
 * One request at a time: a call while one is on its way asks for one more after it. */
async function refresh(eventIndex) {
  if (sending) {
    refetchDue = true;
    dueFrom = Math.max(dueFrom, typeof eventIndex === "number" ? eventIndex : Infinity);
    return;
  }
  if (fetching) {
    fetchAgain = true;
    return;
  }
  fetching = true;
  try {
    do {
      fetchAgain = false;
      requests += 1;
      const request = requests;
      const fresh = await fetchJSON(root.dataset.viewUrl);
      accept(fresh, request);
      rootData("ready", "true");
    } while (fetchAgain && !sending);
  } catch (error) {
    if (!current) part("status").textContent = tr(gettext("Could not load the table: %(reason)s"), { reason: error.message });
    else part("connection").textContent = gettext("offline");
  } finally {
    fetching = false;
  }
  poll(); // the next look, sooner while others are to play
}

/** `base` (an answer) with the cards of `events` (a socket update's public events) played:
 * {data, dealOver}, or null when the events do not follow `base` or hold no card. It draws
 * card play only, up to the first event it cannot draw (a deal, a bid): the refetch brings
 * the rest. The position it gives is that of the last card drawn, so a refetch that was
 * sent before the move and answered after it is dropped. */
function withCardsPlayed(base, events) {
  if (!base?.view || typeof base.position !== "number" || !Array.isArray(events)) return null;
  const fresh = events.filter((e) => typeof e.index === "number" && e.index >= base.position);
  if (!fresh.length || fresh[0].index !== base.position) return null;
  const data = JSON.parse(JSON.stringify(base));
  const view = data.view;
  let drew = false;
  let wonLast = false;
  let dealOver = false;
  for (const event of fresh) {
    if (event.chance) {
      dealOver = wonLast;
      break;
    }
    if (typeof event.action !== "string" || !event.action.startsWith("play ")) break;
    const card = event.action.slice(5);
    const seat = event.seat;
    if (!view.trick.length) view.leader = seat;
    view.trick.push(card);
    view.hand_sizes[seat] = Math.max(0, (view.hand_sizes[seat] ?? 1) - 1);
    view.hand = view.hand.filter((c) => c !== card);
    if (Array.isArray(view.public?.trakarl)) view.public.trakarl = view.public.trakarl.filter((c) => c !== card);
    wonLast = typeof event.won === "number";
    if (wonLast) {
      view.tricks.push({ leader: view.leader, cards: view.trick, winner: event.won });
      view.tricks_won[event.won] = (view.tricks_won[event.won] ?? 0) + 1;
      view.trick = [];
      view.leader = event.won;
      data.to_act = event.won;
    } else {
      const order = playOrder(view, view.leader);
      data.to_act = order[(order.indexOf(seat) + 1) % order.length];
    }
    data.position = event.index + 1;
    drew = true;
  }
  if (!drew) return null;
  // Nothing to send until the refetch says so; who is next, as far as the cards tell.
  view.legal = [];
  data.your_turn = false;
  data.actions = [];
  data.deadline = null;
  data.to_act_deadline = null;
  const emptied = wonLast && view.hand_sizes.every((size) => size === 0);
  if (dealOver || emptied) {
    data.phase = "trick_won";
    data.to_act = null;
  } else {
    const next = (data.seats ?? [])[data.to_act];
    data.phase = next && next.kind === "person" && !next.replaced ? "player_to_move" : "bots_to_move";
  }
  view.to_act = data.to_act ?? -1;
  return { data, dealOver };
}

/** A socket update: draw its cards now, keep a deal's last trick in view, then refetch. */
function updated(message) {
  // A card played since (or more than an update carries): the next deal is under way.
  const events = Array.isArray(message.events) ? message.events : null;
  const played = events && events.some((e) => typeof e.action === "string" && e.action.startsWith("play "));
  if (hold && !hold.awaiting && (!events || played)) releaseHold();
  const drawn = withCardsPlayed(current, message.events);
  if (drawn) {
    current = drawn.data;
    render(current);
    if (drawn.dealOver || hold?.awaiting) {
      // The deal's last trick, now on the table: the next deal (already answered, if the
      // person's own card ended the deal) waits LAST_TRICK_MS.
      const pending = hold ? hold.pending : null;
      if (hold) window.clearTimeout(hold.timer);
      hold = { deal: current.view.deal, pending, timer: window.setTimeout(releaseHold, LAST_TRICK_MS) };
    }
  }
  window.clearTimeout(laterTimer);
  const notNext = drawn && !drawn.dealOver && drawn.data.to_act !== Number(root.dataset.seat);
  if (notNext) laterTimer = window.setTimeout(() => refresh(message.event_index), NOT_NEXT_REFETCH_MS);
  else refresh(message.event_index);
}

function releaseHold() {
  if (!hold) return;
  const pending = hold.pending;
  window.clearTimeout(hold.timer);
  hold = null;
  if (pending) accept(pending[0], pending[1]);
}

async function send(action) {
  if (sending) return;
  sending = true;
  refetchDue = false;
  dueFrom = -1;
  showError("");
  requests += 1;
  const request = requests;
  // The move leaves before the page redraws (a slow phone's redraw would delay it for
  // everyone at the table); no card is playable while it is on its way.
  const answer = fetchJSON(root.dataset.actionUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify({ action }),
  });
  if (current) render(current);
  try {
    const data = await answer;
    sending = false;
    if (data && (data.view || data.phase)) {
      if (!hold && data.view && current?.view && data.view.deal !== current.view.deal
          && socket && socket.isOpen && socket.isOpen()) {
        // The person's card ended the deal and a worker dealt the next one before the
        // answer was read: the last trick comes on the socket (its update carries the card
        // and the trick's winner); the next deal is shown after it, or after
        // LAST_TRICK_MS if no update draws it.
        hold = { deal: current.view.deal, pending: [data, request], awaiting: true,
          timer: window.setTimeout(releaseHold, LAST_TRICK_MS) };
      } else accept(data, request);
      // The answer is the view read after the move. With the socket live, the page asks
      // again only if an update meanwhile announced an event the answer does not hold (the
      // bots played on); later ones come on the socket. A refetch here would be one more
      // request on the server at the moment the other pages fetch the move.
      const answered = typeof data.position === "number" ? data.position : -1;
      const live = socket && socket.isOpen && socket.isOpen();
      if (live && dueFrom < answered) {
        refetchDue = false;
        poll();
        return;
      }
    } else if (current) render(current);
  } catch (error) {
    sending = false;
    showError(error.message);
    if (current) render(current);
  }
  // The bots may have played since the move was answered, or an update came meanwhile.
  refetchDue = false;
  await refresh();
}

function poll() {
  // The socket makes updates instant; the poll is the safety net: often while others are
  // to play and the socket is down, seldom on this seat's turn or once the game is over.
  window.clearTimeout(pollTimer);
  const phase = current ? phaseOf(current) : "loading";
  const socketLive = socket && socket.isOpen && socket.isOpen();
  let pause;
  if (phase === "finished" || phase === "error") pause = socketLive ? null : 30000;
  else if (phase === "your_move" || phase === "waiting_for_players") pause = socketLive ? 15000 : 5000;
  else pause = socketLive ? 4000 : 1500;
  if (pause !== null) pollTimer = window.setTimeout(refresh, pause);
}

function connectionState(state) {
  const badge = part("connection");
  badge.textContent = {
    live: gettext("live"),
    reconnecting: gettext("reconnecting…"),
    restarting: gettext("the server is restarting; reconnecting…"),
    offline: "",
  }[state] ?? "";
  badge.dataset.state = state;
}

rovingKeys(part("board"));
rovingKeys(part("choices"));
part("board").addEventListener("click", cardClicked);
part("choices").addEventListener("click", choiceClicked);
part("choices").addEventListener("mouseover", choiceDescribed);
part("choices").addEventListener("focusin", choiceDescribed);
refresh();
socket = liveSocket(root.dataset.socketUrl, {
  onMessage: (message) => {
    if (message.type === "update") updated(message);
    else if (message.type === "chat") chat?.receive(message.chat);
    else if (message.type === "presence") presence.receive(message);
  },
  onState: connectionState,
  onOpen: () => {
    presence.beat(socket);
    // Catch up on whatever happened while disconnected.
    refresh();
    chat?.catchUp();
  },
});
// Leaving the page closes its socket at once, so the others see this person gone within
// seconds even where the browser keeps the page in its back-forward cache; a page brought
// back from that cache loads afresh.
window.addEventListener("pagehide", () => socket.close());
window.addEventListener("pageshow", (event) => {
  if (event.persisted) window.location.reload();
});
window.addEventListener("online", refresh);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") refresh();
});
