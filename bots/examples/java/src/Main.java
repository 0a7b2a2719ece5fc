// A King League bot in Java: it ducks (plays the highest card that does not win the
// trick, else the lowest), and takes the first legal action for any other decision.
// Start from here: docs in README.md beside this file.

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

public final class Main {
    static String choose(KingBot.Request request) {
        List<String> cards = new ArrayList<>(request.playableCards());
        if (cards.isEmpty()) {
            return request.legal.get(0); // a contract, trumps, a bid, ...
        }
        cards.sort(Comparator.comparingInt(KingBot::rank));
        List<String> trick = request.trick();
        if (!trick.isEmpty()) {
            String best = KingBot.winningCard(trick, request.trump());
            String duck = null;
            for (String card : cards) {
                if (!KingBot.beats(card, best, trick.get(0).charAt(1), request.trump())) {
                    duck = card;
                }
            }
            if (duck != null) {
                return "play " + duck;
            }
        }
        return "play " + cards.get(0);
    }

    public static void main(String[] args) throws Exception {
        KingBot.run(Main::choose);
    }
}
