"""Answers every request with a legal action beside an array nested 30,000 deep (60 KB,
under the line's cap): Python's json raises RecursionError on it, orjson refuses it."""

import json
import sys

DEPTH = 30_000

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = '{"type": "ready"}'
    elif message["type"] == "request":
        nested = "[" * DEPTH + "]" * DEPTH
        answer = f'{{"action": {json.dumps(message["legal"][0])}, "x": {nested}}}'
    else:
        break
    sys.stdout.write(answer + "\n")
    sys.stdout.flush()
