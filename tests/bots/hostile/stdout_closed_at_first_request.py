"""Answers hello, then closes its stdout at the first request and lives on, silent."""

import json
import os
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        sys.stdout.write('{"type": "ready"}\n')
        sys.stdout.flush()
    elif message["type"] == "request":
        sys.stdout.close()
        os.close(1)  # (sys.stdout.close() leaves the descriptor to the runtime)
        time.sleep(600)
