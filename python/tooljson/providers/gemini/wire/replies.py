"""The stand-in's Gemini: a scenario's reply written as ``GenerateContentResponse`` chunks, whole calls
or streamed ``partialArgs`` at RFC 9535 paths, and its errors in Gemini's shape (see
:mod:`tooljson.providers.gemini.wire`)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from tooljson.errors import MalformedJSONError
from tooljson.parser import Parser
from tooljson.providers.gemini.wire.requests import streams_arguments
from tooljson.standin.conversation import parse_json_or_none
from tooljson.standin.intake import json_bytes
from tooljson.standin.render import RenderedStream, assign_ids, cut_text, estimate_tokens, make_id
from tooljson.standin.reply import Reply, Text, Thinking, ToolUse

__all__ = ["UnstreamableArguments", "error", "frame", "json_path", "partial_args", "render", "tail"]

# A fixed creation time: the same request always gets the same bytes.
_CREATE_TIME = "2026-01-01T00:00:00.000000Z"
_STATUS_WORDS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    413: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    503: "UNAVAILABLE",
}
# An RFC 9535 member-name-shorthand: what may follow a "." in a path.
_SHORTHAND = re.compile(r"[A-Za-z_\u0080-\ud7ff\ue000-\U0010ffff][A-Za-z0-9_\u0080-\ud7ff\ue000-\U0010ffff]*")
_PATH_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "'": "\\'", "\\": "\\\\"}


class UnstreamableArguments(ValueError):
    """Arguments that ``partialArgs`` cannot carry: an empty object or array inside them."""


def json_path(path: tuple[str | int, ...]) -> str:
    """``path`` (keys and array positions from the root) as an RFC 9535 path: ``$.items[0].sku``,
    a name that is not a member-name shorthand in brackets (``$['gift wrap']``)."""
    out = ["$"]
    for step in path:
        if isinstance(step, int):
            out.append(f"[{step}]")
        elif _SHORTHAND.fullmatch(step):
            out.append("." + step)
        else:
            escaped = "".join(
                _PATH_ESCAPES.get(char, f"\\u{ord(char):04x}" if char < " " else char) for char in step
            )
            out.append(f"['{escaped}']")
    return "".join(out)


def partial_args(text: str, rng: random.Random, sizes: tuple[int, int]) -> list[dict[str, Any]]:
    """The ``partialArgs`` entries of an argument text (a JSON object, or a prefix of one), in
    document order: one per scalar, each string cut into pieces; a string still open where a prefix
    ends has ``willContinue`` on every piece, and a number or literal not yet ended is left out.
    Raises :class:`UnstreamableArguments` for an empty object or array inside them."""
    parser = Parser(events=True)
    parser.feed(text)
    events = parser.events()
    entries: list[dict[str, Any]] = []
    for kind, path, value in events:
        if not path:
            continue
        where = json_path(path)
        if kind == "append":
            entries += [
                {"jsonPath": where, "stringValue": piece, "willContinue": True}
                for piece in cut_text(value, rng, sizes)
            ]
        elif kind != "complete":
            continue
        elif isinstance(value, (dict, list)):
            if not value:
                raise UnstreamableArguments(
                    f"{where}: an empty object or array cannot be sent as partialArgs"
                )
        elif isinstance(value, str):
            pieces = cut_text(value, rng, sizes) or [""]
            entries += [{"jsonPath": where, "stringValue": piece, "willContinue": True} for piece in pieces]
            del entries[-1]["willContinue"]
        elif isinstance(value, bool):
            entries.append({"jsonPath": where, "boolValue": value})
        elif value is None:
            entries.append({"jsonPath": where, "nullValue": "NULL_VALUE"})
        else:
            entries.append({"jsonPath": where, "numberValue": value})
    return entries


def _arguments(text: str) -> dict[str, Any] | None:
    """A whole call's arguments, or ``None`` when its text is not a JSON object."""
    if not text:
        return {}
    value = parse_json_or_none(text)
    return value if isinstance(value, dict) else None


def _is_prefix(text: str) -> bool:
    """Whether a cut-off call's text is the start of a JSON object."""
    if text.lstrip()[:1] not in ("", "{"):
        return False
    try:
        Parser().feed(text)
    except MalformedJSONError:
        return False
    return True


def _streamed_call(
    call: ToolUse, text: str, rng: random.Random, sizes: tuple[int, int], *, left_open: bool
) -> list[dict[str, Any]]:
    """The parts of one call with streamed arguments, one part per chunk."""
    parts: list[dict[str, Any]] = [
        {"functionCall": {"id": _call_id(call), "name": call.name, "willContinue": True}}
    ]
    entries = partial_args(text, rng, sizes)
    while entries:
        count = rng.randint(1, 3)
        parts.append({"functionCall": {"partialArgs": entries[:count], "willContinue": True}})
        entries = entries[count:]
    if left_open:
        return parts
    # The API ends a call either way: an empty functionCall, or a last chunk without willContinue.
    if len(parts) > 1 and rng.random() < 0.5:
        del parts[-1]["functionCall"]["willContinue"]
    else:
        parts.append({"functionCall": {}})
    return parts


def _call_id(call: ToolUse) -> str:
    return str(call.id).partition("_")[2]


def render(
    reply: Reply,
    *,
    rng: random.Random,
    body: dict[str, Any],
    model: str,
    vertex: bool,
    fragment_sizes: tuple[int, int],
) -> RenderedStream:
    """The chunks answering ``body`` (the request as sent) for ``model``, on Vertex or the Gemini API."""
    response_id = make_id(rng, "")
    streamed = vertex and streams_arguments(body)
    blocks = assign_ids(reply.blocks, rng)
    calls = [
        position for position, block in enumerate(blocks) if isinstance(block, ToolUse) and not block.server
    ]
    fault = reply.fault
    cut_call = calls[-1] if reply.stop_reason == "max_tokens" and calls else None
    # A call whose text is not JSON is never sent: the response names it in its finishMessage.
    malformed = [
        blocks[position]
        for position in calls
        if position != cut_call
        and (fault is None or fault.block != position)
        and _arguments(getattr(blocks[position], "input_text", "")) is None
    ]
    if cut_call is not None and not _is_prefix(getattr(blocks[cut_call], "input_text", "")):
        malformed.append(blocks[cut_call])

    def chunk(parts: list[dict[str, Any]] | None, **candidate: Any) -> dict[str, Any]:
        event: dict[str, Any] = {
            "candidates": [
                {**({"content": {"role": "model", "parts": parts}} if parts else {}), **candidate, "index": 0}
            ]
        }
        if vertex:
            event["createTime"] = _CREATE_TIME
        event["responseId"] = response_id
        event["modelVersion"] = model
        return event

    parts: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, Text):
            parts += [{"text": piece} for piece in cut_text(block.text, rng, fragment_sizes)]
        elif isinstance(block, Thinking):
            thoughts: list[dict[str, Any]] = [
                {"text": piece, "thought": True} for piece in cut_text(block.thinking, rng, fragment_sizes)
            ]
            if thoughts:
                thoughts[-1]["thoughtSignature"] = block.signature
            parts += thoughts
        elif isinstance(block, ToolUse) and not block.server and not malformed:
            broken = fault is not None and fault.block == position
            text = block.input_text[: fault.after_chars] if broken and fault is not None else block.input_text
            if streamed:
                parts += _streamed_call(
                    block, text, rng, fragment_sizes, left_open=broken or position == cut_call
                )
            elif not broken and position != cut_call:
                whole: dict[str, Any] = {"name": block.name, "args": _arguments(text)}
                if vertex:
                    whole["id"] = _call_id(block)
                parts.append({"functionCall": whole})
            if broken and fault is not None:
                events = [chunk([part]) for part in parts]
                if fault.kind == "drop":
                    return RenderedStream(events, drop=True)
                events.append(
                    {"error": {"code": 503, "message": fault.error_message, "status": "UNAVAILABLE"}}
                )
                return RenderedStream(events, drop=False)
    events = [chunk([part]) for part in parts]
    if malformed:
        texts = "\n".join(f"{call.name} {call.input_text}" for call in malformed if isinstance(call, ToolUse))
        events.append(
            chunk(
                None,
                finishReason="MALFORMED_FUNCTION_CALL",
                finishMessage=f"Malformed function call: {texts}",
            )
        )
    else:
        reason = "MAX_TOKENS" if reply.stop_reason == "max_tokens" else "STOP"
        if events:
            events[-1]["candidates"][0] = {**events[-1]["candidates"][0], "finishReason": reason}
        else:
            events.append(chunk(None, finishReason=reason))
    prompt = estimate_tokens(json.dumps(body.get("contents")) + json.dumps(body.get("tools", [])))
    output = (
        reply.output_tokens if reply.output_tokens is not None else max(1, estimate_tokens(json.dumps(parts)))
    )
    events[-1]["usageMetadata"] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "totalTokenCount": prompt + output,
    }
    return RenderedStream(events, drop=False)


def frame(event: dict[str, Any]) -> bytes:
    """One chunk as its ``data:`` line, ended as the API ends it (CRLF)."""
    return b"data: " + json_bytes(event, separators=(",", ":")) + b"\r\n\r\n"


def tail(stream: RenderedStream) -> bytes:
    """The API sends nothing after its last chunk."""
    return b""


def error(status: int, message: str) -> tuple[dict[str, str], bytes]:
    """An error answer's headers and body, as the API shapes them."""
    word = _STATUS_WORDS.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION")
    payload = {"error": {"code": status, "message": message, "status": word}}
    return {"Content-Type": "application/json; charset=UTF-8"}, json.dumps(payload).encode()
