"""Reads hello and never answers it (nor anything else)."""

import sys
import time

sys.stdin.readline()
time.sleep(600)
