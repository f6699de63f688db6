"""The tool-use loop over a streamed Messages API, with tooljson parsing every call's input.

Each turn is requested with ``client.messages.create(..., stream=True)``: the raw events go through
one :class:`~tooljson.turn.TurnReader` (one scan of each fragment), never through the SDK's helper
stream, which re-parses the whole input on every delta. The loop only orchestrates: the reader says
what the response held, :mod:`tooljson.validation` checks the input, :mod:`tooljson.results` builds
every answer.

After a turn, by ``stop_reason``:

* ``tool_use``: the whole assistant content is appended as one assistant message, then one user
  message with a ``tool_result`` for every ``tool_use`` block, in order. Input that is not JSON is
  answered with :func:`~tooljson.invalid_json_result`, an unknown tool or input failing validation with
  an ``is_error`` result; in all three cases the handler is not run. A handler's exception becomes an
  ``is_error`` result carrying its message. In the history, a call whose input did not parse keeps
  ``{}`` as its input (the API takes only an object there); its raw text travels in the result.
* ``pause_turn``: the assistant content is appended and the request resent, with no user message.
* ``max_tokens`` with a cut-off tool call: by the ``truncation`` policy, the same request is resent
  with ``max_tokens`` doubled (up to ``max_tokens_cap``), or :class:`~tooljson.TruncatedToolInput`
  is raised. The cut-off turn is not added to the history.
* anything else (``end_turn``, ``stop_sequence``, ``refusal``...): the loop returns a
  :class:`ToolLoopResult`.

``on_event`` receives a :class:`LoopEvent` for every step, as it happens; see its ``kind`` values.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tooljson.calls import ToolCall
from tooljson.errors import (
    MalformedEvent,
    MaxTurnsExceeded,
    StreamInterrupted,
    ToolLoopError,
    TruncatedToolInput,
)
from tooljson.extras import require
from tooljson.loop_reports import LoopEvent, ToolLoopResult
from tooljson.providers.anthropic.stream import aiter_events, iter_events
from tooljson.results import (
    handler_error_result,
    invalid_json_result,
    rejected_input_result,
    success_result,
    unknown_tool_result,
)
from tooljson.text import encodable
from tooljson.turn import TurnReader, describe_break
from tooljson.validation import Repair, ToolHandler, model_of, validate_tool_input
from tooljson.watch import ToolRun, tool_run

__all__ = [
    "LoopEvent",
    "MaxTurnsExceeded",
    "StreamInterrupted",
    "ToolLoopError",
    "ToolLoopResult",
    "arun_tool_loop",
    "run_tool_loop",
]

logger = logging.getLogger("tooljson")

DEFAULT_MAX_TOKENS_CAP = 64_000
"""The largest ``max_tokens`` a truncation retry asks for unless told otherwise."""

Handler = Callable[..., Any] | ToolHandler
TruncationPolicy = Literal["retry", "raise"]
EventDecoding = Literal["json", "sdk"]


@dataclass
class _Pending:
    """A tool_use block to answer: either ``result`` is set, or ``function(argument)`` is run."""

    call: ToolCall
    result: dict[str, Any] | None = None
    function: Callable[..., Any] | None = None
    argument: Any = None
    rejected: bool = False
    failed: bool = False
    repairs: tuple[Repair, ...] = ()
    # Where telemetry watches the call being answered (tooljson.watch; nothing while none watches).
    run: ToolRun = field(init=False)

    def __post_init__(self) -> None:
        self.run = tool_run(self.call)


class _Loop:
    """The loop's decisions, free of I/O so that the sync and async loops share them."""

    def __init__(
        self,
        *,
        model: str,
        max_tokens: int,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        handlers: Mapping[str, Handler],
        max_turns: int,
        on_event: Callable[[LoopEvent], None] | None,
        truncation: TruncationPolicy,
        max_tokens_cap: int,
        decode: EventDecoding,
        request_kwargs: dict[str, Any],
    ) -> None:
        if decode not in ("json", "sdk"):
            raise ValueError(f"decode must be 'json' or 'sdk', not {decode!r}")
        if truncation not in ("retry", "raise"):
            raise ValueError(f"truncation must be 'retry' or 'raise', not {truncation!r}")
        self.model = model
        self.max_tokens = max_tokens
        self.history: list[dict[str, Any]] = list(messages)
        self.tools = list(tools)
        self.schemas = {t["name"]: t["input_schema"] for t in tools if "input_schema" in t}
        if self.schemas:
            # Checked before the first request: validation must not fail half-way through a turn.
            require("validating tool input against input_schema", "jsonschema")
        self.handlers = dict(handlers)
        self.max_turns = max_turns
        self.on_event = on_event
        self.truncation = truncation
        self.max_tokens_cap = max(max_tokens_cap, max_tokens)
        self.decode = decode
        self.request_kwargs = request_kwargs
        self.turn = 0
        self.reader: TurnReader | None = None

    def emit(self, kind: Any, data: Any = None, call: ToolCall | None = None) -> None:
        if self.on_event is not None:
            self.on_event(LoopEvent(kind, self.turn, data, call))

    def next_request(self) -> dict[str, Any]:
        if self.turn >= self.max_turns:
            raise MaxTurnsExceeded(
                f"still calling tools after {self.max_turns} requests", messages=self.history
            )
        self.turn += 1
        request = {
            **self.request_kwargs,
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": list(self.history),
            "stream": True,
        }
        if self.tools:
            request["tools"] = self.tools
        self.emit("request", request)
        return request

    def start_turn(self) -> TurnReader:
        """The reader of the response just requested, handed to whoever watches first."""
        self.reader = TurnReader(number=self.turn, timing=self.on_event is not None)
        self.emit("turn", self.reader)
        return self.reader

    def feed(self, event: Any) -> None:
        assert self.reader is not None
        try:
            calls = self.reader.feed(event)
        except MalformedEvent as exc:
            # An event the reader cannot read breaks the stream as a dropped connection does.
            raise self.interrupted(exc) from exc
        if self.on_event is not None:
            self.emit("stream_event", event)
            for call in calls:
                self.emit("tool_call", call=call)

    def interrupted(self, cause: BaseException | None) -> StreamInterrupted:
        reader = self.reader
        assert reader is not None
        reader.interrupt(describe_break(cause), cause)
        reason = (
            "the stream ended before message_stop"
            if cause is None
            else f"the stream broke off: {reader.interruption}"
        )
        return StreamInterrupted(
            f"turn {reader.number}: {reason}",
            messages=self.history,
            calls=reader.calls,
            content=reader.content,
            cause=cause,
        )

    def after_turn(self) -> ToolLoopResult | list[_Pending] | None:
        """The result when done, the calls to answer on ``tool_use``, ``None`` to resend."""
        reader = self.reader
        assert reader is not None
        if not reader.stopped:
            raise self.interrupted(None)
        stop_reason = reader.stop_reason
        truncated = [call for call in reader.calls if reader.state(call) == "truncated"]
        if truncated:
            self.max_tokens = retry_max_tokens(
                truncated[0], self.truncation, self.max_tokens, self.max_tokens_cap
            )
            self.emit("retry", self.max_tokens, truncated[0])
            return None
        for warning in reader.warnings:
            logger.warning("turn %d: %s", reader.number, warning)
        content = reader.content
        self.history.append(
            {"role": "assistant", "content": self._sendable(content, "the assistant content")}
        )
        if stop_reason == "pause_turn":
            self.emit("pause")
            return None
        client_calls = [call for call in reader.calls if call.block_type == "tool_use"]
        # Calls are answered on tool_use, and on a max_tokens stop that cut no call off (it fell
        # between blocks); end_turn, stop_sequence, refusal and the rest end the loop.
        if not client_calls or stop_reason not in ("tool_use", "max_tokens"):
            return ToolLoopResult(content, stop_reason, list(self.history), self.turn, reader.assembler.usage)
        return [self._prepare(call) for call in client_calls]

    def _prepare(self, call: ToolCall) -> _Pending:
        if not call.ok:
            logger.warning(
                "tool call %r (id %s) has invalid JSON input (%s); not run. Raw input: %s",
                call.name,
                call.id,
                call.error,
                call.raw_json,
            )
            return _Pending(call, invalid_json_result(call))
        handler = self.handlers.get(call.name)
        if handler is None:
            return _Pending(call, unknown_tool_result(call, self.handlers), rejected=True)
        function = handler.function if isinstance(handler, ToolHandler) else handler
        outcome = validate_tool_input(
            call.name, call.input, schema=self.schemas.get(call.name), model=model_of(handler)
        )
        if not outcome.ok:
            return _Pending(call, rejected_input_result(call, outcome), rejected=True)
        return _Pending(call, function=function, argument=outcome.value, repairs=outcome.repairs)

    def _sendable(self, content: list[dict[str, Any]], what: str) -> list[dict[str, Any]]:
        """``content`` as it can be sent: lone surrogates (valid JSON escapes that no request body
        can encode) become U+FFFD, logged. The handlers got, and the caller's result keeps, the
        exact values."""
        sendable, replaced = encodable(content)
        if replaced:
            logger.warning(
                "turn %d: %d lone surrogate(s) in %s replaced by U+FFFD in the history sent back",
                self.turn,
                replaced,
                what,
            )
        return list(sendable)

    def answer(self, pending: Sequence[_Pending]) -> None:
        """Record every call's result on the reader and send them all in one user message."""
        assert self.reader is not None
        results: list[dict[str, Any]] = []
        for item in pending:
            assert item.result is not None
            self.reader.record_result(
                item.call, item.result, rejected=item.rejected, failed=item.failed, repairs=item.repairs
            )
            item.run.settle(self.reader.state(item.call))
            self.emit("tool_result", item.result, item.call)
            results.append(item.result)
        self.history.append({"role": "user", "content": self._sendable(results, "the tool results")})


def retry_max_tokens(cut_off: ToolCall, truncation: str, max_tokens: int, cap: int) -> int:
    """The ``max_tokens`` to resend a turn with once ``cut_off`` was cut off: twice as many, up to ``cap``
    (the loop's rule, and the accelerated SDK runner's); ``TruncatedToolInput`` for "raise" or at the cap."""
    if truncation == "raise" or max_tokens >= cap:
        raise TruncatedToolInput(cut_off, max_tokens=max_tokens)
    larger = min(max_tokens * 2, cap)
    logger.info(
        "tool call %r (id %s) cut off at max_tokens; resending with max_tokens=%d",
        cut_off.name,
        cut_off.id,
        larger,
    )
    return larger


def _next_event(iterator: Iterator[Any]) -> tuple[bool, Any]:
    try:
        return True, next(iterator)
    except StopIteration:
        return False, None


def run_tool_loop(
    client: Any,
    *,
    model: str,
    max_tokens: int,
    messages: Sequence[dict[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    handlers: Mapping[str, Handler],
    max_turns: int = 8,
    on_event: Callable[[LoopEvent], None] | None = None,
    truncation: TruncationPolicy = "retry",
    max_tokens_cap: int = DEFAULT_MAX_TOKENS_CAP,
    decode: EventDecoding = "json",
    **request_kwargs: Any,
) -> ToolLoopResult:
    """Run the tool-use loop with an ``anthropic.Anthropic`` client until the model stops calling tools.

    ``handlers`` maps tool names to callables taking the validated input (a dict, or the pydantic
    model instance when the handler declares one, see :class:`~tooljson.validation.ToolHandler`);
    a handler returns a str, a list of content blocks, or any value, sent as JSON text.
    ``max_turns`` bounds the number of requests (resends included). Extra keyword arguments go to
    every ``messages.create`` call. ``messages`` is not modified.

    ``decode="json"`` (the default) reads each response's server-sent events with
    :func:`~tooljson.providers.anthropic.stream.iter_events`, as dicts: the SDK's typed event objects cost more per event
    than everything tooljson does with it. ``decode="sdk"`` iterates the SDK stream instead, and
    ``on_event`` then sees its event objects.

    Returns a :class:`ToolLoopResult` (a small dataclass, not the SDK's ``Message``). Raises
    :class:`MaxTurnsExceeded`, :class:`StreamInterrupted`, :class:`~tooljson.TruncatedToolInput`
    (``truncation="raise"``, or ``max_tokens_cap`` reached) and the SDK's errors for a request that
    fails before its stream starts.
    """
    loop = _Loop(
        model=model,
        max_tokens=max_tokens,
        messages=messages,
        tools=tools,
        handlers=handlers,
        max_turns=max_turns,
        on_event=on_event,
        truncation=truncation,
        max_tokens_cap=max_tokens_cap,
        decode=decode,
        request_kwargs=request_kwargs,
    )
    while True:
        request = loop.next_request()
        # A failed request (HTTP error before any event) propagates as the SDK raised it.
        stream = client.messages.create(**request)
        loop.start_turn()
        with stream:
            iterator = iter_events(stream) if loop.decode == "json" else iter(stream)
            while True:
                try:
                    more, event = _next_event(iterator)
                except Exception as exc:
                    raise loop.interrupted(exc) from exc
                if not more:
                    break
                loop.feed(event)
        outcome = loop.after_turn()
        if isinstance(outcome, ToolLoopResult):
            return outcome
        if outcome is None:
            continue
        for item in outcome:
            if item.function is not None:
                with item.run:
                    try:
                        item.result = success_result(item.call, item.function(item.argument))
                    except Exception as exc:  # noqa: BLE001 - the model is told, the loop goes on
                        item.result = handler_error_result(item.call, exc)
                        item.failed = True
                        item.run.failed(exc)
        loop.answer(outcome)


async def arun_tool_loop(
    client: Any,
    *,
    model: str,
    max_tokens: int,
    messages: Sequence[dict[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    handlers: Mapping[str, Handler],
    max_turns: int = 8,
    on_event: Callable[[LoopEvent], None] | None = None,
    truncation: TruncationPolicy = "retry",
    max_tokens_cap: int = DEFAULT_MAX_TOKENS_CAP,
    decode: EventDecoding = "json",
    **request_kwargs: Any,
) -> ToolLoopResult:
    """:func:`run_tool_loop` for an ``anthropic.AsyncAnthropic`` client.

    Handlers may be coroutine functions (or return awaitables); the calls of one turn are answered
    one after the other, in block order, so handlers never race each other.
    """
    loop = _Loop(
        model=model,
        max_tokens=max_tokens,
        messages=messages,
        tools=tools,
        handlers=handlers,
        max_turns=max_turns,
        on_event=on_event,
        truncation=truncation,
        max_tokens_cap=max_tokens_cap,
        decode=decode,
        request_kwargs=request_kwargs,
    )
    while True:
        request = loop.next_request()
        stream = await client.messages.create(**request)
        loop.start_turn()
        async with stream:
            iterator = aiter_events(stream) if loop.decode == "json" else stream.__aiter__()
            while True:
                try:
                    event = await iterator.__anext__()
                except StopAsyncIteration:
                    break
                except Exception as exc:
                    raise loop.interrupted(exc) from exc
                loop.feed(event)
        outcome = loop.after_turn()
        if isinstance(outcome, ToolLoopResult):
            return outcome
        if outcome is None:
            continue
        for item in outcome:
            if item.function is not None:
                with item.run:
                    try:
                        output = item.function(item.argument)
                        if inspect.isawaitable(output):
                            output = await output
                        item.result = success_result(item.call, output)
                    except Exception as exc:  # noqa: BLE001 - the model is told, the loop goes on
                        item.result = handler_error_result(item.call, exc)
                        item.failed = True
                        item.run.failed(exc)
        loop.answer(outcome)
