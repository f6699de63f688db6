"""``python -m tooljson.ui``: the debug views (``watch``, ``record``, ``replay``, ``web``)."""

from __future__ import annotations

import sys

from tooljson.ui.cli import main

if __name__ == "__main__":
    sys.exit(main())
