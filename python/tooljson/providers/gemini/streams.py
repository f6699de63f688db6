"""Gemini streams built from argument texts: what tests feed a reader, in Vertex AI's streamed shape.

Gemini streams a call's arguments as values at JSON paths (``partialArgs``), not as text: :func:`events`
takes each call's argument text (the fragments joined; a JSON object, or a prefix of one for the call
cut off at the token limit) and writes the chunks that stream its values, as the stand-in writes
them; :func:`as_sdk_objects` turns them into google-genai's ``GenerateContentResponse`` objects.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

__all__ = ["ARGUMENT_TEXT", "CUT_OFF_STOP", "NORMAL_STOP", "as_sdk_objects", "events"]

ARGUMENT_TEXT = False
"""The wire carries a call's arguments as values at JSON paths: only a JSON object (or a prefix of
one) can be streamed, and the text a reader holds is its own writing of those values."""
NORMAL_STOP = "STOP"
"""The ``finishReason`` of a response that ended after its calls."""
CUT_OFF_STOP = "MAX_TOKENS"
"""The ``finishReason`` of a response cut off at the token limit."""


def _chunk(parts: list[dict[str, Any]], **candidate: Any) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "index": 0, **candidate}],
        "responseId": "resp-test",
        "modelVersion": "gemini-3-pro-preview",
    }


def events(calls: Sequence[Sequence[str]], *, cut_off: bool = False) -> list[dict[str, Any]]:
    """The chunks of one response: per call its opening part (id ``call_<n>``, name ``tool_<n>``),
    one chunk per ``partialArgs`` entry of its text, and an empty ``functionCall`` ending it (not for
    the last call when ``cut_off``); then ``finishReason`` ``STOP`` or ``MAX_TOKENS``."""
    # The stand-in first: it imports every wire, this one among them, when it starts.
    import tooljson.standin  # noqa: F401
    from tooljson.providers.gemini.wire.replies import partial_args

    rng = random.Random(0)
    out: list[dict[str, Any]] = []
    for number, fragments in enumerate(calls):
        opening = {"id": f"call_{number}", "name": f"tool_{number}", "willContinue": True}
        out.append(_chunk([{"functionCall": opening}]))
        out += [
            _chunk([{"functionCall": {"partialArgs": [entry], "willContinue": True}}])
            for entry in partial_args("".join(fragments), rng, (1, 32))
        ]
        if not (cut_off and number == len(calls) - 1):
            out.append(_chunk([{"functionCall": {}}]))
    out.append(_chunk([{"text": ""}], finishReason=CUT_OFF_STOP if cut_off else NORMAL_STOP))
    return out


def as_sdk_objects(stream: Sequence[dict[str, Any]]) -> list[Any]:
    """The chunks as google-genai yields them (needs google-genai)."""
    from google.genai import types

    return [types.GenerateContentResponse.model_validate(chunk) for chunk in stream]
