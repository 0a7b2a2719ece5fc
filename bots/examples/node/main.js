// A King League bot in Node.js: it ducks (plays the highest card that does not win the
// trick, else the lowest), and takes the first legal action for any other decision.
// Start from here: docs in README.md beside this file.
"use strict";

const kingbot = require("./kingbot");

function choose(request) {
  const cards = request.playableCards;
  if (cards.length === 0) return request.legal[0]; // a contract, trumps, a bid, ...
  const trick = request.trick;
  const byRank = [...cards].sort((a, b) => kingbot.rank(a) - kingbot.rank(b));
  if (trick.length > 0) {
    const best = kingbot.winningCard(trick, request.trump);
    const losers = byRank.filter((card) => !kingbot.beats(card, best, trick[0][1], request.trump));
    if (losers.length > 0) return "play " + losers[losers.length - 1];
  }
  return "play " + byRank[0];
}

kingbot.run(choose);
