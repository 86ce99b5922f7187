"""Run the command line with ``python -m autocat``."""

from __future__ import annotations

import sys

from autocat.cli import main

if __name__ == "__main__":
    sys.exit(main())
