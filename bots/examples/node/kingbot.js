// kingbot.js: a small helper for King League bots in Node.js (no packages), the
// conventions of the Python helper module kingbot carried over.
//
//   const kingbot = require("./kingbot");
//   kingbot.run((request) => request.legal[0]);
//
// run() answers "hello" with "ready", calls choose(request) once per request and writes
// its answer, and exits at "end". If choose throws or returns something that is not a
// legal action, run() writes the error to stderr (the league keeps it for you) and plays
// the first legal action instead, with a "fallback" saying why.
"use strict";

const fs = require("fs");

const RANKS = "23456789TJQKA";

/** 0 for a two ... 12 for an ace. */
function rank(card) {
  return RANKS.indexOf(card[0]);
}

function suit(card) {
  return card[1];
}

/** The card of a "play" action ("play QS" -> "QS"), else null. */
function cardOf(action) {
  return action.startsWith("play ") ? action.slice(5) : null;
}

/** Whether card beats the winning card best of a trick whose led suit is led. */
function beats(card, best, led, trump) {
  if (card[1] === best[1]) return rank(card) > rank(best);
  return trump != null && card[1] === trump;
}

/** The card that wins trick so far (its first card was led), or null if it is empty. */
function winningCard(trick, trump) {
  if (!trick || trick.length === 0) return null;
  let best = trick[0];
  for (const card of trick.slice(1)) {
    if (beats(card, best, trick[0][1], trump)) best = card;
  }
  return best;
}

/** One decision: the seat's view, its legal actions and its time, with shortcuts. */
class Request {
  constructor(message, hello) {
    this.message = message;
    this.hello = hello;
    this.id = message.id;
    this.view = message.view || {};
    this.legal = message.legal;
    this.moveMs = (message.time || {}).move_ms;
    this.bankMs = (message.time || {}).bank_ms;
  }
  get seat() { return this.hello.seat; }
  get game() { return this.hello.game; }
  get phase() { return this.view.phase; }
  get hand() { return this.view.hand || []; }
  get trick() { return this.view.trick || []; }
  get trump() { return this.view.trump == null ? null : this.view.trump; }
  get contract() { return this.view.contract; }
  /** The cards of the legal "play" actions (empty when the decision is not a card). */
  get playableCards() {
    return this.legal.map(cardOf).filter((card) => card !== null);
  }
}

/** A line on stderr, which the league keeps for the bot's owner. */
function log(text) {
  const line = String(text) + "\n";
  try {
    fs.writeSync(2, line); // like the answers: no stream (see run)
  } catch (error) {
    if (error.code !== "EAGAIN") throw error;
    process.stderr.write(line);
  }
}

function write(message) {
  // one synchronous write per answer: the line is out before the next request is read
  fs.writeSync(1, JSON.stringify(message) + "\n");
}

/**
 * Answer "hello" with "ready", then each request with choose(request), until "end".
 *
 * Requests are read with blocking fs.readSync calls on descriptor 0, not through
 * process.stdin: a stream on a pipe loads Node's net and stream modules, which in the
 * league's sandbox cost about 10 ms of CPU at start-up (37 ms instead of 27)
 * (docs/benchmarks.md). As with the Python helper, nothing of yours runs while the bot
 * waits for a request; after each batch of answers the event loop turns (setImmediate), so
 * your promises run at once and your due timers before the next read. Leave process.stdin
 * alone: kingbot owns it.
 */
function run(choose, { onHello = null, onEnd = null, safe = true } = {}) {
  let hello = {};
  let pending = Buffer.alloc(0); // the start of a line not yet ended by "\n"
  const chunk = Buffer.alloc(65536);

  function feed(data) {
    pending = Buffer.concat([pending, data]);
    let end;
    while ((end = pending.indexOf(10)) >= 0) {
      const line = pending.toString("utf8", 0, end);
      pending = pending.subarray(end + 1);
      onLine(line);
    }
  }

  function readNext() {
    let count;
    try {
      count = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
      // stdin does not block (a terminal, or code that opened process.stdin): stream it
      process.stdin.on("data", feed);
      process.stdin.on("end", () => process.exit(0));
      return;
    }
    if (count === 0) process.exit(0); // the league closed stdin
    feed(chunk.subarray(0, count)); // copied by feed: chunk is read into again
    setImmediate(readNext);
  }

  readNext();
  function onLine(line) {
    if (!line.trim()) return;
    const message = JSON.parse(line);
    if (message.type === "hello") {
      hello = message;
      if (onHello) onHello(message);
      write({ type: "ready" });
    } else if (message.type === "request") {
      const request = new Request(message, hello);
      let action;
      let fallback = null;
      try {
        action = choose(request);
        if (!request.legal.includes(action)) {
          throw new Error(`choose() returned ${JSON.stringify(action)}, not a legal action`);
        }
      } catch (error) {
        if (!safe) throw error;
        log(error && error.stack ? error.stack : String(error));
        fallback = `choose() failed: ${error && error.message ? error.message : error}`;
        action = request.legal[0];
      }
      const answer = { id: request.id, action };
      if (fallback !== null) answer.fallback = fallback.slice(0, 200);
      write(answer);
    } else if (message.type === "end") {
      if (onEnd) onEnd(message);
      process.exit(0);
    }
    // a message type of a later protocol version: ignored
  }
}

module.exports = { RANKS, rank, suit, cardOf, beats, winningCard, Request, log, run };
