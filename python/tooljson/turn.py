"""One streamed response, read once: the turn reader and the content it assembles.

A :class:`TurnReader` takes the events of one response (SDK event objects or plain dicts, in the
order they came, of any provider :meth:`~tooljson.ToolCallAccumulator.feed` reads) and owns
everything they say: the :class:`~tooljson.ToolCallAccumulator` that parses
each tool block's fragments, the :class:`MessageAssembler` that rebuilds the assistant content, the
stop reason, whether the stream ended or broke off, and the verdict on every call. The tool loop
feeds one reader per request; a replay builds one per recorded response; the debug views only read
readers, so every fragment is parsed exactly once whoever looks at it.
"""

from __future__ import annotations

import time
from typing import Any

from tooljson.accumulator import CallState, ToolBlock, ToolCall, ToolCallAccumulator
from tooljson.providers import Provider, begins_response, detect, event_field
from tooljson.providers.content import ChatAssembler, ConverseAssembler, ResponsesAssembler, assembler_for

__all__ = ["MessageAssembler", "TurnReader", "describe_break"]


# The event whose absence shows that a response did not end properly, in each provider's words.
_END_EVENTS = {"openai": "finish_reason", "responses": "response.completed", "bedrock": "messageStop"}


def describe_break(cause: BaseException | None, provider: str | None = None) -> str:
    """Why a stream broke off, in a line: the API's own words for an error it sent (the anthropic SDK
    raises an ``error`` event with the event as ``body``, the openai SDK with the error object as
    ``body``, botocore an exception event as ``response["Error"]``), else the exception."""
    if cause is None:
        return f"the stream ended before {_END_EVENTS.get(provider or '', 'message_stop')}"
    body = getattr(cause, "body", None)
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return f"{error.get('type', 'error')}: {error.get('message', '')}"
    if isinstance(body, dict) and "message" in body:
        return f"{body.get('type') or 'error'}: {body.get('message')}"
    response = getattr(cause, "response", None)
    details = response.get("Error") if isinstance(response, dict) else None
    if isinstance(details, dict):
        return f"{details.get('Code', 'error')}: {details.get('Message', '')}"
    return f"{type(cause).__name__}: {cause}"


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
    input from :meth:`set_tool_input`, since parsing it is the accumulator's job. Streamed text is
    kept as a list of pieces and joined when the content is read, so a long text costs linear time.
    """

    def __init__(self) -> None:
        self._blocks: dict[Any, dict[str, Any]] = {}
        # Streamed pieces by block index and field ("text", "thinking").
        self._pieces: dict[Any, dict[str, list[str]]] = {}
        self.usage: dict[str, Any] = {}
        self.stopped = False
        # The error event that ended the stream, if one did.
        self.error: dict[str, Any] | None = None

    def feed(self, event: Any) -> None:
        """Take one stream event (SDK object or dict); derived helper events are ignored."""
        kind = event_field(event, "type")
        if kind == "content_block_delta":
            delta = event_field(event, "delta")
            delta_type = event_field(delta, "type")
            if delta_type == "input_json_delta":
                # Tool input is the accumulator's job: the bulk of a long stream stops here.
                return
            index = event_field(event, "index")
            block = self._blocks.get(index)
            if block is None:
                return
            if delta_type == "text_delta":
                self._piece(index, "text", event_field(delta, "text"))
            elif delta_type == "thinking_delta":
                self._piece(index, "thinking", event_field(delta, "thinking"))
            elif delta_type == "signature_delta":
                block["signature"] = event_field(delta, "signature")
            elif delta_type == "citations_delta":
                block.setdefault("citations", []).append(_as_dict(event_field(delta, "citation")))
        elif kind == "content_block_start":
            block = _as_dict(event_field(event, "content_block"))
            if block.get("type") == "text" and not block.get("citations"):
                # The start block carries "citations": null, which the API does not take back.
                block.pop("citations", None)
            index = event_field(event, "index")
            self._blocks[index] = block
            self._pieces.pop(index, None)
        elif kind == "message_delta":
            usage = event_field(event, "usage")
            if usage is not None:
                self.usage.update({k: v for k, v in _as_dict(usage).items() if v is not None})
        elif kind == "message_start":
            message = _as_dict(event_field(event, "message"))
            self._blocks.clear()
            self._pieces.clear()
            self.usage = dict(message.get("usage") or {})
            self.stopped = False
        elif kind == "message_stop":
            self.stopped = True
        elif kind == "error":
            self.error = _as_dict(event)

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
            joined[name] = joined.get(name, "") + "".join(parts)
        return joined

    @property
    def content(self) -> list[dict[str, Any]]:
        """The blocks received so far, in index order, as new dicts."""
        return [self._joined(index, self._blocks[index]) for index in sorted(self._blocks)]

    @property
    def text(self) -> str:
        """The text of the text blocks so far, joined."""
        return "".join(block.get("text", "") for block in self.content if block.get("type") == "text")

    @property
    def thinking_chars(self) -> int:
        """Characters of thinking streamed so far (the views show the count, not the text)."""
        return sum(len(part) for pieces in self._pieces.values() for part in pieces.get("thinking", ()))


class TurnReader:
    """The events of one streamed response, parsed once, with everything a loop or a view asks of them.

    ``number`` counts the responses of a run from 1. ``accumulator_options`` go to the
    :class:`~tooljson.ToolCallAccumulator` (preview settings, limits). With ``timing``, the time spent
    in :meth:`feed` is added up in ``feed_seconds`` (the views show it).

    Read: ``calls`` (finished :class:`~tooljson.ToolCall` s), ``blocks`` (every tool block started,
    with its progress), ``stop_reason``, ``stopped`` (the response ended properly), ``content`` (the
    assistant content as history dicts, in the provider's shape), :meth:`state` (the verdict on a
    block or call), ``interruption``, ``results`` (the result answering each call, once the loop
    made it), ``provider`` (whose stream it reads, known from the first event).
    """

    def __init__(self, *, number: int = 1, timing: bool = False, **accumulator_options: Any) -> None:
        self.number = number
        self.accumulator = ToolCallAccumulator(**accumulator_options)
        self.assembler: MessageAssembler | ChatAssembler | ResponsesAssembler | ConverseAssembler = MessageAssembler()
        self.provider: Provider | None = None
        self.events = 0
        self.feed_seconds = 0.0
        # Why the stream broke off (None while it has not), and the exception that broke it, if any.
        self.interruption: str | None = None
        self.cause: BaseException | None = None
        self.results: dict[str, dict[str, Any]] = {}
        self.rejected: set[str] = set()
        self._finished: dict[Any, ToolCall] = {}
        if timing:
            self.feed = self._timed_feed  # type: ignore[method-assign]

    def feed(self, event: Any) -> list[ToolCall]:
        """Take the next event; return the tool calls it completed."""
        self.events += 1
        if self.provider is None:
            self._recognise(event)
        calls = self.accumulator.feed(event)
        self.assembler.feed(event)
        for call in calls:
            self.assembler.set_call(call)
            self._finished[call.index] = call
        if self.assembler.error is not None and self.interruption is None:
            error = self.assembler.error.get("error")
            if isinstance(error, dict):
                self.interrupt(f"{error.get('type', 'error')}: {error.get('message', '')}")
            else:
                self.interrupt(f"error event: {error!r}")
        return calls

    def _recognise(self, event: Any) -> None:
        provider = detect(event)
        if provider is not None and provider != "anthropic":
            self.assembler = assembler_for(provider)
        self.provider = provider

    def begins_another(self, event: Any) -> bool:
        """Whether ``event`` opens a response after the one this reader read (a replay of a
        recording of several responses starts a new reader there)."""
        return self.events > 0 and begins_response(event, self.accumulator._response_id)

    def _timed_feed(self, event: Any) -> list[ToolCall]:
        started = time.perf_counter()
        try:
            return TurnReader.feed(self, event)
        finally:
            self.feed_seconds += time.perf_counter() - started

    def interrupt(self, reason: str, cause: BaseException | None = None) -> None:
        """The stream broke off: every block still open is ``interrupted`` where it stopped."""
        if self.interruption is None:
            self.interruption = reason
            self.cause = cause

    # --- reading

    @property
    def stop_reason(self) -> str | None:
        return self.accumulator.stop_reason

    @property
    def stopped(self) -> bool:
        """Whether the response ended properly (``message_stop``; Chat Completions: every choice's
        ``finish_reason``; Responses: ``response.completed`` or ``.incomplete``; Bedrock:
        ``messageStop``)."""
        return self.assembler.stopped

    @property
    def calls(self) -> list[ToolCall]:
        return self.accumulator.calls

    @property
    def blocks(self) -> list[ToolBlock]:
        return self.accumulator.blocks

    @property
    def content(self) -> list[dict[str, Any]]:
        return self.assembler.content

    def call(self, block: ToolBlock) -> ToolCall | None:
        """The finished call of ``block``, or ``None`` while it streams (or after a break)."""
        return self._finished.get(block.index)

    def state(self, item: ToolBlock | ToolCall) -> CallState:
        """The verdict on a block (still open) or a finished call, decided here and only here."""
        call = item if isinstance(item, ToolCall) else self._finished.get(item.index)
        if call is not None:
            return "rejected" if call.id in self.rejected else self.accumulator.state(call)
        if isinstance(item, ToolBlock) and item.free_text is None and self.accumulator.status(item.index).state == "malformed":
            # Broken before the block ended: the text's own fault is the more useful verdict.
            return "malformed"
        return "interrupted" if self.interruption is not None else "streaming"

    def record_result(self, call: ToolCall, result: dict[str, Any], *, rejected: bool = False) -> None:
        """Attach the ``tool_result`` answering ``call``; ``rejected`` when validation or routing
        refused the call without running it."""
        self.results[call.id] = result
        if rejected:
            self.rejected.add(call.id)
