"""What a ladder tells a bot's author, in their language: why a version was suspended, and
why a challenge was refused (from the facts league.domain.ladder_results computes)."""

from __future__ import annotations

from django.utils.translation import gettext

from league.domain.ladder_results import ChallengeProblem, Failures


def suspension_words(*, name: str, ladder: str, failures: Failures) -> str:
    """What the author of a suspended version is told: the causes and the matches."""
    causes = ", ".join(sorted({str(f.get("outcome", "")) for f in failures.faults}))
    matches = ", ".join(f"#{f['match']}" for f in failures.faults if "match" in f)
    return gettext(
        "%(name)s left the %(ladder)s after %(count)s matches in a row with a %(causes)s "
        "(matches %(matches)s); read its logs, then resume it or upload a new version."
    ) % {
        "name": name,
        "ladder": ladder,
        "count": failures.count,
        "causes": causes,
        "matches": matches,
    }


def challenge_problem_words(problem: ChallengeProblem) -> str:
    """Why a challenge was refused, in a clause (``the game needs 3 opponents, not 2``)."""
    if problem.reason == "opponent_count":
        return gettext("the game needs %(needed)s opponents, not %(given)s") % {
            "needed": problem.needed,
            "given": problem.given,
        }
    if problem.reason == "not_a_bot":
        return gettext("competitor %(id)s is not a bot") % {"id": problem.competitor}
    return gettext("the owner of %(name)s does not allow challenges") % {"name": problem.name}
