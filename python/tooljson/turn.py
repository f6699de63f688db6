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
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tooljson.accumulator import ToolCallAccumulator
from tooljson.calls import TOOL_BLOCK_TYPES, CallState, ToolBlock, ToolCall
from tooljson.errors import MalformedEvent
from tooljson.providers import Provider, detect, event_field
from tooljson.providers.content import (
    ChatAssembler,
    ConverseAssembler,
    FrameworkAssembler,
    ResponsesAssembler,
    assembler_for,
)
from tooljson.shapes import DELTA_FIELDS, EVENT_TYPES, event_problem, is_event, not_an_event

if TYPE_CHECKING:
    from tooljson.validation import Repair

__all__ = ["MessageAssembler", "TurnReader", "describe_break"]


# The event whose absence shows that a response did not end properly, in each provider's words.
_END_EVENTS = {
    "openai": "finish_reason",
    "responses": "response.completed",
    "bedrock": "messageStop",
    "openai-agents": "response.completed",
}


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

    Every event but the tool-input fragments is checked (:func:`tooljson.shapes.event_problem`):
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
            if name is not None and self._short_piece(getattr(event, "index", None), name, getattr(delta, name, None)):
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
                self.warnings.append(f"{delta_type} for block {index!r}, a {block.get('type')} block: ignored")
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
                ends = "ends where it stopped" if self._blocks[index].get("type") in TOOL_BLOCK_TYPES else "is replaced"
                self.warnings.append(f"a second content_block_start for block {index!r}, still open: the first {ends}")
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
            what = f"unknown event type {kind!r}" if isinstance(kind, str) else 'an event without a "type" string'
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


class TurnReader:
    """The events of one streamed response, parsed once, with everything a loop or a view asks of them.

    ``number`` counts the responses of a run from 1. ``accumulator_options`` go to the
    :class:`~tooljson.ToolCallAccumulator` (preview settings, limits). With ``timing``, the time spent
    in :meth:`feed` is added up in ``feed_seconds`` (the views show it).

    Read: ``calls`` (finished :class:`~tooljson.ToolCall` s), ``blocks`` (every tool block started,
    with its progress), ``stop_reason``, ``stopped`` (the response ended properly), ``content`` (the
    assistant content as history dicts, in the provider's shape), :meth:`state` (the verdict on a
    block or call), ``interruption``, ``results`` (the result answering each call, once the loop
    made it), ``repairs`` (the input repairs validation made to a call the loop then ran),
    ``warnings`` (oddities of the stream that were tolerated, a line each, in order) and
    ``provider`` (whose stream it reads, known from the first event).
    """

    def __init__(self, *, number: int = 1, timing: bool = False, **accumulator_options: Any) -> None:
        self.number = number
        self.accumulator = ToolCallAccumulator(**accumulator_options)
        # One list of warnings for the whole response, whichever part noticed the oddity.
        self.warnings = self.accumulator.warnings
        self.assembler: MessageAssembler | ChatAssembler | ResponsesAssembler | ConverseAssembler | FrameworkAssembler = (
            MessageAssembler(self.warnings)
        )
        self.provider: Provider | None = None
        self.events = 0
        self.feed_seconds = 0.0
        # Why the stream broke off (None while it has not), and the exception that broke it, if any.
        self.interruption: str | None = None
        self.cause: BaseException | None = None
        self.results: dict[str, dict[str, Any]] = {}
        self.repairs: dict[str, tuple[Repair, ...]] = {}
        # What became of each call the loop answered, by tool_use id: rejected, repaired or failed.
        self._outcomes: dict[str, CallState] = {}
        self._timing = timing
        if timing:
            self.feed = self._timed_feed  # type: ignore[method-assign]

    def feed(self, event: Any) -> list[ToolCall]:
        """Take the next event; return the tool calls it completed.

        Raises :class:`~tooljson.MalformedEvent` for an event without the fields its type needs and
        :class:`TypeError` for something that is not an event; oddities go to ``warnings``.
        """
        self.events += 1
        if self.provider is None:
            self._recognise(event)
        calls = self.accumulator.feed(event)
        self.assembler.feed(event)
        for call in calls:
            self.assembler.set_call(call)
        if self.assembler.error is not None and self.interruption is None:
            error = self.assembler.error.get("error")
            if isinstance(error, dict):
                self.interrupt(f"{error.get('type', 'error')}: {error.get('message', '')}")
            else:
                self.interrupt(f"error event: {error!r}")
        return calls

    def feed_all(self, events: Sequence[Any]) -> list[ToolCall]:
        """Take several events in order, as :meth:`feed` takes each (timed once for them all, with
        ``timing``); return the tool calls they completed. An event that raises ends it there: the
        events before it were taken."""
        started = time.perf_counter() if self._timing else 0.0
        calls: list[ToolCall] = []
        try:
            for event in events:
                calls += TurnReader.feed(self, event)
        finally:
            if self._timing:
                self.feed_seconds += time.perf_counter() - started
        return calls

    def _recognise(self, event: Any) -> None:
        provider = detect(event)
        if provider is not None and provider != "anthropic":
            self.assembler = assembler_for(provider)
        self.provider = provider

    def begins_another(self, event: Any) -> bool:
        """Whether ``event`` opens a response after the one this reader read (a replay of a
        recording of several responses starts a new reader there)."""
        return self.events > 0 and self.accumulator.begins_response(event)

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

    def message(self) -> Any:
        """For a LangChain stream: the message LangChain would have gathered from it (``gathered =
        gathered + chunk``), built by one merge, with ``tool_calls`` holding exactly the calls that
        parsed strictly and every other call in ``invalid_tool_calls`` with its raw text and an
        ``error`` saying why (see :meth:`tooljson.frameworks.langchain.LangChainAdapter.message`).

        Raises :class:`ValueError` when this reader read no LangChain chunk, and
        :class:`~tooljson.MissingExtra` without ``langchain-core``.
        """
        if self.provider != "langchain":
            raise ValueError(f"message() is for LangChain streams; this reader read {self.provider or 'nothing'}")
        adapter: Any = self.accumulator.adapter("langchain")
        return adapter.message()

    def call(self, block: ToolBlock) -> ToolCall | None:
        """The finished call of ``block``, or ``None`` while it streams (or after a break)."""
        return block.call

    def state(self, item: ToolBlock | ToolCall) -> CallState:
        """The verdict on a block (still open) or a finished call, decided here and only here."""
        call = item if isinstance(item, ToolCall) else item.call
        if call is not None:
            outcome = self._outcomes.get(call.id)
            return outcome if outcome is not None else self.accumulator.state(call)
        if isinstance(item, ToolBlock) and item.free_text is None and self.accumulator.status(item.index).state == "malformed":
            # Broken before the block ended: the text's own fault is the more useful verdict.
            return "malformed"
        return "interrupted" if self.interruption is not None else "streaming"

    def record_result(
        self,
        call: ToolCall,
        result: dict[str, Any],
        *,
        rejected: bool = False,
        failed: bool = False,
        repairs: Sequence[Repair] = (),
    ) -> None:
        """Attach the ``tool_result`` answering ``call``, and what became of it: ``rejected`` when
        validation or routing refused it without running it, ``failed`` when its handler raised,
        ``repairs`` the changes validation made to the input the handler got (the call is then
        ``repaired``, unless its handler failed)."""
        self.results[call.id] = result
        if repairs:
            self.repairs[call.id] = tuple(repairs)
        if rejected:
            self._outcomes[call.id] = "rejected"
        elif failed:
            self._outcomes[call.id] = "failed"
        elif repairs:
            self._outcomes[call.id] = "repaired"
