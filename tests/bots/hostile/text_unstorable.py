"""Text no database stores as it is: NUL characters (valid JSON as \\u0000) in its action
strings, and NUL and invalid UTF-8 bytes in its stderr."""

import json
import sys

err = sys.stderr.buffer
err.write(b"before hello: NUL \x00 and not UTF-8 \xff\xfe\xed\xa0\x80\n")
err.flush()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = '{"type": "ready"}'
    elif message["type"] == "request":
        err.write(b"request " + str(message["id"]).encode() + b" \x00\x00\n")
        err.flush()
        answer = '{"action": "play \\u0000\\u0000 \\udbff\\udfff \\u00ff"}'
    else:
        break
    sys.stdout.write(answer + "\n")
    sys.stdout.flush()
