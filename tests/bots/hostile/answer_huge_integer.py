"""Answers every request with a legal action and an "id" of 5000 digits: too long an
integer for Python's json (ValueError, not JSONDecodeError) and for orjson."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = '{"type": "ready"}'
    elif message["type"] == "request":
        answer = f'{{"action": {json.dumps(message["legal"][0])}, "id": {"7" * 5000}}}'
    else:
        break
    sys.stdout.write(answer + "\n")
    sys.stdout.flush()
