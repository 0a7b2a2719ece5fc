//! A King League bot in Rust: it ducks (plays the highest card that does not win the
//! trick, else the lowest), and takes the first legal action for any other decision.
//! Start from here: docs in README.md beside this file.

mod kingbot;

fn choose(request: &kingbot::Request) -> String {
    let mut cards = request.playable_cards();
    if cards.is_empty() {
        return request.legal[0].clone(); // a contract, trumps, a bid, ...
    }
    cards.sort_by_key(|card| kingbot::rank(card));
    let trump = request.trump.as_deref();
    if let Some(best) = kingbot::winning_card(&request.trick, trump) {
        let led = kingbot::suit(&request.trick[0]);
        if let Some(duck) = cards.iter().rev().find(|card| !kingbot::beats(card, best, led, trump)) {
            return format!("play {duck}");
        }
    }
    format!("play {}", cards[0])
}

fn main() {
    kingbot::run(choose);
}
