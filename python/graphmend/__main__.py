"""``python -m graphmend run script.py [args...]`` (see graphmend.cli)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
