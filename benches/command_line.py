"""The command line of a benchmark run as a script (``python benches/bench_x.py [ROUNDS]``).

One parser for them all, so a bad argument or ``--help`` gets argparse's one-line usage error and
exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import sys


def rounds(default: int, description: str | None = None, *, extra: str | None = None) -> argparse.Namespace:
    """The parsed arguments: ``rounds`` (a positive count, ``default`` when left out) and, when
    ``extra`` names one, a second optional positional string of that name."""
    parser = argparse.ArgumentParser(prog=sys.argv[0], description=description)
    parser.add_argument(
        "rounds", nargs="?", type=_positive, default=default, help=f"paired rounds ({default})"
    )
    if extra is not None:
        parser.add_argument(extra, nargs="?", default=None)
    return parser.parse_args()


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value
