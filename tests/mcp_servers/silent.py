"""A "server" that starts, says so on stderr, and never answers initialize."""

import sys
import time

print("silent server: up, and not going to answer", file=sys.stderr, flush=True)
time.sleep(600)
