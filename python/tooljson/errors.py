"""The exceptions tooljson raises.

All of them subclass :class:`json.JSONDecodeError`, so code written as ``except json.JSONDecodeError``
keeps working, and they carry json's fields: ``msg``, ``doc`` (the whole joined text), ``pos`` (a
character offset into ``doc``), ``lineno`` and ``colno``.
"""

from __future__ import annotations

import json

__all__ = [
    "IncompleteJSONError",
    "InputTooLargeError",
    "JSONDecodeError",
    "MalformedJSONError",
    "NestingTooDeepError",
]


class JSONDecodeError(json.JSONDecodeError):
    """Base class of every parse error tooljson raises."""


class IncompleteJSONError(JSONDecodeError):
    """The text is a valid prefix of JSON that ended early: it was cut off.

    ``pos`` is ``len(doc)``: the place where more text was expected.
    """


class MalformedJSONError(JSONDecodeError):
    """The text can never become JSON: ``pos`` is the first character that makes it invalid."""


class NestingTooDeepError(MalformedJSONError, RecursionError):
    """Arrays and objects are nested deeper than the parser's ``max_depth``.

    It is also a :class:`RecursionError`, which is what :func:`json.loads` raises on such input.
    """


class InputTooLargeError(MalformedJSONError):
    """The text is longer than the parser's ``max_size`` (in UTF-8 bytes).

    ``pos`` is where the limit was crossed; ``doc`` holds the text up to the fragment that crossed
    it, which is not kept, so that the limit bounds memory as well as work.
    """
