"""A bot on the helper module whose own code fails at its first decision only."""

import kingbot  # type: ignore[import-not-found]  # the league's copy, on the path in a match

failed = False


def choose(request: kingbot.Request) -> str:
    global failed
    if not failed:
        failed = True
        return "not an action"
    return request.legal[-1]


kingbot.run(choose)
