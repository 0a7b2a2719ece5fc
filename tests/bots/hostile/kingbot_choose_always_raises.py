"""A bot on the helper module whose own code fails at every decision: kingbot plays the
first legal action for it each time (and says so in its answers)."""

import kingbot  # type: ignore[import-not-found]  # the league's copy, on the path in a match


def choose(request: kingbot.Request) -> str:
    raise ValueError(f"no strategy for {request.phase} yet")


kingbot.run(choose)
