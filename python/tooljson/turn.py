"""One streamed response, read once: the turn reader and the content it assembles.

A :class:`TurnReader` takes the events of one response (SDK event objects or plain dicts, in the
order they came, of any provider :meth:`~tooljson.ToolCallAccumulator.feed` reads) and owns
everything they say: the :class:`~tooljson.ToolCallAccumulator` that parses
each tool block's fragments, the source's assembler that rebuilds the assistant content, the
stop reason, whether the stream ended or broke off, and the verdict on every call. The tool loop
feeds one reader per request; a replay builds one per recorded response; the debug views only read
readers, so every fragment is parsed exactly once whoever looks at it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tooljson.accumulator import ToolCallAccumulator
from tooljson.calls import CallState, ToolBlock, ToolCall
from tooljson.providers import Provider
from tooljson.providers.registry import ADAPTERS, DEFAULT, SOURCES, recognise, source
from tooljson.providers.source import Assembler
from tooljson.watch import CALL_WATCHERS, CallWatcher, watch_calls

if TYPE_CHECKING:
    from tooljson.validation import Repair

__all__ = ["TurnReader", "describe_break"]


def describe_break(cause: BaseException | None, provider: str | None = None) -> str:
    """Why a stream broke off, in a line: the API's own words for an error it sent (each source's
    ``describe_error`` knows how its client raises one), else the exception; without a ``cause``,
    that the stream ended before the event that ends a response of ``provider``."""
    if cause is None:
        ending = source(provider).end_event if provider is not None else DEFAULT.end_event
        return f"the stream ended before {ending}"
    for candidate in SOURCES:
        if candidate.describe_error is not None:
            described = candidate.describe_error(cause)
            if described is not None:
                return described
    return f"{type(cause).__name__}: {cause}"


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
        self.assembler: Assembler = DEFAULT.assembler(self.warnings)
        self.provider: Provider | None = None
        self.events = 0
        self.feed_seconds = 0.0
        # Why the stream broke off (None while it has not), and the exception that broke it, if any.
        self.interruption: str | None = None
        self.cause: BaseException | None = None
        self.results: dict[str, dict[str, Any]] = {}
        self.repairs: dict[str, tuple[Repair, ...]] = {}
        # What became of each call the loop answered, by call id: rejected, repaired or failed.
        self._outcomes: dict[str, CallState] = {}
        self._timing = timing
        if timing:
            self.feed = self._timed_feed  # type: ignore[method-assign]
        # Whoever watches calls (tooljson.watch: telemetry), told by the accumulator; None mostly.
        self.watcher: CallWatcher | None = watch_calls(self) if CALL_WATCHERS else None
        self.accumulator.watcher = self.watcher

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
        found = recognise(event)
        if found is None:
            return
        if found is not DEFAULT:
            self.assembler = found.assembler(self.warnings)
        self.provider = found.name

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
            if self.watcher is not None:
                self.watcher.interrupted()

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
    def stop_message(self) -> str | None:
        """What the source said with its stop reason, where it says something (Gemini's
        ``finishMessage``: the model's broken call text when the call was malformed)."""
        message = getattr(self.assembler, "stop_message", None)
        return message if isinstance(message, str) else None

    @property
    def refused(self) -> bool:
        """Whether the response stopped because the model made a call that is not one, in its
        source's words (Gemini's ``MALFORMED_FUNCTION_CALL``): no call of it is valid, and the
        stop reason and :attr:`stop_message` say what went wrong."""
        return self.provider is not None and self.stop_reason in source(self.provider).refused

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
        """For a framework's stream that gathers one message (LangChain's): the message the framework
        would have gathered from it (``gathered = gathered + chunk``), built by one merge, with
        ``tool_calls`` holding exactly the calls that parsed strictly and every other call in
        ``invalid_tool_calls`` with its raw text and an ``error`` saying why (see
        :meth:`tooljson.frameworks.langchain.LangChainAdapter.message`).

        Raises :class:`ValueError` when this reader read no such stream, and
        :class:`~tooljson.MissingExtra` without the framework's package.
        """
        adapter = self.accumulator.adapter(self.provider) if self.provider in ADAPTERS else None
        gather = getattr(adapter, "message", None)
        if gather is None:
            what = source(self.provider).title if self.provider is not None else "nothing"
            raise ValueError(
                f"message() is for a framework's stream that gathers one message; this reader read {what}"
            )
        return gather()

    def call(self, block: ToolBlock) -> ToolCall | None:
        """The finished call of ``block``, or ``None`` while it streams (or after a break)."""
        return block.call

    def state(self, item: ToolBlock | ToolCall) -> CallState:
        """The verdict on a block (still open) or a finished call, decided here and only here."""
        call = item if isinstance(item, ToolCall) else item.call
        if call is not None:
            outcome = self._outcomes.get(call.id)
            return outcome if outcome is not None else self.accumulator.state(call)
        if (
            isinstance(item, ToolBlock)
            and item.free_text is None
            and self.accumulator.status(item.index).state == "malformed"
        ):
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
