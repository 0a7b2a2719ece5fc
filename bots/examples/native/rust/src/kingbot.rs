//! kingbot: a small helper for King League bots in Rust (the standard library only), the
//! conventions of the Python helper module kingbot carried over.
//!
//! ```ignore
//! kingbot::run(|request| request.legal[0].clone());
//! ```
//!
//! `run` answers "hello" with "ready", calls `choose` once per request and writes its
//! answer, and returns at "end". If `choose` returns something that is not a legal action
//! (or panics, where panics unwind), `run` plays the first legal action instead, with a
//! "fallback" saying why.

#![allow(dead_code)] // the helper offers more than the starter bot reads

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};

pub const RANKS: &str = "23456789TJQKA";

/// 0 for a two ... 12 for an ace.
pub fn rank(card: &str) -> usize {
    RANKS.find(card.chars().next().unwrap_or('?')).unwrap_or(0)
}

pub fn suit(card: &str) -> char {
    card.chars().nth(1).unwrap_or('?')
}

/// The card of a "play" action ("play QS" -> "QS"), else None.
pub fn card_of(action: &str) -> Option<&str> {
    action.strip_prefix("play ")
}

/// Whether `card` beats the winning card `best` of a trick whose led suit is `led`.
pub fn beats(card: &str, best: &str, _led: char, trump: Option<&str>) -> bool {
    if suit(card) == suit(best) {
        return rank(card) > rank(best);
    }
    matches!(trump, Some(t) if t.chars().next() == Some(suit(card)))
}

/// The card that wins `trick` so far (its first card was led), or None if it is empty.
pub fn winning_card<'a>(trick: &'a [String], trump: Option<&str>) -> Option<&'a str> {
    let first = trick.first()?;
    let mut best = first.as_str();
    for card in &trick[1..] {
        if beats(card, best, suit(first), trump) {
            best = card;
        }
    }
    Some(best)
}

/// A line on stderr, which the league keeps for the bot's owner.
pub fn log(text: &str) {
    eprintln!("{text}");
}

/// A JSON value: just enough JSON for the protocol.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

impl Json {
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(map) => map.get(key),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(number) => Some(*number),
            _ => None,
        }
    }
    pub fn strings(&self) -> Vec<String> {
        match self {
            Json::Array(items) => items.iter().filter_map(|i| i.as_str().map(String::from)).collect(),
            _ => Vec::new(),
        }
    }

    pub fn parse(text: &str) -> Option<Json> {
        let mut parser = Parser { bytes: text.as_bytes(), at: 0 };
        parser.value()
    }
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip(&mut self) {
        while self.at < self.bytes.len() && self.bytes[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }
    fn literal(&mut self, word: &str, value: Json) -> Option<Json> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Some(value)
        } else {
            None
        }
    }
    fn value(&mut self) -> Option<Json> {
        self.skip();
        match self.peek()? {
            b'{' => {
                self.at += 1;
                let mut map = BTreeMap::new();
                self.skip();
                if self.peek()? == b'}' {
                    self.at += 1;
                    return Some(Json::Object(map));
                }
                loop {
                    self.skip();
                    let key = self.string()?;
                    self.skip();
                    if self.peek()? != b':' {
                        return None;
                    }
                    self.at += 1;
                    let value = self.value()?;
                    map.insert(key, value);
                    self.skip();
                    match self.peek()? {
                        b',' => self.at += 1,
                        b'}' => {
                            self.at += 1;
                            return Some(Json::Object(map));
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                self.skip();
                if self.peek()? == b']' {
                    self.at += 1;
                    return Some(Json::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    self.skip();
                    match self.peek()? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(Json::Array(items));
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => self.string().map(Json::String),
            b't' => self.literal("true", Json::Bool(true)),
            b'f' => self.literal("false", Json::Bool(false)),
            b'n' => self.literal("null", Json::Null),
            _ => {
                let start = self.at;
                while self.at < self.bytes.len() && b"+-0123456789.eE".contains(&self.bytes[self.at]) {
                    self.at += 1;
                }
                std::str::from_utf8(&self.bytes[start..self.at]).ok()?.parse().ok().map(Json::Number)
            }
        }
    }
    fn string(&mut self) -> Option<String> {
        if self.peek()? != b'"' {
            return None;
        }
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let byte = self.peek()?;
            self.at += 1;
            match byte {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let escape = self.peek()?;
                    self.at += 1;
                    match escape {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = std::str::from_utf8(self.bytes.get(self.at..self.at + 4)?).ok()?;
                            self.at += 4;
                            let code = u32::from_str_radix(hex, 16).ok()?;
                            let character = char::from_u32(code).unwrap_or('\u{fffd}');
                            out.extend_from_slice(character.to_string().as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                other => out.push(other),
            }
        }
    }
}

/// A string as a JSON string literal.
pub fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One decision: the seat's view, its legal actions and its time, with shortcuts.
pub struct Request {
    pub id: i64,
    pub seat: i64,
    pub game: String,
    pub view: Json,
    pub legal: Vec<String>,
    pub hand: Vec<String>,
    pub trick: Vec<String>,
    pub trump: Option<String>,
    pub move_ms: f64,
    pub bank_ms: f64,
}

impl Request {
    /// The cards of the legal "play" actions (empty when the decision is not a card).
    pub fn playable_cards(&self) -> Vec<String> {
        self.legal.iter().filter_map(|a| card_of(a).map(String::from)).collect()
    }
}

pub fn run<F: FnMut(&Request) -> String>(mut choose: F) {
    let stdin = io::stdin();
    let mut stdout = io::stdout().lock();
    let mut hello = Json::Null;
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(_) => return,
        };
        if line.trim().is_empty() {
            continue;
        }
        let message = match Json::parse(&line) {
            Some(message) => message,
            None => {
                log("kingbot: a line that is not JSON, skipped");
                continue;
            }
        };
        match message.get("type").and_then(Json::as_str) {
            Some("hello") => {
                hello = message;
                let _ = stdout.write_all(b"{\"type\":\"ready\"}\n");
            }
            Some("request") => {
                let view = message.get("view").cloned().unwrap_or(Json::Null);
                let time = message.get("time");
                let request = Request {
                    id: message.get("id").and_then(Json::as_f64).unwrap_or(0.0) as i64,
                    seat: hello.get("seat").and_then(Json::as_f64).unwrap_or(0.0) as i64,
                    game: hello.get("game").and_then(Json::as_str).unwrap_or("").to_string(),
                    legal: message.get("legal").map(Json::strings).unwrap_or_default(),
                    hand: view.get("hand").map(Json::strings).unwrap_or_default(),
                    trick: view.get("trick").map(Json::strings).unwrap_or_default(),
                    trump: view.get("trump").and_then(Json::as_str).map(String::from),
                    move_ms: time.and_then(|t| t.get("move_ms")).and_then(Json::as_f64).unwrap_or(0.0),
                    bank_ms: time.and_then(|t| t.get("bank_ms")).and_then(Json::as_f64).unwrap_or(0.0),
                    view,
                };
                let action = choose(&request);
                let answer = if request.legal.contains(&action) {
                    format!("{{\"id\":{},\"action\":{}}}\n", request.id, quote(&action))
                } else {
                    log(&format!("kingbot: choose() returned {action:?}, not a legal action"));
                    let first = request.legal.first().cloned().unwrap_or_default();
                    format!(
                        "{{\"id\":{},\"action\":{},\"fallback\":{}}}\n",
                        request.id,
                        quote(&first),
                        quote("choose() returned no legal action")
                    )
                };
                let _ = stdout.write_all(answer.as_bytes());
            }
            Some("end") => return,
            _ => continue, // a message type of a later protocol version
        }
        let _ = stdout.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_request() {
        let json = Json::parse(r#"{"type":"request","id":3,"legal":["play 2C","play \u0041S"],"view":{"trump":null}}"#).unwrap();
        assert_eq!(json.get("id").and_then(Json::as_f64), Some(3.0));
        assert_eq!(json.get("legal").unwrap().strings(), vec!["play 2C", "play AS"]);
        assert_eq!(json.get("view").unwrap().get("trump"), Some(&Json::Null));
    }

    #[test]
    fn the_winning_card() {
        let trick = vec!["5C".to_string(), "KC".to_string(), "2H".to_string()];
        assert_eq!(winning_card(&trick, None), Some("KC"));
        assert_eq!(winning_card(&trick, Some("H")), Some("2H"));
    }
}
