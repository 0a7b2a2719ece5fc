// The replay viewer: steps through a game record (docs/record-format.md) card by card.
//
// It reads two documents named by data attributes of #replay:
//   data-record-url    the game record (for a running match, a redacted one: null hands);
//   data-timeline-url  the public facts after each event, computed by the engine on the
//                      server (engine/timeline.py): contract, trumps, dealer, trick winners, ...
// A step is "deal d, event k": the state after the first k events of deal d. The URL's
// hash names it (#deal=3&event=17), so any step can be linked and reloads to itself.
// With data-socket-url, a running match refetches both documents on each "update". A
// standalone page (engine/viewer, no server) has both inline in #replay-documents instead.
// Play/pause (or Space) steps forward by itself at the chosen speed and stops at the end;
// a bid or a choice shows what it means under the game's rules (the timeline's "explain").
// With data-analysis-url (a finished match) and its analysis done, each card played shows
// its cost and the best card beside it, the deal's marked cards are listed (each a button
// to its step) and marked in the event log, and a chart shows the points lost per trick.

import {
  actionWords, boardAreas, breakableName, cardImage, cardShort, compassName, readersBottomSeat, contractWords, csrfToken, el, engineWords, fetchJSON, liveSocket, seatAreas, suitWords, tr,
} from "./cards.js";

const root = document.getElementById("replay");
const part = (role) => root.querySelector(`[data-role="${role}"]`);
const cardBase = root.dataset.cardUrl;

let record = null;
let deals = []; // [{number, events, scores, steps, startFacts, trickEnds}]
let position = { deal: 0, event: 1 };
let seatNames = [];
let numSeats = 4;
let timelineProblem = "";
let analysis = null; // {byStep: Map("deal/event" -> verdict), deals: Map(deal -> chart)}

// ---------------------------------------------------------------- loading

function applySet(facts, step) {
  if (step && step.set) Object.assign(facts, step.set);
  return facts;
}

function seatsWithCards(events) {
  const deal = events.find((e) => e.chance === "deal");
  if (!deal) return numSeats;
  return deal.cards.filter((cards) => cards === null || cards.length > 0).length;
}

function build(newRecord, timeline) {
  record = newRecord;
  numSeats = record.seats.length;
  const names = record.seats.map((s, i) => s.name || s.player || compassName(i, numSeats));
  seatNames = names.map((name, seat) =>
    names.filter((other) => other === name).length > 1 ? tr(gettext("%(name)s (%(compass)s)"), { name, compass: compassName(seat, numSeats) }) : name);
  const good = timeline && !timeline.error && Array.isArray(timeline.deals);
  const facts = {};
  if (good) for (const step of timeline.prelude) applySet(facts, step);
  deals = record.deals.map((deal, index) => {
    const steps = good ? timeline.deals[index] ?? [] : [];
    const startFacts = { ...facts };
    for (const step of steps) applySet(facts, step);
    // Steps at which a trick is complete: from the timeline, else every N cards.
    const trickEnds = [];
    const perTrick = seatsWithCards(deal.actions);
    let cards = 0;
    deal.actions.forEach((event, i) => {
      const won = steps[i] && "won" in steps[i];
      if (event.action && event.action.startsWith("play ")) cards += 1;
      if (good ? won : event.action?.startsWith("play ") && cards % perTrick === 0) {
        trickEnds.push(i + 1);
      }
    });
    return {
      number: deal.deal,
      events: deal.actions,
      scores: deal.scores ?? null,
      steps,
      startFacts,
      trickEnds,
    };
  });
  timelineProblem = timeline && timeline.error
    ? tr(gettext(" (shown without the engine's facts such as trick winners: %(reason)s)"), { reason: timeline.error })
    : "";
}

const MARK_WORDS = {
  inaccuracy: () => gettext("inaccuracy"),
  mistake: () => gettext("mistake"),
  blunder: () => gettext("blunder"),
};

const REASON_WORDS = {
  "over the node budget": () => gettext("over the solver's budget"),
  "a sampled deal over the node budget": () => gettext("a sampled deal over the solver's budget"),
  "earlier in a deal than a position over the node budget": () => gettext("earlier in the deal than a position over the solver's budget"),
  "the seat's view does not add up to a deal": () => gettext("the player's view does not add up to a deal"),
  "not a position the solver reads": () => gettext("not a position the solver reads"),
  "over the match's time budget": () => gettext("over the analysis's time budget"),
};

async function loadAnalysis() {
  const panel = part("analysis");
  if (!root.dataset.analysisUrl || !panel || panel.dataset.status !== "done") return;
  try {
    const data = await fetchJSON(root.dataset.analysisUrl);
    const byStep = new Map();
    for (const card of data.cards) byStep.set(`${card.deal}/${card.event}`, card);
    analysis = { byStep, deals: new Map(data.deals.map((d) => [d.deal, d])) };
  } catch (error) {
    part("analysis-status").textContent = tr(gettext("Could not load the analysis: %(reason)s"), { reason: error.message });
  }
}

function verdictAt(dealNumber, event) {
  return analysis ? analysis.byStep.get(`${dealNumber}/${event}`) ?? null : null;
}

function points(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

function renderAnalysisCard(deal) {
  const box = part("analysis-card");
  if (!box || !analysis) return;
  const verdict = verdictAt(deal.number, position.event);
  if (!verdict) {
    box.replaceChildren(el("p", {}, gettext("Step to a card played to see what it cost.")));
    return;
  }
  const name = seatNames[verdict.player];
  if (!verdict.analysed) {
    box.replaceChildren(el("p", {}, tr(gettext("%(name)s played the %(card)s: not analysed (%(reason)s)."), { name, card: cardNameOf(verdict.card), reason: REASON_WORDS[verdict.reason]?.() ?? verdict.reason })));
    return;
  }
  // The best card shown is the one played when it is among the best: not a rival of equal worth.
  const bestCard = verdict.best.includes(verdict.card) ? verdict.card : verdict.best[0];
  const played = el("figure", { class: "analysis-played" }, cardImage(cardBase, verdict.card, { small: true }), el("figcaption", {}, gettext("played")));
  const best = el("figure", { class: "analysis-best" }, cardImage(cardBase, bestCard, { small: true }), el("figcaption", {}, gettext("best")));
  const words = verdict.forced
    ? tr(gettext("%(name)s played the %(card)s, the only card allowed."), { name, card: cardNameOf(verdict.card) })
    : tr(gettext("%(name)s played the %(card)s. Best with all hands known: %(best)s (points lost: %(cost)s). Best as %(name)s could know it: %(view_best)s (points lost: %(view_cost)s)."), {
      name,
      card: cardNameOf(verdict.card),
      best: bestCards(verdict.best, verdict.card),
      cost: points(verdict.cost),
      view_best: bestCards(verdict.view_best, verdict.card),
      view_cost: points(verdict.view_cost),
    });
  const mark = verdict.mark ? el("span", { class: `badge mark-${verdict.mark}` }, MARK_WORDS[verdict.mark]()) : null;
  box.replaceChildren(el("div", { class: "analysis-cards" }, played, best), el("p", {}, words, " ", mark));
}

const BEST_NAMED = 3;

/** Cards of equal best worth in words: the one played first if it is one of them, at most
 * BEST_NAMED named and the rest counted. */
function bestCards(cards, played) {
  const ordered = cards.includes(played) ? [played, ...cards.filter((c) => c !== played)] : cards;
  const named = ordered.slice(0, BEST_NAMED).map(cardNameOf).join(", ");
  const more = ordered.length - BEST_NAMED;
  if (more <= 0) return named;
  return tr(ngettext("%(cards)s and %(count)s more card", "%(cards)s and %(count)s more cards", more), { cards: named, count: more });
}

function renderAnalysisMarks(deal) {
  const list = part("analysis-marks");
  if (!list || !analysis) return;
  const items = [];
  deal.events.forEach((event, i) => {
    const verdict = verdictAt(deal.number, i + 1);
    if (!verdict || !verdict.mark) return;
    const text = tr(gettext("Trick %(number)s, %(name)s: %(card)s, %(mark)s"), { number: verdict.trick, name: seatNames[verdict.player], card: cardNameOf(verdict.card), mark: MARK_WORDS[verdict.mark]() });
    items.push(el("li", { class: `mark-${verdict.mark}` }, el("button", { type: "button", class: "link-button", "aria-current": position.event === i + 1 ? "step" : null, onclick: () => go(position.deal, i + 1) }, text)));
  });
  list.replaceChildren(...items);
  list.hidden = !items.length;
  // Nothing marked is said in a paragraph: an ordered list would number it "1."
  const none = part("analysis-marks-none");
  if (none) {
    none.textContent = gettext("No card of this deal is marked.");
    none.hidden = items.length > 0;
  }
}

function renderAnalysisChart(deal) {
  const figure = part("analysis-chart");
  if (!figure || !analysis) return;
  const chart = analysis.deals.get(deal.number);
  const tricks = Math.max(1, ...deal.trickEnds.map((_, i) => i + 1));
  const lost = Array.from({ length: tricks }, (_, i) => {
    let sum = 0;
    for (const perTrick of Object.values(chart?.losses ?? {})) sum += perTrick[String(i + 1)] ?? 0;
    return sum;
  });
  const top = Math.max(...lost, 1e-9);
  // Bars of plain elements (no inline SVG): the figures are the chart's label for screen
  // readers, and each bar's title for a pointer.
  const summary = tr(gettext("Points lost per trick in deal %(deal)s: %(list)s"), { deal: deal.number, list: lost.map((v, i) => `${i + 1}: ${points(v)}`).join(", ") });
  const bars = el("div", { class: "analysis-bars", role: "img", "aria-label": summary });
  lost.forEach((value, i) => {
    const bar = el("span", { class: "analysis-bar", title: tr(gettext("Trick %(number)s, points lost: %(points)s"), { number: i + 1, points: points(value) }) });
    bar.style.height = `${value > 0 ? Math.max(4, Math.round((100 * value) / top)) : 0}%`;
    bars.append(bar);
  });
  const caption = el("figcaption", {}, gettext("Points lost per trick, as the players could know it."));
  if (chart && chart.not_analysed) caption.append(" ", tr(ngettext("%(count)s card not analysed.", "%(count)s cards not analysed.", chart.not_analysed), { count: chart.not_analysed }));
  figure.replaceChildren(bars, caption);
}

function trickMark(deal, end) {
  // The worst mark among the cards of the trick that ends at step `end`.
  const start = Math.max(0, ...deal.trickEnds.filter((e) => e < end));
  let worst = "";
  const order = ["", "inaccuracy", "mistake", "blunder"];
  for (let event = start + 1; event <= end; event += 1) {
    const mark = verdictAt(deal.number, event)?.mark ?? "";
    if (order.indexOf(mark) > order.indexOf(worst)) worst = mark;
  }
  return worst;
}

function requestAnalysis(button) {
  button.disabled = true;
  fetchJSON(root.dataset.analysisUrl, { method: "POST", headers: { Accept: "application/json", "X-CSRFToken": csrfToken() } })
    .then(() => { part("analysis-status").textContent = gettext("The analysis is under way: reload the page in a minute."); })
    .catch((error) => {
      part("analysis-status").textContent = tr(gettext("Could not ask for the analysis: %(reason)s"), { reason: error.message });
      button.disabled = false;
    });
}

// A standalone page (python -m engine show FILE --html OUT.html) carries both documents.
const inlineDocuments = document.getElementById("replay-documents");

async function load() {
  if (inlineDocuments) {
    const documents = JSON.parse(inlineDocuments.textContent);
    build(documents.record, documents.timeline);
    return;
  }
  const [newRecord, timeline] = await Promise.all([
    fetchJSON(root.dataset.recordUrl),
    root.dataset.timelineUrl
      ? fetchJSON(root.dataset.timelineUrl).catch((error) => ({ error: error.message }))
      : Promise.resolve(null),
  ]);
  build(newRecord, timeline);
}

// ---------------------------------------------------------------- the state at a step

function stateAt(dealIndex, count) {
  const deal = deals[dealIndex];
  const hands = Array.from({ length: numSeats }, () => []);
  const hidden = Array.from({ length: numSeats }, () => false);
  const facts = { ...deal.startFacts };
  let trick = [];
  let completed = false;
  let trickNumber = 0;
  let lastEvent = null;
  for (let i = 0; i < count && i < deal.events.length; i += 1) {
    const event = deal.events[i];
    const step = deal.steps[i] ?? {};
    applySet(facts, step);
    lastEvent = event;
    if (event.chance === "deal") {
      event.cards.forEach((cards, seat) => {
        if (cards === null) hidden[seat] = true;
        else hands[seat].push(...cards);
      });
      continue;
    }
    if (!event.action) continue;
    const [verb, ...rest] = event.action.split(" ");
    const seat = event.seat;
    if (verb === "play") {
      const card = rest[0];
      if (completed) {
        trick = [];
        completed = false;
      }
      hands[seat] = hands[seat].filter((c) => c !== card);
      trick.push({ seat, card });
      if (deal.trickEnds.includes(i + 1)) {
        trickNumber += 1;
        completed = true;
        trick.winner = "won" in step ? step.won : null;
      }
    } else if (verb === "redeal") {
      for (const hand of hands) hand.length = 0;
    } else if (step.transfer) {
      const [from, to] = step.transfer;
      const card = rest[0];
      if (card) {
        hands[from] = hands[from].filter((c) => c !== card);
        if (!hidden[to]) hands[to].push(card);
      }
    }
  }
  return { hands, hidden, facts, trick, completed, trickNumber, lastEvent };
}

// ---------------------------------------------------------------- rendering

function status(text) {
  part("status").textContent = text;
}

function seatLabel(seat, facts) {
  const label = el("div", { class: "seat-label" }, el("span", { class: "seat-name" }, seatNames[seat]),
    el("span", { class: "badge compass" }, compassName(seat, numSeats)));
  if (facts.dealer === seat) label.append(el("span", { class: "badge" }, gettext("dealer")));
  if (facts.ranks && facts.ranks[seat]) label.append(el("span", { class: "badge" }, engineWords(facts.ranks[seat])));
  if (facts.declarer === seat) label.append(el("span", { class: "badge" }, gettext("declarer")));
  if (facts.beneficiary === seat) label.append(el("span", { class: "badge" }, gettext("beneficiary")));
  if (facts.tricks_won) {
    const won = facts.tricks_won[seat] ?? 0;
    label.append(el("span", { class: "badge" }, tr(ngettext("%(count)s trick", "%(count)s tricks", won), { count: won })));
  }
  return label;
}

function renderBoard(state) {
  const board = part("board");
  board.replaceChildren();
  const areas = boardAreas(board, "area");
  const centre = el("div", { class: "centre" });
  board.append(centre);
  const slots = boardAreas(centre, "slot");
  const where = seatAreas(numSeats, readersBottomSeat(numSeats));
  const toAct = state.facts.to_act;
  for (let seat = 0; seat < numSeats; seat += 1) {
    const cards = [...state.hands[seat]].sort(cardOrder);
    const box = el("section", {
      class: `seat${toAct === seat ? " to-act" : ""}`,
      "data-position": where[seat],
      "data-seat": seat,
      "aria-label": toAct === seat ? tr(gettext("%(name)s, to act"), { name: seatNames[seat] }) : seatNames[seat],
    });
    box.append(seatLabel(seat, state.facts));
    const hand = el("ul", { class: "hand compact", "aria-label": tr(gettext("Hand of %(name)s"), { name: seatNames[seat] }) });
    for (const card of cards) hand.append(el("li", {}, cardImage(cardBase, card, { small: true })));
    if (state.hidden[seat]) {
      const size = state.facts.hand_sizes ? state.facts.hand_sizes[seat] : null;
      const shown = Math.max(0, (size ?? 0) - cards.length);
      for (let i = 0; i < Math.min(shown, 13); i += 1) {
        hand.append(el("li", {}, cardImage(cardBase, null, { small: true })));
      }
      box.append(el("p", { class: "hidden-hand" }, size === null ? gettext("Cards hidden") : tr(ngettext("%(count)s card, hidden", "%(count)s cards, hidden", size), { count: size })));
    }
    box.append(hand);
    areas[where[seat]].append(box);
  }
  for (const { seat, card } of state.trick) {
    const winner = state.completed && state.trick.winner === seat;
    const slot = el("div", { class: `played${winner ? " winner" : ""}`, "data-position": where[seat], "data-seat": seat });
    slot.append(cardImage(cardBase, card, { label: tr(winner ? gettext("%(name)s played the %(card)s and won the trick") : gettext("%(name)s played the %(card)s"), { name: seatNames[seat], card: cardNameOf(card) }) }));
    slots[where[seat]].append(slot);
  }
  if (state.completed) {
    const winner = state.trick.winner;
    centre.append(el("p", { class: "trick-note" }, winner === null || winner === undefined ? tr(gettext("Trick %(number)s"), { number: state.trickNumber }) : tr(gettext("Trick %(number)s: %(name)s wins"), { number: state.trickNumber, name: seatNames[winner] })));
  }
}

function cardNameOf(card) {
  return cardImage(cardBase, card).querySelector("img").alt;
}

const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };
const RANK_ORDER = "23456789TJQKA";
function cardOrder(a, b) {
  const suit = SUIT_ORDER[a[1]] - SUIT_ORDER[b[1]];
  return suit !== 0 ? suit : RANK_ORDER.indexOf(b[0]) - RANK_ORDER.indexOf(a[0]);
}

function describe(event) {
  if (event.chance === "deal") return event.exposed ? tr(gettext("Cards dealt; %(card)s shown"), { card: cardShort(event.exposed) }) : gettext("Cards dealt");
  if (event.chance === "draw") return gettext("Cards drawn");
  if (event.chance === "first_dealer") return tr(gettext("First dealer: %(name)s"), { name: seatNames[event.seat] });
  if (event.chance) return event.chance;
  return `${seatNames[event.seat]}: ${actionWords(event.action)}`;
}

function renderFacts(state) {
  const facts = state.facts;
  const deal = deals[position.deal];
  const rows = [
    [gettext("Game"), root.dataset.gameName || record.game],
    [gettext("Deal"), record.complete ? tr(gettext("%(deal)s of %(deals)s"), { deal: deal.number, deals: deals.length }) : tr(gettext("%(deal)s of %(deals)s so far"), { deal: deal.number, deals: deals.length })],
  ];
  if (facts.dealer !== undefined && facts.dealer >= 0) rows.push([gettext("Dealer"), seatNames[facts.dealer]]);
  if (facts.contract) rows.push([gettext("Contract"), contractWords(facts.contract)]);
  rows.push([gettext("Trumps"), facts.trump ? suitWords(facts.trump) : gettext("none")]);
  if (facts.to_act !== undefined && facts.to_act >= 0) rows.push([gettext("To act"), seatNames[facts.to_act]]);
  if (facts.partners) rows.push([gettext("Partners"), facts.partners.map((pair) => pair.map((s) => seatNames[s]).join(" & ")).join(gettext(" vs "))]);
  if (facts.direction) rows.push([gettext("Direction"), engineWords(String(facts.direction))]);
  if (facts.high_bid) rows.push([gettext("High bid"), `${actionWords(String(facts.high_bid))}${facts.high_bidder >= 0 ? ` (${seatNames[facts.high_bidder]})` : ""}`]);
  const exposed = deal.events.find((e) => e.chance === "deal" && e.exposed);
  if (exposed) rows.push([gettext("Shown card"), cardShort(exposed.exposed)]);
  const prelude = (record.prelude ?? []).map(describePrelude).filter(Boolean);
  if (prelude.length && position.deal === 0) rows.push([gettext("Before the deals"), prelude.join("; ")]);
  const list = part("facts");
  list.replaceChildren(...rows.flatMap(([term, value]) => [el("dt", {}, term), el("dd", {}, value)]));
}

function describePrelude(event) {
  if (event.chance === "first_dealer") return tr(gettext("%(name)s deals first"), { name: seatNames[event.seat] });
  if (event.chance === "draw") {
    return gettext("drawn: ") + event.cards.map((cards, seat) => (cards && cards.length ? `${seatNames[seat]} ${cards.map(cardShort).join(" ")}` : null)).filter(Boolean).join(", ");
  }
  if (event.action) return `${seatNames[event.seat]}: ${actionWords(event.action)}`;
  return null;
}

function renderLog() {
  const deal = deals[position.deal];
  const list = part("event-log");
  list.replaceChildren();
  let trick = 0;
  let current = null;
  deal.events.forEach((event, i) => {
    const count = i + 1;
    let text = null;
    if (event.action && event.action.startsWith("play ")) {
      if (!deal.trickEnds.includes(count)) return;
      trick += 1;
      const step = deal.steps[i];
      text = step && "won" in step ? tr(gettext("Trick %(number)s: %(name)s wins"), { number: trick, name: seatNames[step.won] }) : tr(gettext("Trick %(number)s"), { number: trick });
    } else {
      text = describe(event);
    }
    const explanation = engineWords(deal.steps[i]?.explain);
    const mark = analysis && event.action?.startsWith("play ") ? trickMark(deal, count) : "";
    const item = el("li", { "data-event": count, "data-mark": mark || null },
      el("button", { type: "button", class: "link-button", title: explanation || null, onclick: () => go(position.deal, count) }, text),
      mark ? el("span", { class: `badge mark-${mark}` }, MARK_WORDS[mark]()) : null);
    if (count <= position.event) current = item;
    list.append(item);
  });
  if (current) {
    current.classList.add("current");
    current.setAttribute("aria-current", "step");
    // Scroll the list, not the page, to the current entry.
    list.scrollTop = Math.max(0, current.offsetTop - list.offsetTop - list.clientHeight / 2);
  }
}

function renderScores() {
  const rows = [];
  const totals = Array(numSeats).fill(0);
  deals.forEach((deal, index) => {
    const over = index < position.deal || (index === position.deal && position.event === deal.events.length);
    if (!deal.scores || !over) return;
    deal.scores.forEach((s, seat) => { totals[seat] += s; });
    rows.push(el("tr", { class: index === position.deal ? "current" : null },
      el("th", { scope: "row" }, deal.number),
      ...deal.scores.map((s) => el("td", { class: "num" }, s))));
  });
  const table = el("table", { class: "data" },
    el("caption", { class: "visually-hidden" }, gettext("Scores of each deal and the running totals")),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, gettext("Deal")), ...seatNames.map((n) => el("th", { scope: "col", class: "num" }, breakableName(n))))),
    el("tbody", {}, ...rows),
    el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, gettext("Total")), ...totals.map((t) => el("td", { class: "num" }, el("strong", {}, t))))));
  part("scores").replaceChildren(table);
}

function stepHash(dealIndex, event) {
  return `#deal=${deals[dealIndex].number}&event=${event}`;
}

function render() {
  const deal = deals[position.deal];
  const state = stateAt(position.deal, position.event);
  renderBoard(state);
  renderFacts(state);
  renderLog();
  renderScores();
  renderAnalysisCard(deal);
  renderAnalysisMarks(deal);
  renderAnalysisChart(deal);
  const last = state.lastEvent ? describe(state.lastEvent) : "";
  part("step-label").textContent = tr(gettext("Deal %(deal)s · event %(event)s of %(events)s"), { deal: deal.number, event: position.event, events: deal.events.length }) + (last ? ` · ${last}` : "");
  const explanation = engineWords(deal.steps[position.event - 1]?.explain ?? "");
  const explained = part("explanation");
  explained.hidden = !explanation;
  explained.textContent = explanation ? `${last}: ${explanation}` : "";
  const select = part("deal-select");
  if (select.options.length !== deals.length) {
    select.replaceChildren(...deals.map((d, i) => el("option", { value: i }, d.number)));
  }
  select.value = String(position.deal);
  const hash = stepHash(position.deal, position.event);
  part("step-link").setAttribute("href", hash);
  if (window.location.hash !== hash) history.replaceState(null, "", hash);
  const atStart = position.deal === 0 && position.event <= 1;
  const atEnd = position.deal === deals.length - 1 && position.event >= deal.events.length;
  for (const button of root.querySelectorAll("[data-step]")) {
    const backwards = ["back", "trick-back", "deal-start", "deal-back"].includes(button.dataset.step);
    button.disabled = backwards ? atStart : atEnd;
  }
}

// ---------------------------------------------------------------- autoplay

const STEP_MS = { card: 900, trick: 1500, other: 1600 };
// At 1x: a card every 0.9 s, a little longer to look at a finished trick, and longer for a
// bid or a choice, whose explanation is there to be read. The speed divides them.
let playing = null; // the pending timer while playing

function atEnd() {
  return position.deal === deals.length - 1 && position.event >= deals[deals.length - 1].events.length;
}

function speed() {
  const value = Number.parseFloat(part("speed").value);
  return Number.isFinite(value) && value > 0 ? value : 1;
}

function delayAfter(dealIndex, event) {
  const deal = deals[dealIndex];
  const shown = deal.events[event - 1];
  const kind = !shown?.action ? "other"
    : !shown.action.startsWith("play ") ? "other"
      : deal.trickEnds.includes(event) ? "trick" : "card";
  return STEP_MS[kind] / speed();
}

function showPlaying(on) {
  const button = part("play");
  button.setAttribute("aria-pressed", on ? "true" : "false");
  button.textContent = on ? `❚❚ ${gettext("Pause")}` : `▶ ${gettext("Play")}`;
  root.dataset.playing = on ? "true" : "false";
}

function tick() {
  if (atEnd()) {
    stopPlaying();
    return;
  }
  move("forward");
  playing = window.setTimeout(tick, delayAfter(position.deal, position.event));
}

function startPlaying() {
  if (playing !== null || !deals.length) return;
  if (atEnd()) go(0, 1); // from the end, play the game again from its start
  showPlaying(true);
  playing = window.setTimeout(tick, delayAfter(position.deal, position.event));
}

function stopPlaying() {
  if (playing !== null) window.clearTimeout(playing);
  playing = null;
  showPlaying(false);
}

function togglePlaying() {
  if (playing === null) startPlaying();
  else stopPlaying();
}

function restartTimer() {
  // A new speed takes effect at once rather than after the step already waited for.
  if (playing === null) return;
  window.clearTimeout(playing);
  playing = window.setTimeout(tick, delayAfter(position.deal, position.event));
}

// ---------------------------------------------------------------- navigation

function go(dealIndex, event) {
  if (!deals.length) return;
  const d = Math.max(0, Math.min(deals.length - 1, dealIndex));
  const count = deals[d].events.length;
  position = { deal: d, event: Math.max(Math.min(1, count), Math.min(count, event)) };
  render();
}

function move(kind) {
  const { deal: d, event: k } = position;
  const deal = deals[d];
  const count = deal.events.length;
  switch (kind) {
    case "forward":
      if (k < count) go(d, k + 1);
      else if (d < deals.length - 1) go(d + 1, 1);
      break;
    case "back":
      if (k > 1) go(d, k - 1);
      else if (d > 0) go(d - 1, deals[d - 1].events.length);
      break;
    case "trick-forward": {
      const next = deal.trickEnds.find((end) => end > k);
      if (next !== undefined) go(d, next);
      else if (k < count) go(d, count);
      else if (d < deals.length - 1) {
        const first = deals[d + 1].trickEnds[0];
        go(d + 1, first ?? 1);
      }
      break;
    }
    case "trick-back": {
      const earlier = deal.trickEnds.filter((end) => end < k);
      if (earlier.length) go(d, earlier[earlier.length - 1]);
      else if (k > 1) go(d, 1);
      else if (d > 0) go(d - 1, deals[d - 1].events.length);
      break;
    }
    case "deal-start":
      go(d, 1);
      break;
    case "deal-end":
      go(d, count);
      break;
    case "deal-forward":
      if (d < deals.length - 1) go(d + 1, 1);
      break;
    case "deal-back":
      if (d > 0) go(d - 1, 1);
      break;
    default:
      break;
  }
}

function positionFromHash() {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const number = Number.parseInt(params.get("deal") ?? "", 10);
  const event = Number.parseInt(params.get("event") ?? "", 10);
  const index = deals.findIndex((d) => d.number === number);
  if (index < 0) return null;
  return { deal: index, event: Number.isNaN(event) ? 1 : event };
}

function atLastStep() {
  return position.deal === deals.length - 1 && position.event === deals[deals.length - 1].events.length;
}

async function refresh() {
  const follow = atLastStep();
  try {
    await load();
  } catch (error) {
    status(tr(gettext("Could not refresh the game: %(reason)s"), { reason: error.message }));
    return;
  }
  if (follow) go(deals.length - 1, deals[deals.length - 1].events.length);
  else go(position.deal, position.event);
  statusForRecord();
}

function statusForRecord() {
  if (!record.complete) {
    status(gettext("This match is running: only public information is shown, and it updates as it is played.") + timelineProblem);
  } else {
    status(tr(gettext("Final scores: %(scores)s"), { scores: record.scores.map((s, i) => `${seatNames[i]} ${s}`).join(", ") }) + timelineProblem);
  }
}

async function start() {
  const askButton = part("analysis-request");
  if (askButton) askButton.addEventListener("click", () => requestAnalysis(askButton));
  try {
    await Promise.all([load(), loadAnalysis()]);
  } catch (error) {
    status(tr(gettext("Could not load the game record: %(reason)s"), { reason: error.message }));
    return;
  }
  if (!deals.length) {
    status(gettext("No deal has been played yet."));
    return;
  }
  const fromHash = positionFromHash();
  if (fromHash) go(fromHash.deal, fromHash.event);
  else if (!record.complete) go(deals.length - 1, deals[deals.length - 1].events.length); // live
  else go(0, 1);
  statusForRecord();
  root.dataset.ready = "true";

  for (const button of root.querySelectorAll("[data-step]")) {
    button.addEventListener("click", () => move(button.dataset.step));
  }
  part("deal-select").addEventListener("change", (event) => go(Number(event.target.value), 1));
  part("play").addEventListener("click", togglePlaying);
  part("speed").addEventListener("change", restartTimer);
  window.addEventListener("hashchange", () => {
    const target = positionFromHash();
    if (target && (target.deal !== position.deal || target.event !== position.event)) go(target.deal, target.event);
  });
  document.addEventListener("keydown", (event) => {
    const tag = event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === " ") {
      // Space on a focused button or link presses it (the browser's own); elsewhere it
      // plays or pauses, as in a video player.
      if (tag === "BUTTON" || tag === "A" || tag === "SUMMARY") return;
      event.preventDefault();
      togglePlaying();
      return;
    }
    const keys = {
      ArrowRight: event.shiftKey ? "trick-forward" : "forward",
      ArrowLeft: event.shiftKey ? "trick-back" : "back",
      Home: "deal-start",
      End: "deal-end",
      PageDown: "deal-forward",
      PageUp: "deal-back",
    };
    if (keys[event.key]) {
      event.preventDefault();
      move(keys[event.key]);
    }
  });
  if (root.dataset.socketUrl && !record.complete) {
    liveSocket(root.dataset.socketUrl, {
      onMessage: (message) => {
        if (message.type === "update") refresh();
      },
    });
  }
}

start();
