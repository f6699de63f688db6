"""From Messages API stream events to finished tool calls.

:class:`ToolCallAccumulator` is the native accumulator plus :meth:`~ToolCallAccumulator.feed`, which
takes one stream event at a time (an ``anthropic`` SDK event object or the same event as a plain dict)
and returns the :class:`ToolCall` objects that event completed. Each call is parsed strictly at its
``content_block_stop``; whether an unparsable call was *truncated* or is *invalid* can only be decided
once ``message_delta`` has brought the ``stop_reason``, which is why :class:`ToolCall` only records the
parse outcome and :meth:`ToolCallAccumulator.is_truncated` answers the question later.

Nothing here imports ``anthropic``: events are read by attribute or by key.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from tooljson import _native
from tooljson.errors import IncompleteJSONError, JSONDecodeError, MalformedJSONError

__all__ = [
    "ToolCall",
    "ToolCallAccumulator",
    "TruncatedToolInput",
    "acollect_tool_calls",
    "aiter_events",
    "collect_tool_calls",
    "invalid_json_result",
    "iter_events",
]

CallStatus = Literal["ok", "incomplete", "malformed"]
BlockType = Literal["tool_use", "server_tool_use"]

# Block types whose input streams as input_json_delta and that this module turns into ToolCalls.
TOOL_BLOCK_TYPES = frozenset({"tool_use", "server_tool_use"})


@dataclass(frozen=True)
class ToolCall:
    """One tool call, parsed once its block stopped.

    ``input`` is what :func:`json.loads` returns for ``raw_json`` (``{}`` when no text streamed), or
    ``None`` when the text did not parse; ``error`` is then the :class:`tooljson.JSONDecodeError`
    (an :class:`~tooljson.IncompleteJSONError` for a cut-off text, a
    :class:`~tooljson.MalformedJSONError` otherwise) and ``status`` says which.
    """

    index: int
    id: str
    name: str
    input: Any
    raw_json: str
    # The error follows from raw_json, and exceptions compare by identity: equality ignores it.
    error: JSONDecodeError | None = field(default=None, compare=False)
    status: CallStatus = "ok"
    block_type: BlockType = "tool_use"

    @property
    def ok(self) -> bool:
        """Whether the input parsed."""
        return self.status == "ok"


class TruncatedToolInput(Exception):  # noqa: N818 - the name says what happened, as json's do
    """A tool call's input was cut off because the response hit ``max_tokens``.

    ``raw_json`` is the text received (a valid prefix of JSON), ``call`` the :class:`ToolCall`, and
    ``max_tokens`` the limit of the request that was cut off, when known.
    """

    def __init__(self, call: ToolCall, *, max_tokens: int | None = None) -> None:
        limit = f" (max_tokens={max_tokens})" if max_tokens is not None else ""
        super().__init__(
            f"input of tool call {call.name!r} (id {call.id}) was cut off at max_tokens{limit} "
            f"after {len(call.raw_json)} characters"
        )
        self.call = call
        self.raw_json = call.raw_json
        self.max_tokens = max_tokens


def invalid_json_result(call: ToolCall) -> dict[str, Any]:
    """The ``tool_result`` that answers a call whose input is not JSON, without running the tool.

    Its content is the JSON text of ``{"INVALID_JSON": <the raw text>}``, the convention models
    recognise and usually correct on the next turn.
    """
    return {
        "type": "tool_result",
        "tool_use_id": call.id,
        "is_error": True,
        "content": json.dumps({"INVALID_JSON": call.raw_json}),
    }


def _field(obj: Any, name: str) -> Any:
    """Read ``name`` from an SDK object or a dict alike (``None`` when absent)."""
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


class ToolCallAccumulator(_native.ToolCallAccumulator):
    """The native accumulator, fed whole stream events.

    ``start``, ``add_delta``, ``finish`` and the rest keep the native behaviour unchanged; ``feed``
    drives them from events. Raw events (from ``messages.create(stream=True)``) and the helper stream
    of ``messages.stream(...)`` both work: the helper's derived events (``text``, ``input_json``,
    ``thinking``, ``citation``, ``signature``) repeat data of the raw events next to them and are
    ignored, so nothing is counted twice.

    After each event, ``stop_reason`` holds the message's stop reason once ``message_delta`` brought
    it, and ``calls`` lists every call completed since the last ``message_start``.
    """

    stop_reason: str | None
    calls: list[ToolCall]

    def __init__(self, **options: Any) -> None:
        # The native __new__ already took the keyword options (max_depth, max_size, preview and
        # event settings); this only sets the Python-side state.
        self.stop_reason = None
        self.calls = []
        # index -> (block type, name, id): finish forgets the index even when it raises.
        self._open: dict[int, tuple[BlockType, str, str]] = {}

    def feed(self, event: Any) -> list[ToolCall]:
        """Take one stream event; return the tool calls it completed (usually none, or one)."""
        # Deltas are nearly every event of a long input: they take the shortest path, for dicts and
        # SDK objects alike, before anything else is looked at.
        if isinstance(event, dict):
            kind = event.get("type")
            if kind == "content_block_delta":
                index = event.get("index")
                if index in self._open:
                    delta = event["delta"]
                    if delta.get("type") == "input_json_delta":
                        self.add_delta(index, delta["partial_json"])
                return []
        else:
            kind = getattr(event, "type", None)
            if kind == "content_block_delta":
                index = event.index
                if index in self._open:
                    delta = event.delta
                    if delta.type == "input_json_delta":
                        self.add_delta(index, delta.partial_json)
                return []
        if kind == "content_block_start":
            block = _field(event, "content_block")
            block_type = _field(block, "type")
            if block_type in TOOL_BLOCK_TYPES:
                index = _field(event, "index")
                name = _field(block, "name")
                tool_id = _field(block, "id")
                self.start(index, name, tool_id)
                self._open[index] = (block_type, name, tool_id)
            return []
        if kind == "content_block_stop":
            index = _field(event, "index")
            if index in self._open:
                return [self._finish_call(index)]
            return []
        if kind == "message_delta":
            self.stop_reason = _field(_field(event, "delta"), "stop_reason")
            # A block left open when the message ends still gets its verdict rather than vanishing.
            return [self._finish_call(index) for index in sorted(self._open)]
        if kind == "message_start":
            for index in self._open:
                self.discard(index)
            self._open.clear()
            self.stop_reason = None
            self.calls = []
        return []

    def _finish_call(self, index: int) -> ToolCall:
        block_type, name, tool_id = self._open.pop(index)
        raw = self.text(index)
        try:
            value = self.finish(index)["input"]
        except ValueError as exc:
            # json.loads raises a plain ValueError for integers past the digit limit: still unusable
            # input, so it is reported like any other malformed text.
            error = exc if isinstance(exc, JSONDecodeError) else MalformedJSONError(str(exc), raw, 0)
            status: CallStatus = "incomplete" if isinstance(error, IncompleteJSONError) else "malformed"
            call = ToolCall(index, tool_id, name, None, raw, error, status, block_type)
        else:
            call = ToolCall(index, tool_id, name, value, raw, None, "ok", block_type)
        self.calls.append(call)
        return call

    def is_truncated(self, call: ToolCall) -> bool:
        """Whether ``call`` was cut off by ``max_tokens`` (decidable only after ``message_delta``).

        A cut-off call is a valid prefix: answering it with the INVALID_JSON wrapper would not tell
        the model it ran out of tokens, so it calls for a larger ``max_tokens`` instead.
        """
        return call.status == "incomplete" and self.stop_reason == "max_tokens"

    def is_invalid(self, call: ToolCall) -> bool:
        """Whether ``call`` is unparsable for a reason other than ``max_tokens``: answer it with
        :func:`invalid_json_result` and do not run the tool."""
        return not call.ok and not self.is_truncated(call)


def collect_tool_calls(stream: Iterable[Any], **options: Any) -> ToolCallAccumulator:
    """Feed every event of ``stream`` to a new accumulator (made with ``options``) and return it;
    its ``calls`` and ``stop_reason`` say what the stream held."""
    accumulator = ToolCallAccumulator(**options)
    feed = accumulator.feed
    for event in stream:
        feed(event)
    return accumulator


async def acollect_tool_calls(stream: AsyncIterable[Any], **options: Any) -> ToolCallAccumulator:
    """Like :func:`collect_tool_calls` for an async stream."""
    accumulator = ToolCallAccumulator(**options)
    feed = accumulator.feed
    async for event in stream:
        feed(event)
    return accumulator


def _as_dict(obj: Any) -> dict[str, Any]:
    """A content block or citation as the plain dict the API sent (and accepts back)."""
    if isinstance(obj, dict):
        return dict(obj)
    to_dict = getattr(obj, "to_dict", None)
    if to_dict is not None:
        # The SDK's to_dict leaves out fields the server did not send, so the block goes back as it came.
        return dict(to_dict())
    return dict(obj.model_dump(exclude_unset=True))


class MessageAssembler:
    """Rebuilds a streamed message's content blocks, as dicts ready to be sent back as history.

    Text (with citations), thinking (with its signature), redacted thinking, server tool results and
    any other block arriving whole are kept; ``tool_use`` / ``server_tool_use`` blocks get their
    input from :meth:`set_tool_input`, since parsing it is the accumulator's job.
    """

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.message: dict[str, Any] = {}
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        self.usage: dict[str, Any] = {}
        self.started = False
        self.stopped = False

    def feed(self, event: Any) -> None:
        """Take one stream event (SDK object or dict); derived helper events are ignored."""
        kind = _field(event, "type")
        if kind == "content_block_delta":
            delta = _field(event, "delta")
            delta_type = _field(delta, "type")
            if delta_type == "input_json_delta":
                # Tool input is the accumulator's job: the bulk of a long stream stops here.
                return
            block = self.blocks.get(_field(event, "index"))
            if block is None:
                return
            if delta_type == "text_delta":
                block["text"] = block.get("text", "") + _field(delta, "text")
            elif delta_type == "thinking_delta":
                block["thinking"] = block.get("thinking", "") + _field(delta, "thinking")
            elif delta_type == "signature_delta":
                block["signature"] = _field(delta, "signature")
            elif delta_type == "citations_delta":
                block.setdefault("citations", []).append(_as_dict(_field(delta, "citation")))
        elif kind == "content_block_start":
            block = _as_dict(_field(event, "content_block"))
            if block.get("type") == "text" and not block.get("citations"):
                # The start block carries "citations": null, which the API does not take back.
                block.pop("citations", None)
            self.blocks[_field(event, "index")] = block
        elif kind == "message_delta":
            delta = _field(event, "delta")
            self.stop_reason = _field(delta, "stop_reason")
            self.stop_sequence = _field(delta, "stop_sequence")
            usage = _field(event, "usage")
            if usage is not None:
                self.usage.update({k: v for k, v in _as_dict(usage).items() if v is not None})
        elif kind == "message_start":
            message = _as_dict(_field(event, "message"))
            self.message = message
            self.blocks.clear()
            self.usage = dict(message.get("usage") or {})
            self.stop_reason = None
            self.stop_sequence = None
            self.started = True
            self.stopped = False
        elif kind == "message_stop":
            self.stopped = True

    def set_tool_input(self, index: int, value: Any) -> None:
        """Put a tool block's parsed input in place (``{}`` when it did not parse)."""
        block = self.blocks.get(index)
        if block is not None:
            block["input"] = value if isinstance(value, dict) else {}

    @property
    def content(self) -> list[dict[str, Any]]:
        """The blocks received so far, in index order."""
        return [self.blocks[index] for index in sorted(self.blocks)]


class _EventSplitter:
    """Server-sent events from a byte stream: ``(event name, data bytes)`` per event.

    Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` only, as the SSE format says (str.splitlines would
    also cut at U+2028 and friends, which JSON text may hold raw). A line ending in ``\\r`` is held
    back until the next chunk shows whether ``\\n`` follows.
    """

    def __init__(self) -> None:
        self._pending = b""
        self._name: str | None = None
        self._data: list[bytes] = []

    def feed(self, chunk: bytes) -> list[tuple[str | None, bytes]]:
        lines = (self._pending + chunk).splitlines(keepends=True)
        if lines and (lines[-1].endswith(b"\r") or not lines[-1].endswith(b"\n")):
            self._pending = lines.pop()
        else:
            self._pending = b""
        return self._lines(lines)

    def close(self) -> list[tuple[str | None, bytes]]:
        # An event not ended by its blank line is dropped, as the SSE format says: a stream cut off
        # mid-event then shows as a missing message_stop rather than as a half event.
        self._pending = b""
        self._name = None
        self._data = []
        return []

    def _lines(self, lines: list[bytes]) -> list[tuple[str | None, bytes]]:
        out: list[tuple[str | None, bytes]] = []
        for raw in lines:
            line = raw.rstrip(b"\r\n")
            if not line:
                if self._data:
                    out.append((self._name, b"\n".join(self._data)))
                self._name = None
                self._data = []
            elif line.startswith(b"data:"):
                value = line[5:]
                self._data.append(value[1:] if value[:1] == b" " else value)
            elif line.startswith(b"event:"):
                self._name = line[6:].strip().decode()
        return out


def _event_or_raise(name: str | None, data: bytes, response: Any) -> Any:
    """The event as a dict; ``None`` for what the SDK skips too; an ``error`` event raises as the SDK
    does, :class:`anthropic.APIStatusError` with the event as ``body``."""
    if name == "error":
        import anthropic

        try:
            body: Any = json.loads(data)
        except ValueError:
            body = data.decode(errors="replace")
        raise anthropic.APIStatusError(f"{body}", response=response, body=body)
    if name is None or name == "ping":
        return None
    return json.loads(data.decode("utf-8"))  # SSE is UTF-8; str skips json's encoding detection


def iter_events(stream: Any) -> Iterator[dict[str, Any]]:
    """The events of a ``client.messages.create(..., stream=True)`` response, as plain dicts.

    This reads the response's bytes and decodes each event with :func:`json.loads`, skipping the
    SDK's typed event objects, which cost more per event than parsing the tool input does. Pings are
    skipped; an ``error`` event raises :class:`anthropic.APIStatusError`, as iterating the SDK stream
    does. Close the stream (``with stream:``) when done.
    """
    response = stream.response
    splitter = _EventSplitter()
    for chunk in response.iter_bytes():
        for name, data in splitter.feed(chunk):
            event = _event_or_raise(name, data, response)
            if event is not None:
                yield event


async def aiter_events(stream: Any) -> AsyncIterator[dict[str, Any]]:
    """:func:`iter_events` for an ``AsyncAnthropic`` stream."""
    response = stream.response
    splitter = _EventSplitter()
    async for chunk in response.aiter_bytes():
        for name, data in splitter.feed(chunk):
            event = _event_or_raise(name, data, response)
            if event is not None:
                yield event
