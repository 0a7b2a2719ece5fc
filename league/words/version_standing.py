"""Why a bot version is (not) playing, in the request's language: one sentence per state
of league.domain.version_standing ("not in any ladder: no family", "Kingen ladder:
suspended: 3 crashes in a row (matches #4, #5, #6)")."""

from __future__ import annotations

from django.utils.translation import gettext, ngettext

from league.domain.version_standing import LadderState

RATING_SIGMAS = 3
"""The ± of a rating in words: three standard deviations, as the pages' ``rating`` filter
(web/templatetags/ratings.py) shows it."""


def _not_in_ladder(reason: str | None) -> str:
    why = {
        "builtin": gettext("a built-in bot plays ladders only as an anchor"),
        "pending": gettext("its validation game is still being played"),
        "rejected": gettext("its validation game rejected it"),
        "no_family": gettext("no family; name the game families its bot plays"),
        "no_ladder": gettext("no ladder plays its bot's families yet"),
    }.get(reason or "", reason or "")
    return gettext("not in any ladder: %(why)s") % {"why": why}


def failures_words(failures: dict[str, int]) -> str:
    """``3 crashes``, ``2 crashes, 1 start failure``."""
    parts = []
    for outcome, count in failures.items():
        if outcome == "crash":
            parts.append(ngettext("%(count)s crash", "%(count)s crashes", count) % {"count": count})
        else:
            parts.append(
                ngettext("%(count)s start failure", "%(count)s start failures", count)
                % {"count": count}
            )
    return ", ".join(parts)


def _playing(state: LadderState) -> str:
    if state.state == "placement":
        words = ngettext(
            "placement: %(left)s game left", "placement: %(left)s games left", state.placement_left
        ) % {"left": state.placement_left}
    else:
        words = gettext("rated %(rating)s, position %(rank)s of %(ranked)s") % {
            "rating": f"{state.mu or 0:.1f} ± {RATING_SIGMAS * (state.sigma or 0):.1f}",
            "rank": state.rank,
            "ranked": state.ranked,
        }
        if state.confidence is not None:
            words += " " + gettext("(%(sure)s%% sure to be above the next)") % {
                "sure": round(100 * state.confidence)
            }
    words += "; " + gettext("%(queued)s queued, %(running)s running") % {
        "queued": state.queued,
        "running": state.running,
    }
    if state.limit == "concurrent":
        words += "; " + gettext("at its limit of %(limit)s matches at once") % {
            "limit": state.limit_value
        }
    elif state.limit == "queue":
        words += "; " + gettext("waiting: the ladder's queue is full (%(limit)s matches)") % {
            "limit": state.limit_value
        }
    return words


def state_words(state: LadderState) -> str:
    """The state in one sentence, the ladder's name first (but for ``not_in_ladder``)."""
    if state.state == "not_in_ladder":
        return _not_in_ladder(state.reason)
    if state.state == "superseded":
        what = (
            gettext("superseded: v%(newer)s plays instead") % {"newer": state.newer}
            if state.newer is not None
            else gettext("superseded by a newer version")
        )
    elif state.state == "joining":
        what = gettext("joins at the matchmaker's next pass")
    elif state.state == "suspended":
        matches = ", ".join(f"#{fault['match']}" for fault in state.faults if "match" in fault)
        what = gettext("suspended: %(failures)s in a row (matches %(matches)s)") % {
            "failures": failures_words(dict(state.failures)),
            "matches": matches,
        }
    elif state.state == "opted_out":
        what = gettext("off the ladder: its owner opted it out")
    elif state.state == "family_left":
        what = gettext("not matched: its bot no longer plays this ladder's family")
    elif state.state == "paused":
        what = gettext("the ladder is paused")
    else:
        what = _playing(state)
    return f"{state.ladder_name}: {what}"
