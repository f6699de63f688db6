"""Gemini streams to calls: google-genai's ``generate_content_stream`` chunks, Gemini API and Vertex AI.

Each chunk (``GenerateContentResponse``, or the same chunk as the camelCase dict a ``data:`` line of
``:streamGenerateContent?alt=sse`` carries) holds ``candidates``, each with ``content.parts``; a
part with a ``functionCall`` is a call. A call is keyed by ``(candidate index, ordinal)``, the
ordinal counting the calls begun in that candidate since the response began, so the calls of
several candidates never mix.

* A whole call is one part, ``{name, id?, args}``: its input is ``args`` exactly (their JSON text
  is fed to the parser as one fragment).
* Streamed arguments (``stream_function_call_arguments``, Vertex AI, Gemini 3 models): the call
  opens with ``{name, willContinue: true}``; parts without a name then continue it with
  ``partialArgs`` (a JSON path and a value each), and the call ends with an empty ``functionCall``
  or with a part whose ``willContinue`` is absent or false. The pieces become JSON text
  fragments (:mod:`tooljson.providers.gemini.arguments_text`, its paths read by :mod:`tooljson.providers.gemini.json_path`), so previews, structural events, typed values
  and the strict parse are the parser's, as for every provider. While a call streams, a part
  continues it unless it names another function or carries another id: that begins a new call,
  and the one left open ends where it stands (a warning says so).

Where the model gave no ``id`` (the Gemini API usually gives none), one is minted:
``gemini-{responseId}-{candidate}-{ordinal}`` (``gemini-{candidate}-{ordinal}`` without a response
id), the same for the same stream, unique within the response; a real id arriving later in the
call replaces it. The minted id goes into the history (:attr:`GeminiAssembler.content`) and into
the call's ``functionResponse``, so the two always match.

A candidate's ``finishReason`` is the stop reason of its calls (the wire's word: the SDK's enum is
read as its value); calls still open then end where they stand. ``MAX_TOKENS`` with a call open
makes it ``truncated``; ``MALFORMED_FUNCTION_CALL`` and ``UNEXPECTED_TOOL_CALL`` come with no
valid call (``finishMessage``, the model's broken call text, is kept as
:attr:`GeminiAssembler.stop_message`). A chunk with another ``responseId`` begins a new response.

Bad input raises :class:`~tooljson.MalformedEvent` naming the candidate, the call and what is wrong
(a ``jsonPath`` that is not a singular RFC 9535 path, with the character; a path that goes back to
a value already given, skips an array element or clashes with what is there; a piece for a call
that was never opened; a value of the wrong type): the pieces before it in the chunk were taken and
the call's text stays a valid prefix.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from tooljson.providers.gemini.adapter import GeminiAdapter
from tooljson.providers.gemini.chunk_check import check
from tooljson.providers.gemini.content import GeminiAssembler
from tooljson.providers.source import Source

if TYPE_CHECKING:
    from tooljson.calls import ToolCall

__all__ = [
    "SOURCE",
    "GeminiAdapter",
    "GeminiAssembler",
    "answer",
    "check",
    "describe_error",
    "recognise",
]


def recognise(event: Any) -> bool:
    """Whether ``event`` is a Gemini chunk: a dict with ``candidates`` or ``usageMetadata`` (and no
    ``choices``), or google-genai's ``GenerateContentResponse`` (told by its fields, not imported)."""
    if isinstance(event, dict):
        return ("candidates" in event or "usageMetadata" in event) and "choices" not in event
    fields = getattr(event, "__dict__", None)
    return (
        isinstance(fields, dict)
        and "candidates" in fields
        and "model_version" in fields
        and "prompt_feedback" in fields
    )


def answer(call: ToolCall, content: Any, is_error: bool, value: Any) -> dict[str, Any]:
    """The ``functionResponse`` part answering ``call``: ``{"functionResponse": {"id", "name",
    "response"}}``, ``response`` an object (as Gemini requires): ``{"output": value}`` for a result
    (the JSON value, or the text when there is none), ``{"error": text}`` for an error, and an
    error's own object as it is when it has one (``{"INVALID_JSON": raw}`` for input that is not
    JSON). The parts answering one turn's calls go back in one ``{"role": "user", "parts": [...]}``.
    """
    if is_error:
        response = value if isinstance(value, dict) else {"error": content}
    else:
        response = {"output": value if value is not None else content}
    return {"functionResponse": {"id": call.id, "name": call.name, "response": response}}


def describe_error(error: BaseException) -> str | None:
    """A google-genai ``APIError`` raised while streaming, in a line (``None`` for anything else;
    google-genai is looked up only if it was imported, which it was if it raised)."""
    errors = sys.modules.get("google.genai.errors")
    api_error = getattr(errors, "APIError", None)
    if not isinstance(api_error, type) or not isinstance(error, api_error):
        return None
    kind = getattr(error, "status", None) or getattr(error, "code", None) or "error"
    return f"{kind}: {getattr(error, 'message', None) or error}"


SOURCE = Source(
    name="gemini",
    title="Gemini",
    recognise=recognise,
    marks=frozenset({"candidates", "usageMetadata"}),
    adapter=GeminiAdapter,
    assembler=lambda warnings: GeminiAssembler(),
    cut_off=frozenset({"MAX_TOKENS"}),
    refused=frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"}),
    end_event="finishReason",
    answer=answer,
    check=check,
    stream_paths=(r"/models/(?P<model>[^/:]+):streamGenerateContent",),
    describe_error=describe_error,
    telemetry_name="gcp.gemini",
    wire="tooljson.providers.gemini.wire",
    streams="tooljson.providers.gemini.streams",
    extra="gemini",
    modules=("google.genai",),
    distributions={"google.genai": "google-genai"},
)
"""Everything tooljson knows about Gemini streams (see :class:`tooljson.providers.source.Source`)."""
