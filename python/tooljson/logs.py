"""Sending the library's log lines elsewhere for a while.

tooljson logs repairs, rejections and retries on the ``"tooljson"`` logger. A live terminal view
must not let them cross its display on stderr, so the views route them into their own output while
they run, and leave the logger as they found it (the tests call the views from one process).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["redirected_logs"]


@contextmanager
def redirected_logs(handler: logging.Handler) -> Iterator[None]:
    """Send the ``"tooljson"`` logger's INFO lines and above to ``handler`` only, for the block."""
    logger = logging.getLogger("tooljson")
    saved = (logger.level, logger.propagate)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
