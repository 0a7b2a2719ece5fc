"""Which lane a match's play runs in: does a person wait for it?

Everything a person waits for runs in the ``interactive`` lane, whose worker capacity
bot-only work can never occupy (docs/operations.md, *Queues and priorities*): a match with
a person seated (a people's table, a league or tournament game with a person: the bots'
moves between the person's, and the start of the table), and a challenge, whose author
asked for it and watches for it; a challenge is a whole match where a table's run is a few
bots' moves up to the person's turn, so a table's run waiting in the lane goes first. Every
other match is bot-only work: a league's or a tournament's in the ``matches`` lane, a
ladder's rated games at the lowest priority of that lane.

The league decides from the match alone (who sits at it, what kind of tournament it is),
never from the game family; league.services.match_lanes reads those facts and sends the
lane's task.
"""

from __future__ import annotations

from enum import StrEnum


class Lane(StrEnum):
    INTERACTIVE = "interactive"
    """A person sits at the match: the `interactive` queue, with worker processes of its
    own."""
    CHALLENGE = "challenge"
    """An author's challenge (bots only): the `interactive` queue, after the people's
    tables waiting there."""
    MATCHES = "matches"
    """Bot-only league and tournament matches: the `matches` queue."""
    LADDER = "ladder"
    """A ladder's bot-only rated games: the `matches` queue at the lowest priority."""


def match_lane(*, person_seated: bool, challenge: bool, ladder: bool) -> Lane:
    """The lane of a match: ``person_seated`` when any seat is a person's (whether they
    move now or not: they watch the bots' moves), ``challenge`` for an author's challenge,
    ``ladder`` for a ladder's game."""
    if person_seated:
        return Lane.INTERACTIVE
    if challenge:
        return Lane.CHALLENGE
    return Lane.LADDER if ladder else Lane.MATCHES
