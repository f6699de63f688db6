"""``python -m tooljson.standin``: the same as ``python -m tooljson standin``."""

import sys

from tooljson.cli import main

if __name__ == "__main__":
    sys.exit(main(["standin", *sys.argv[1:]], prog="python -m tooljson"))
