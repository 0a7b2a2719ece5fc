#!/usr/bin/env python3
"""A King League bot that plays a random legal action: the protocol by hand, stdlib only.

Try it from a terminal (type the two lines, or pipe them in):

    python3 bots/examples/random_bot.py
    {"type": "hello", "protocol": 1, "seat": 0, "seats": 4, "game": "kingen", "time": {}}
    {"type": "request", "id": 1, "view": {}, "legal": ["play 2C", "play 9C"], "time": {}}

It answers {"type": "ready"}, then {"id": 1, "action": "play 9C"} (or 2C).
Play it in a match: python -m bots match kingen bots/examples/random_bot.py builtin:greedy ...
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random()
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            answer = {"type": "ready"}
        elif kind == "request":
            answer = {"id": message["id"], "action": rng.choice(message["legal"])}
        elif kind == "end":
            return
        else:
            continue  # a message type of a later protocol version
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
