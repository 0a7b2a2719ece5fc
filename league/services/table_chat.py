"""A table's chat: the people seated at a match write short lines to each other; everyone
who may watch the match reads them (docs/api.md, *A table's chat*).

Who may write: a person who holds a seat of the match (while it waits for players, plays
or after it ended: "good game"). Nobody else, not a bot's owner for the bot, not a
spectator. What is read is public, like the table talk of a club night: the lines are
kept with the match, shown beside the replay, and pushed to the match's socket group as
they are written (the group carries public facts only, and a line is one).

The text is one line of at most CHAT_MAX_CHARS characters after its spaces are tidied:
control characters become spaces (a NUL would not even be storable), and a line that is
empty then is refused; bidirectional control characters are removed
(bots/direction_controls.py). The pages render it as text, never as HTML.
"""

from __future__ import annotations

import unicodedata

from django.db import transaction
from django.utils.translation import gettext as _

from bots.direction_controls import direction_controls_removed
from league.errors import InvalidInputError, NotAllowedError
from league.live_updates import group_send
from league.models import ChatMessage, Match
from league.selectors.tables import CHAT_MAX_CHARS, User, chat_message_json


def chat_text_clean(text: str) -> str:
    """``text`` as one tidy line; InvalidInputError if nothing is left or it is too long."""
    visible = direction_controls_removed(text)  # "\u202egnp.exe" would show as "exe.png"
    spaced = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in visible
    )
    clean = " ".join(spaced.split())
    if not clean:
        raise InvalidInputError(_("text: write something"), errors={"text": ["write something"]})
    if len(clean) > CHAT_MAX_CHARS:
        message = f"at most {CHAT_MAX_CHARS} characters ({len(clean)} given)"
        raise InvalidInputError(
            _("text: %(message)s") % {"message": message}, errors={"text": [message]}
        )
    return clean


@transaction.atomic
def chat_message_post(*, match: Match, user: User, text: str) -> ChatMessage:
    """Write a line to the table's chat as ``user``, who holds a seat of ``match``
    (NotAllowedError otherwise), and push it to the match's watchers once it commits."""
    if not user.is_authenticated:
        raise NotAllowedError(_("log in as a player of this table to write in its chat"))
    seats = sorted(row.seat for row in match.seats.all() if row.competitor.user_id == user.pk)
    if not seats:
        raise NotAllowedError(_("only the people seated at this table write in its chat"))
    message = ChatMessage.objects.create(
        match=match, author=user, seat=seats[0], text=chat_text_clean(text)
    )
    payload = {
        "type": "league.update",
        "event": "chat",
        "match": match.pk,
        "chat": chat_message_json(message),
    }
    transaction.on_commit(lambda: group_send(f"match-{match.pk}", payload))
    return message
