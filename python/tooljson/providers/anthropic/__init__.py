"""The Messages API (``client.messages.create(..., stream=True)``, ``messages.stream(...)``; also through
``AnthropicBedrock`` and ``AnthropicVertex``): the source tooljson was built on.

The package holds everything tooljson knows of it: its adapter (:mod:`.adapter`, whose hot path
takes a tool block's ``input_json_delta`` fragments in the fewest steps), the check of its events
(:mod:`.event_checks`), the content (:class:`MessageAssembler`, which rebuilds every block of the
message), its tool results (``tool_result`` blocks), the events a whole (non-streamed) message stands
for (:func:`message_events`, for the proxy), how the anthropic SDK reports a broken stream, and the
stand-in's side (:mod:`.wire`, :mod:`.endpoint`). It is the registry's default: the source of a
reader that has read nothing yet.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tooljson.errors import MalformedEvent, is_event, not_an_event
from tooljson.providers import event_field
from tooljson.providers.anthropic.adapter import TOOL_BLOCK_TYPES, MessagesAdapter, hot_path
from tooljson.providers.anthropic.event_checks import DELTA_FIELDS, EVENT_TYPES, event_problem
from tooljson.providers.source import Source

if TYPE_CHECKING:
    from tooljson.calls import ToolCall

__all__ = [
    "SOURCE",
    "TOOL_BLOCK_TYPES",
    "MessageAssembler",
    "MessagesAdapter",
    "answer",
    "describe_error",
    "message_events",
    "recognise",
]


def recognise(event: Any) -> bool:
    """Whether ``event`` is a Messages API event: one whose ``type`` is one of the API's event types
    (or of its SDK stream helper's derived events). An unknown type is recognised only inside a
    Messages stream already being read (:meth:`MessagesAdapter.tolerates`)."""
    kind = event_field(event, "type")
    return type(kind) is str and kind in EVENT_TYPES


def _as_dict(obj: Any) -> dict[str, Any]:
    """A content block or citation as the plain dict the API sent (and accepts back)."""
    if isinstance(obj, dict):
        return dict(obj)
    to_dict = getattr(obj, "to_dict", None)
    if to_dict is not None:
        # The SDK's to_dict leaves out fields the server did not send, so the block goes back as it came.
        return dict(to_dict())
    return dict(obj.model_dump(exclude_unset=True))


# The streamed deltas whose piece is kept, by delta type: the field (and block type) they fill.
_PIECES = {"text_delta": "text", "thinking_delta": "thinking"}

# The block type each content delta belongs to; a delta for another kind of block is ignored.
_DELTA_BLOCKS = {
    "text_delta": "text",
    "citations_delta": "text",
    "thinking_delta": "thinking",
    "signature_delta": "thinking",
}


class MessageAssembler:
    """Rebuilds a streamed message's content blocks, as dicts ready to be sent back as history.

    Text (with citations), thinking (with its signature), redacted thinking, server tool results and
    any other block arriving whole are kept; ``tool_use`` / ``server_tool_use`` blocks get their
    input from :meth:`set_tool_input`, since parsing it is the accumulator's job. Streamed text is
    kept as a list of pieces and joined when the content is read, so a long text costs linear time.

    Every event but the tool-input fragments is checked (:func:`tooljson.providers.anthropic.event_checks.event_problem`):
    a malformed one raises :class:`~tooljson.MalformedEvent`; an oddity (an unknown event or delta
    type, a delta or stop for a block not open, a second start for an open block) is appended to
    ``warnings`` as a line and the event is ignored.
    """

    def __init__(self, warnings: list[str] | None = None) -> None:
        self._blocks: dict[Any, dict[str, Any]] = {}
        # Blocks started and not stopped yet.
        self._open: set[Any] = set()
        # Streamed pieces by block index and field ("text", "thinking").
        self._pieces: dict[Any, dict[str, list[str]]] = {}
        self.usage: dict[str, Any] = {}
        self.stopped = False
        # The error event that ended the stream, if one did.
        self.error: dict[str, Any] | None = None
        self.warnings: list[str] = [] if warnings is None else warnings

    def feed(self, event: Any) -> None:
        """Take one stream event (SDK object or dict); derived helper events are ignored."""
        # Deltas are most events: read inline, for dicts and SDK objects alike. Tool input is the
        # accumulator's job: the bulk of a long stream stops at the first return. Text and thinking,
        # the bulk of the rest, are checked here in short: the piece is a string, for an open block
        # of the kind that takes it. Anything else gets the full check below.
        delta_type: Any = None
        if isinstance(event, dict):
            kind = event.get("type")
            delta = event.get("delta") if kind == "content_block_delta" else None
            if isinstance(delta, dict):
                delta_type = delta.get("type")
                if delta_type == "input_json_delta":
                    return
                name = _PIECES.get(delta_type) if isinstance(delta_type, str) else None
                if name is not None and self._short_piece(event.get("index"), name, delta.get(name)):
                    return
        else:
            kind = getattr(event, "type", None)
            delta = getattr(event, "delta", None) if kind == "content_block_delta" else None
            delta_type = getattr(delta, "type", None)
            if delta_type == "input_json_delta" and kind == "content_block_delta":
                return
            name = _PIECES.get(delta_type) if isinstance(delta_type, str) else None
            if name is not None and self._short_piece(
                getattr(event, "index", None), name, getattr(delta, name, None)
            ):
                return
        known = isinstance(kind, str) and kind in EVENT_TYPES
        problem = event_problem(event)
        if problem is not None and known:
            raise MalformedEvent(problem)
        if not is_event(event):
            raise not_an_event(event)
        if kind == "content_block_delta":
            index = event_field(event, "index")
            block = self._blocks.get(index) if index in self._open else None
            if block is None:
                self.warnings.append(f"{delta_type} for block {index!r}, which is not open: ignored")
                return
            if delta_type not in DELTA_FIELDS:
                self.warnings.append(f"unknown delta type {delta_type!r} for block {index!r}: ignored")
                return
            if _DELTA_BLOCKS[delta_type] != block.get("type"):
                self.warnings.append(
                    f"{delta_type} for block {index!r}, a {block.get('type')} block: ignored"
                )
            elif delta_type == "text_delta":
                self._piece(index, "text", event_field(delta, "text"))
            elif delta_type == "thinking_delta":
                self._piece(index, "thinking", event_field(delta, "thinking"))
            elif delta_type == "signature_delta":
                block["signature"] = event_field(delta, "signature")
            else:
                block.setdefault("citations", []).append(_as_dict(event_field(delta, "citation")))
        elif kind == "content_block_start":
            block = _as_dict(event_field(event, "content_block"))
            if block.get("type") == "text" and not block.get("citations"):
                # The start block carries "citations": null, which the API does not take back.
                block.pop("citations", None)
            index = event_field(event, "index")
            if index in self._open:
                ends = (
                    "ends where it stopped"
                    if self._blocks[index].get("type") in TOOL_BLOCK_TYPES
                    else "is replaced"
                )
                self.warnings.append(
                    f"a second content_block_start for block {index!r}, still open: the first {ends}"
                )
            self._blocks[index] = block
            self._open.add(index)
            self._pieces.pop(index, None)
        elif kind == "content_block_stop":
            index = event_field(event, "index")
            if index not in self._open:
                self.warnings.append(f"content_block_stop for block {index!r}, which is not open: ignored")
            self._open.discard(index)
        elif kind == "message_delta":
            usage = event_field(event, "usage")
            if usage is not None:
                self.usage.update({k: v for k, v in _as_dict(usage).items() if v is not None})
        elif kind == "message_start":
            message = _as_dict(event_field(event, "message"))
            self._blocks.clear()
            self._open.clear()
            self._pieces.clear()
            self.usage = dict(message.get("usage") or {})
            self.stopped = False
        elif kind == "message_stop":
            self.stopped = True
        elif kind == "error":
            self.error = _as_dict(event)
        elif not known:
            # Not the Messages API's (a newer event type, another provider's event): noted, not fatal.
            what = (
                f"unknown event type {kind!r}"
                if isinstance(kind, str)
                else 'an event without a "type" string'
            )
            self.warnings.append(f"{what}: ignored")

    def _short_piece(self, index: Any, name: str, piece: Any) -> bool:
        """Keep a text or thinking piece that needs no more checking; ``False`` for one that does."""
        if isinstance(piece, str) and isinstance(index, int) and index in self._open:
            if self._blocks[index].get("type") == name:
                self._pieces.setdefault(index, {}).setdefault(name, []).append(piece)
                return True
        return False

    def _piece(self, index: Any, name: str, text: str) -> None:
        self._pieces.setdefault(index, {}).setdefault(name, []).append(text)

    def set_tool_input(self, index: Any, value: Any) -> None:
        """Put a tool block's parsed input in place (``{}`` when it did not parse)."""
        block = self._blocks.get(index)
        if block is not None:
            block["input"] = value if isinstance(value, dict) else {}

    def set_call(self, call: ToolCall) -> None:
        """Put a finished call's input in its block."""
        self.set_tool_input(call.index, call.input)

    def _joined(self, index: Any, block: dict[str, Any]) -> dict[str, Any]:
        pieces = self._pieces.get(index)
        if not pieces:
            return block
        joined = dict(block)
        for name, parts in pieces.items():
            joined[name] = (joined.get(name) or "") + "".join(parts)
        return joined

    @property
    def content(self) -> list[dict[str, Any]]:
        """The blocks received so far, in index order, as new dicts."""
        try:
            order = sorted(self._blocks)
        except TypeError:
            # Indices that do not compare with each other (item ids, tuples): the order they came in.
            order = list(self._blocks)
        return [self._joined(index, self._blocks[index]) for index in order]

    @property
    def text(self) -> str:
        """The text of the text blocks so far, joined."""
        return "".join(block.get("text", "") for block in self.content if block.get("type") == "text")

    @property
    def thinking_chars(self) -> int:
        """Characters of thinking streamed so far (the views show the count, not the text)."""
        return sum(len(part) for pieces in self._pieces.values() for part in pieces.get("thinking", ()))


def message_events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The stream events a whole Messages response stands for, so that the same reader shows it: each
    tool input as one ``input_json_delta`` of its JSON text."""
    blocks = message.get("content")
    content: list[Any] = blocks if isinstance(blocks, list) else []
    start = {
        key: value for key, value in message.items() if key not in ("content", "stop_reason", "stop_sequence")
    }
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**start, "content": [], "stop_reason": None}}
    ]
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        if block.get("type") in ("tool_use", "server_tool_use"):
            events.append(
                {"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}}
            )
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(block.get("input", {}))},
                }
            )
        else:
            events.append({"type": "content_block_start", "index": index, "content_block": block})
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message.get("stop_reason")},
            "usage": message.get("usage") or {},
        }
    )
    events.append({"type": "message_stop"})
    return events


def answer(call: ToolCall, content: Any, is_error: bool, value: Any) -> dict[str, Any]:
    """A ``tool_result`` block; a handler's list of content blocks is sent as it is."""
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id}
    if is_error:
        result["is_error"] = True
    if not is_error and isinstance(value, list) and all(isinstance(block, dict) for block in value):
        content = value
    result["content"] = content
    return result


def describe_error(error: BaseException) -> str | None:
    """The anthropic SDK's error for an ``error`` event (its ``body`` is the event), in a line."""
    body = getattr(error, "body", None)
    details = body.get("error") if isinstance(body, dict) else None
    if isinstance(details, dict):
        return f"{details.get('type', 'error')}: {details.get('message', '')}"
    return None


def stop_reason_of(event: Any) -> str | None:
    """The stop reason of a ``message_delta``."""
    if event_field(event, "type") != "message_delta":
        return None
    reason = event_field(event_field(event, "delta"), "stop_reason")
    return reason if isinstance(reason, str) else None


def _check(event: dict[str, Any]) -> str | None:
    return event_problem(event, positions=True)


def _whole(body: Any) -> list[dict[str, Any]]:
    return message_events(body) if isinstance(body, dict) and body.get("type") == "message" else []


SOURCE = Source(
    name="anthropic",
    title="the Messages API",
    recognise=recognise,
    assembler=MessageAssembler,
    adapter=MessagesAdapter,
    hot_path=hot_path,
    cut_off=frozenset({"max_tokens"}),
    end_event="message_stop",
    answer=answer,
    check=_check,
    stream_paths=(r"/messages$",),
    whole=_whole,
    describe_error=describe_error,
    stop_reason_of=stop_reason_of,
    telemetry_name="anthropic",
    wire="tooljson.providers.anthropic.wire",
    streams="tooljson.providers.anthropic.streams",
    extra="stream",
    modules=("anthropic",),
    accelerated=True,
)
