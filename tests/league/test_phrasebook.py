"""league.domain.phrasebook: a catalogue's sentence read as the pattern of the English one."""

from __future__ import annotations

from league.domain.phrasebook import Phrasebook, Sentence, sentence_pattern

DUTCH = {
    "must follow suit (you hold a %(suit)s)": "moet kleur bekennen (je hebt een %(suit)s)",
    "you do not hold %(card)s": "je hebt %(card)s niet",
    "a card must be played now": "er moet nu een kaart gespeeld worden",
    "unknown field %(fields)s (this line has %(allowed)s)": "onbekend %(fields)s (%(allowed)s)",
    "%(a)s and %(a)s": "%(a)s en %(a)s",
}


def dutch(text: str) -> str:
    return DUTCH[text]


def test_the_text_outside_the_blanks_stands_as_written() -> None:
    pattern = sentence_pattern("must follow suit (you hold a %(suit)s)", {"suit": r"\w+"})
    assert pattern.fullmatch("must follow suit (you hold a heart)")["suit"] == "heart"  # type: ignore[index]
    assert pattern.fullmatch("must follow suit (you hold a red heart)") is None  # a suit is a word
    assert pattern.fullmatch("must follow suit [you hold a heart]") is None  # brackets are text
    dots = sentence_pattern("e.g. %(x)s", {})
    assert dots.fullmatch("eXg. y") is None
    assert dots.fullmatch("e.g. y")["x"] == "y"  # type: ignore[index]


def test_a_blank_named_twice_holds_the_same_text() -> None:
    book = Phrasebook(["%(a)s and %(a)s"])
    assert book.say("salt and salt", dutch) == "salt en salt"
    assert book.say("salt and pepper", dutch) is None


def test_a_known_sentence_is_said_with_its_blanks_filled() -> None:
    book = Phrasebook(
        ["must follow suit (you hold a %(suit)s)", "a card must be played now"],
        blanks={"suit": r"\w+"},
        fills={"suit": {"heart": "harten"}.__getitem__},
    )
    assert book.say("must follow suit (you hold a heart)", dutch) == (
        "moet kleur bekennen (je hebt een harten)"
    )
    assert book.say("a card must be played now", dutch) == "er moet nu een kaart gespeeld worden"
    assert book.say("a card must be played now, quickly", dutch) is None  # the whole text


def test_a_sentence_may_fill_its_blanks_and_match_its_english_its_own_way() -> None:
    book = Phrasebook(
        [
            Sentence("you do not hold %(card)s", fills={"card": str.lower}),
            Sentence(
                "unknown field %(fields)s (this line has %(allowed)s)",
                pattern=r"unknown fields? (?P<fields>.*) \(this line has (?P<allowed>.*)\)",
            ),
        ],
        fills={"card": str.upper, "fields": str.upper},
    )
    assert book.say("you do not hold QS", dutch) == "je hebt qs niet"
    assert book.say("unknown fields a, b (this line has c)", dutch) == "onbekend A, B (c)"


def test_a_sentence_is_found_inside_a_longer_text_and_said_in_place() -> None:
    book = Phrasebook(["you do not hold %(card)s"], blanks={"card": r"\S+"})
    said = book.say_within("seat 2: you do not hold QS (deal 3)", dutch)
    assert said is not None
    text = "seat 2: you do not hold QS (deal 3)"
    assert text[: said.start] + said.words + text[said.end :] == "seat 2: je hebt QS niet (deal 3)"
    assert book.say_within("nothing of the kind", dutch) is None
