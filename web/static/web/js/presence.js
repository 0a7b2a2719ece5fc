// Who is at the table (docs/web.md, "Presence"): the match's socket brings {"type":
// "presence", "seats": [...]} when it opens, whenever a seated person's page opens or
// closes, and in answer to this page's heartbeat ({"type": "here"} every HEARTBEAT_MS).
// Each person's seat is shown connected or gone; when someone leaves or comes back the
// others read "olle left the table" / "olle is back"; once a person has been gone long
// enough in a live game, the others may vote to seat a bot for them (POST to the vote URL).

import { csrfToken, el, fetchJSON, tr } from "./cards.js";

const HEARTBEAT_MS = 10000;

/**
 * The presence of a table page's seats.
 * `options`: {root (the element to write into), mySeat, nameOf(seat), voteUrl(seat),
 * onChange() (the seats' badges must be drawn again), announce(text)}.
 */
export function tablePresence({ root, mySeat, nameOf, voteUrl, onChange, announce }) {
  let seats = null; // seat number -> its entry of the last snapshot
  const seen = new Set(); // the seats seen connected since the page opened
  let heartbeat = null;
  let voting = false;

  function say(text) {
    const line = root.querySelector("[data-role=presence-news]");
    if (line) line.textContent = text;
    announce?.(text);
  }

  function renderVotes() {
    const box = root.querySelector("[data-role=presence-votes]");
    if (!box || !seats) return;
    const items = [];
    for (const entry of seats.values()) {
      if (entry.seat === mySeat) {
        if (entry.bot_for_absent) items.push(el("p", { class: "notice" }, gettext("A bot played for you while you were away: you take your seat again at the next deal.")));
        continue;
      }
      if (entry.bot_for_absent) {
        items.push(el("p", {}, tr(gettext("A bot plays for %(name)s until they are back at the next deal."), { name: nameOf(entry.seat) })));
      } else if (entry.vote_open) {
        items.push(el("p", {}, el("button", {
          type: "button",
          class: "button",
          "data-vote-seat": entry.seat,
          disabled: voting,
          onclick: () => vote(entry.seat),
        }, tr(gettext("Seat a bot for %(name)s (%(votes)s of %(needed)s votes)"), {
          name: nameOf(entry.seat), votes: entry.votes, needed: entry.votes_needed,
        }))));
      }
    }
    box.replaceChildren(...items);
  }

  async function vote(seat) {
    voting = true;
    renderVotes();
    try {
      const answer = await fetchJSON(voteUrl(seat), { method: "POST", headers: { "X-CSRFToken": csrfToken() } });
      voting = false;
      receive(answer);
    } catch (error) {
      voting = false;
      say(error.message);
      renderVotes();
    }
  }

  /** A snapshot from the socket (or the vote's answer). */
  function receive(snapshot) {
    if (!snapshot || !Array.isArray(snapshot.seats)) return;
    const before = seats;
    seats = new Map(snapshot.seats.map((entry) => [entry.seat, entry]));
    if (before) {
      for (const entry of seats.values()) {
        const was = before.get(entry.seat);
        if (!was || entry.seat === mySeat) continue;
        if (was.connected && !entry.connected) say(tr(gettext("%(name)s left the table"), { name: nameOf(entry.seat) }));
        else if (!was.connected && entry.connected && seen.has(entry.seat)) say(tr(gettext("%(name)s is back"), { name: nameOf(entry.seat) }));
        if (!was.bot_for_absent && entry.bot_for_absent) say(tr(gettext("A bot plays for %(name)s."), { name: nameOf(entry.seat) }));
      }
    }
    for (const entry of seats.values()) if (entry.connected) seen.add(entry.seat);
    // The seats' badges are drawn again only when one changes (not at every heartbeat).
    const shown = JSON.stringify([...seats.values()].map((e) => [e.seat, e.connected, e.bot_for_absent]));
    renderVotes();
    if (shown !== root.dataset.presence) {
      root.dataset.presence = shown;
      onChange?.();
    }
  }

  return {
    receive,
    /** The seat's entry: {connected, away_seconds, ...}, or null (a bot's seat, or not known yet). */
    of(seat) {
      return seats?.get(seat) ?? null;
    },
    /** Say "here" on `socket` every HEARTBEAT_MS while the page is open. */
    beat(socket) {
      window.clearInterval(heartbeat);
      heartbeat = window.setInterval(() => socket.send({ type: "here" }), HEARTBEAT_MS);
    },
  };
}
