"""Answers every request with a legal action followed by bytes that are not UTF-8."""

import json
import sys

out = sys.stdout.buffer
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = b'{"type": "ready"}'
    elif message["type"] == "request":
        answer = b'{"action": "' + message["legal"][0].encode() + b'\xff\xfe\xc0\x80"}'
    else:
        break
    out.write(answer + b"\n")
    out.flush()
