"""league.domain.version_standing: why a version is (not) playing, from plain facts."""

from __future__ import annotations

from league.domain.version_standing import (
    EntrantFacts,
    LadderFacts,
    VersionFacts,
    version_states,
)


def _ladder(entrant: EntrantFacts | None = None, **kwargs: object) -> LadderFacts:
    facts: dict[str, object] = {
        "slug": "kingen",
        "name": "Kingen ladder",
        "family": "kingen",
        "running": True,
        "queued_limit": 6,
        "concurrent_limit": 2,
        "placement_games": 10,
        "queued_now": 0,
        "entrant": entrant,
    }
    return LadderFacts(**(facts | kwargs))  # type: ignore[arg-type]


def _version(*ladders: LadderFacts, **kwargs: object) -> VersionFacts:
    facts: dict[str, object] = {
        "number": 1,
        "status": "active",
        "builtin": False,
        "families": ["kingen"],
        "newest_active": 1,
        "ladders": ladders,
    }
    return VersionFacts(**(facts | kwargs))  # type: ignore[arg-type]


def test_why_a_version_is_in_no_ladder() -> None:
    assert version_states(_version(families=[]))[0].reason == "no_family"
    assert version_states(_version())[0].reason == "no_ladder"
    assert version_states(_version(_ladder(), status="pending"))[0].reason == "pending"
    assert version_states(_version(_ladder(), status="rejected"))[0].reason == "rejected"


def test_a_version_joining_superseded_suspended_or_playing() -> None:
    assert version_states(_version(_ladder()))[0].state == "joining"
    older = version_states(_version(_ladder(), newest_active=3))[0]
    assert (older.state, older.newer) == ("superseded", 3)
    crashes: list[dict[str, object]] = [{"match": n, "seat": 1, "outcome": "crash"} for n in (4, 5)]
    faults = [*crashes, {"match": 6, "seat": 0, "outcome": "init_failure"}]
    suspended = version_states(_version(_ladder(EntrantFacts("suspended", False, faults))))[0]
    assert (suspended.state, dict(suspended.failures)) == (
        "suspended",
        {"crash": 2, "init_failure": 1},
    )
    playing = EntrantFacts("playing", False, games=4, queued=1, running=1)
    placement = version_states(_version(_ladder(playing)))[0]
    assert (placement.state, placement.placement_left) == ("placement", 6)
    assert (placement.limit, placement.limit_value) == ("concurrent", 2)
    placed = EntrantFacts("playing", False, games=12, rank=2, ranked=5, confidence=0.8)
    rated = version_states(_version(_ladder(placed, queued_now=6)))[0]
    assert (rated.state, rated.rank, rated.limit) == ("rated", 2, "queue")
    left = version_states(_version(_ladder(placed), families=["priffe"]))[0]
    assert left.state == "family_left"
    out = version_states(_version(_ladder(EntrantFacts("playing", True))))[0]
    assert out.state == "opted_out"
    paused = version_states(_version(_ladder(placed, running=False)))[0]
    assert paused.state == "paused"
