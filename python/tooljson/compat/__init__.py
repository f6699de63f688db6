"""Drop-in functions for code that re-parses a growing buffer after every chunk.

:func:`from_json` gives what ``jiter.from_json`` gives and :func:`parse_partial_json` what
LangChain's ``parse_partial_json`` gives, for every input; when a call's input extends a recent
call's, they read only the new part. :class:`PartialParser` is the same for a caller that keeps one
object per buffer.
"""

from .jiter_mode import from_json
from .langchain_mode import parse_partial_json
from .lossless import LosslessFloat
from .stateful import PartialParser

__all__ = ["LosslessFloat", "PartialParser", "from_json", "parse_partial_json"]
