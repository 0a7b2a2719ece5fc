"""Which of a person's notices go by mail now, and together (docs/web.md, *Notifications*).

A person chooses, per kind of notice, to have it mailed at once, gathered in a digest, or
not at all. Whatever goes, goes in one mail: every notice of the person still due rides
along with the first that is ready. A notice is ready

- at once: when it is written, except that a correspondence game mails a person at most
  once per ``match_gap`` (its later notices wait, and go together when the gap is over);
- in a digest: when it is ``digest_after`` old (so a digest mail comes at most that often).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

IMMEDIATE = "immediate"
DIGEST = "digest"
OFF = "off"
EMAIL_MODES = (IMMEDIATE, DIGEST, OFF)

MATCH_MAIL_GAP = timedelta(hours=1)
"""At once, a correspondence game mails a person at most this often."""
DIGEST_AFTER = timedelta(hours=3)
"""A digest's notices go when the oldest is this old."""


@dataclass(frozen=True)
class DueNotice:
    """A notice that is to be mailed and is not yet."""

    id: int
    mode: str
    """IMMEDIATE or DIGEST (an OFF notice is not due)."""
    created_at: datetime
    match_id: int | None
    correspondence: bool
    """About a correspondence game (its mails are grouped per game)."""
    read: bool = False
    """The person read it on the site (they moved): it is not mailed any more."""


def notice_ready(
    notice: DueNotice,
    *,
    last_mail_of_match: Mapping[int, datetime],
    now: datetime,
    match_gap: timedelta = MATCH_MAIL_GAP,
    digest_after: timedelta = DIGEST_AFTER,
) -> bool:
    """Whether ``notice`` is due to go now (``last_mail_of_match``: when a mail about each
    game last went to the person)."""
    if notice.mode == DIGEST:
        return now - notice.created_at >= digest_after
    if notice.mode != IMMEDIATE:
        return False
    if not notice.correspondence or notice.match_id is None:
        return True
    last = last_mail_of_match.get(notice.match_id)
    return last is None or now - last >= match_gap


def notices_to_mail(
    due: Sequence[DueNotice],
    *,
    last_mail_of_match: Mapping[int, datetime],
    now: datetime,
    match_gap: timedelta = MATCH_MAIL_GAP,
    digest_after: timedelta = DIGEST_AFTER,
) -> list[int]:
    """The ids of the notices to mail now in one mail, oldest first: none while none is
    ready, else every notice due (the ready one and all that wait)."""
    ready = any(
        notice_ready(
            n,
            last_mail_of_match=last_mail_of_match,
            now=now,
            match_gap=match_gap,
            digest_after=digest_after,
        )
        for n in due
    )
    if not ready:
        return []
    return [n.id for n in sorted(due, key=lambda n: (n.created_at, n.id))]


def email_mode(*, email: bool, digest: bool) -> str:
    """A stored choice (``NotificationPreference``'s two flags) as a mode."""
    if not email:
        return OFF
    return DIGEST if digest else IMMEDIATE


def mail_plan(
    due: Sequence[DueNotice],
    *,
    address: bool,
    last_mail_of_match: Mapping[int, datetime],
    now: datetime,
) -> tuple[list[int], list[int]]:
    """(the notices to mail now in one mail, the notices no longer due): a notice read on
    the site, turned off, or of a person without an address is dropped; of the rest,
    ``notices_to_mail``."""
    dropped = [n.id for n in due if not address or n.read or n.mode == OFF]
    kept = [n for n in due if n.id not in dropped]
    return notices_to_mail(kept, last_mail_of_match=last_mail_of_match, now=now), dropped


def preference_problem(
    *, kinds: Collection[str], email: Mapping[str, bool], modes: Mapping[str, str]
) -> tuple[str, str] | None:
    """The first fault of a person's email choices: ``("kind", name)`` of a kind that does
    not exist, ``("mode", kind)`` of a mode that is not one of EMAIL_MODES; None if none."""
    unknown = sorted((set(email) | set(modes)) - set(kinds))
    if unknown:
        return "kind", unknown[0]
    wrong = sorted(kind for kind, mode in modes.items() if mode not in EMAIL_MODES)
    return ("mode", wrong[0]) if wrong else None


Translate = Callable[[str], str]
TranslatePlural = Callable[[str, str, int], str]


def mail_text(
    *,
    notices: Sequence[tuple[str, str]],
    kind_labels: Sequence[str],
    settings_url: str,
    notifications_url: str,
    gettext: Translate,
    ngettext: TranslatePlural,
) -> tuple[str, str]:
    """(subject, body) of one mail of ``notices`` ((text, absolute link or "") each), in
    the language of ``gettext``: a plain subject, each notice with its link, and a footer
    saying why the mail came and where to change that."""
    if len(notices) == 1:
        subject = gettext("%(kind)s · King League") % {"kind": kind_labels[0]}
    else:
        subject = ngettext(
            "%(count)d notification · King League",
            "%(count)d notifications · King League",
            len(notices),
        ) % {"count": len(notices)}
    lines: list[str] = []
    for text, url in notices:
        lines += [text, url, ""] if url else [text, ""]
    lines += [
        "--",
        gettext('You receive this mail because your settings mail you "%(kind)s".')
        % {"kind": ", ".join(kind_labels)},
        gettext("Choose which events mail you, and how: %(url)s") % {"url": settings_url},
        gettext("All your notifications: %(url)s") % {"url": notifications_url},
    ]
    return subject, "\n".join(lines)
