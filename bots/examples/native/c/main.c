/* A King League bot in C: it ducks (plays the highest card that does not win the trick,
 * else the lowest), and takes the first legal action for any other decision.
 * Start from here: docs in README.md beside this file. */
#include <stdio.h>
#include <string.h>

#include "kingbot.h"

static char answer[64];

static const char *choose(const kb_request *request) {
    if (request->playable_count == 0) return request->legal[0]; /* a contract, a bid, ... */
    const char *lowest = NULL, *duck = NULL;
    const char *best = kb_winning_card(request->trick, request->trick_count, request->trump);
    for (size_t i = 0; i < request->playable_count; i++) {
        const char *card = request->playable[i];
        if (!lowest || kb_rank(card) < kb_rank(lowest)) lowest = card;
        if (best && !kb_beats(card, best, request->trick[0][1], request->trump)
            && (!duck || kb_rank(card) > kb_rank(duck)))
            duck = card;
    }
    snprintf(answer, sizeof answer, "play %s", duck ? duck : lowest);
    return answer;
}

int main(void) { return kb_run(choose); }
