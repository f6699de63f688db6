"""``python -m tooljson``: see :mod:`tooljson.cli`."""

import sys

from tooljson.cli import main

if __name__ == "__main__":
    sys.exit(main())
