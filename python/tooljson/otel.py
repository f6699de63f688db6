"""OpenTelemetry spans for tool calls: one span per call any turn reader reads, one per handler the loop runs.

:class:`ToolJSONInstrumentor` is an ``opentelemetry-instrumentation`` instrumentor, registered under
the ``opentelemetry_instrumentor`` entry point as ``tooljson``, so ``opentelemetry-instrument python
app.py`` switches it on; or call ``ToolJSONInstrumentor().instrument(tracer_provider=...)``. Importing
this module imports OpenTelemetry; importing :mod:`tooljson` does not, and nothing of it runs until
something is instrumented (the hook is :mod:`tooljson.watch`).

Once instrumented:

* every tool call a :class:`~tooljson.turn.TurnReader` reads (the loop's, ``accelerate``'s, the
  frameworks', the proxy's) is a span ``tool_call {name}`` of kind INTERNAL, child of the span that
  was current when the call's first event arrived, from that event to its verdict. A call's verdict
  is final when its text ends, except for a cut-off text whose provider has a word for the token
  limit: that one waits for its stop reason (``truncated`` or ``incomplete``), or for the response
  to stop or break off. A call still open when the stream breaks off ends ``interrupted``; a call
  of a reader that is dropped before either never ends, and its span is never exported.
* every call the tool loop answers is a span ``execute_tool {name}``, the handler running inside it;
  a call the loop refused (invalid input, an unknown tool) gets one too, marked with its verdict.

The cost is per call, never per fragment (``benches/bench_otel.py``).
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any, TypeVar

from tooljson.extras import require

require("tooljson.otel", "opentelemetry.trace", "opentelemetry.instrumentation")

from opentelemetry import context as context_api  # noqa: E402 - after the check that names the extra
from opentelemetry import trace  # noqa: E402
from opentelemetry.instrumentation.instrumentor import BaseInstrumentor  # type: ignore[attr-defined]  # noqa: E402
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer  # noqa: E402

from tooljson._native import __version__, utf8_size  # noqa: E402
from tooljson.calls import CallState, ToolBlock, ToolCall  # noqa: E402
from tooljson.providers.registry import SOURCES  # noqa: E402
from tooljson.providers.registry import source as source_named  # noqa: E402
from tooljson.text import encodable  # noqa: E402
from tooljson.turn import TurnReader  # noqa: E402
from tooljson.watch import CALL_WATCHERS, RUN_WATCHERS, CallWatcher, ToolRun  # noqa: E402

logger = logging.getLogger("tooljson")

__all__ = [
    "CAPTURE_CONTENT_ENV",
    "ERROR_STATES",
    "MAX_ARGUMENT_BYTES",
    "PROVIDER_NAMES",
    "SPAN_ATTRIBUTES",
    "ToolJSONInstrumentor",
    "provider_name",
    "trace_reader",
]

PROVIDER_NAMES: dict[str, str] = {
    source.name: source.telemetry_name for source in SOURCES if source.telemetry_name
}
"""``gen_ai.provider.name`` (the GenAI semantic conventions' values) for each of tooljson's sources
whose wire format says who served it (each source's ``telemetry_name``). A framework's stream
(``langchain``, ``pydantic-ai``) does not say which model provider is behind it: its spans leave
the attribute out, and ``tooljson.source`` names the framework."""

ERROR_STATES: frozenset[str] = frozenset(
    {"malformed", "incomplete", "truncated", "interrupted", "rejected", "failed"}
)
"""The verdicts whose span has status ERROR and ``error.type`` set: the call could not be used as is."""

MAX_ARGUMENT_BYTES = 8 * 1024
"""The most UTF-8 bytes of a call's argument text put in ``gen_ai.tool.call.arguments``; a longer text
is cut there, on a character boundary, and ``tooljson.arguments.truncated`` is set."""

SPAN_ATTRIBUTES: frozenset[str] = frozenset(
    {
        "tooljson.source",
        "tooljson.verdict",
        "tooljson.fragments",
        "tooljson.bytes",
        "tooljson.error.position",
        "tooljson.arguments.truncated",
        "tooljson.calls",
        "tooljson.response.state",
    }
)
"""The span attributes tooljson adds beside the GenAI conventions' (its own namespace; names, not
Python objects)."""

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The GenAI instrumentations' switch for capturing content: ``true`` captures the arguments when
``instrument`` is not told ``capture_arguments``."""


def provider_name(source: str) -> str | None:
    """The ``gen_ai.provider.name`` of tooljson's provider name ``source`` (``None`` for a framework)."""
    return PROVIDER_NAMES.get(source)


def _argument_attributes(text: str, size: int) -> dict[str, Any]:
    """The captured argument text (``size`` UTF-8 bytes), at most :data:`MAX_ARGUMENT_BYTES` of it,
    lone surrogates made encodable (the exporter sends UTF-8)."""
    if size <= MAX_ARGUMENT_BYTES:
        return {"gen_ai.tool.call.arguments": encodable(text)[0]}
    # No character is less than one byte: the first MAX_ARGUMENT_BYTES characters hold the cut.
    head = text[:MAX_ARGUMENT_BYTES].encode("utf-8", "surrogatepass")[:MAX_ARGUMENT_BYTES]
    cut = head.decode("utf-8", "ignore")
    return {"gen_ai.tool.call.arguments": encodable(cut)[0], "tooljson.arguments.truncated": True}


_Method = TypeVar("_Method", bound=Callable[..., None])


def _never_raises(method: _Method) -> _Method:
    """Telemetry must never break the reading it watches: a failure is one warning, and the spans of
    that reader stop there (a try block costs nothing until it catches)."""

    @functools.wraps(method)
    def guarded(self: _CallSpans, *arguments: Any, **options: Any) -> None:
        if self.failed:
            return
        try:
            method(self, *arguments, **options)
        except Exception as error:  # noqa: BLE001 - whatever it is, the stream is read on
            self.failed = True
            logger.warning(
                "telemetry: the spans of turn %d stop here (%s: %s)",
                self.reader.number,
                type(error).__name__,
                error,
            )

    return guarded  # type: ignore[return-value]


class _CallSpans:
    """The spans of one reader's calls: a :class:`~tooljson.watch.CallWatcher`."""

    def __init__(self, reader: TurnReader, tracer: Tracer, capture: bool) -> None:
        self.reader = reader
        self.tracer = tracer
        self.capture = capture
        # Calls streaming, and calls whose text ended whose verdict waits for the stop reason.
        self.open: dict[ToolBlock, Span] = {}
        self.pending: dict[ToolBlock, Span] = {}
        self.failed = False

    @_never_raises
    def began(self, block: ToolBlock) -> None:
        # Every attribute is set once, when the span ends: the SDK checks them in one pass.
        self.open[block] = self.tracer.start_span(f"tool_call {block.name}", kind=SpanKind.INTERNAL)

    @_never_raises
    def ended(self, block: ToolBlock) -> None:
        span = self.open.pop(block, None)
        if span is None:
            return
        call = block.call
        if call is not None and call.status == "incomplete" and self._awaits_stop_reason(call):
            self.pending[block] = span
        else:
            self._end(span, block)

    def _awaits_stop_reason(self, call: ToolCall) -> bool:
        # Only a provider with a word for the token limit can make a cut-off text "truncated".
        return (
            bool(source_named(call.provider).cut_off)
            and self.reader.accumulator.stop_reason_for(call) is None
        )

    @_never_raises
    def stopped(self, blocks: Sequence[ToolBlock], *, whole: bool) -> None:
        for block in blocks:
            self.ended(block)
        for block in list(self.pending):
            call = block.call
            if whole or (call is not None and self.reader.accumulator.stop_reason_for(call) is not None):
                self._end(self.pending.pop(block), block)

    @_never_raises
    def dropped(self, blocks: Sequence[ToolBlock]) -> None:
        for block in blocks:
            span = self.open.pop(block, None)
            if span is not None:
                self._end(span, block, "interrupted")
        self._settle_pending()

    @_never_raises
    def interrupted(self) -> None:
        for block, span in list(self.open.items()):
            self._end(span, block)
        self.open.clear()
        self._settle_pending()

    def _settle_pending(self) -> None:
        for block, span in list(self.pending.items()):
            self._end(span, block)
        self.pending.clear()

    def _end(self, span: Span, block: ToolBlock, state: CallState | None = None) -> None:
        reader = self.reader
        call = block.call
        if state is None:
            state = reader.state(call if call is not None else block)
        text = call.raw_json if call is not None else reader.accumulator.received(block)
        size = utf8_size(text)
        attributes: dict[str, Any] = {
            "gen_ai.tool.name": block.name,
            "gen_ai.tool.call.id": block.id,
            "tooljson.source": block.provider,
            "tooljson.verdict": state,
            "tooljson.fragments": block.deltas,
            "tooljson.bytes": size,
        }
        provider = PROVIDER_NAMES.get(block.provider)
        if provider is not None:
            attributes["gen_ai.provider.name"] = provider
        if self.capture:
            attributes.update(_argument_attributes(text, size))
        if state in ERROR_STATES:
            attributes["error.type"] = state
            attributes["tooljson.error.position"], description = self._where(block, call, state)
            span.set_status(Status(StatusCode.ERROR, description))
        name = f"tool_call {block.name}"
        if getattr(span, "name", None) != name:
            # Some servers send a call's name after its first event (and a span that records
            # nothing has no name to compare).
            span.update_name(name)
        span.set_attributes(attributes)
        span.end()

    def _where(self, block: ToolBlock, call: ToolCall | None, state: str) -> tuple[int, str]:
        """Where the text went wrong or stopped (a character offset), and a line saying why."""
        if call is not None and call.error is not None:
            if state == "truncated":
                return (
                    call.error.pos,
                    f"cut off at the token limit ({self.reader.accumulator.stop_reason_for(call)})",
                )
            return call.error.pos, call.error.msg
        if call is not None:
            return len(call.raw_json), state
        if state == "malformed":
            status = self.reader.accumulator.status(block.index)
            if status.pos is not None:
                return status.pos, status.msg or state
        # Broken off while streaming: where the text stopped.
        return block.chars, self.reader.interruption or state


class _ToolRunSpan:
    """The ``execute_tool`` span of one call the loop answers: a :class:`~tooljson.watch.ToolRun`."""

    def __init__(self, tracer: Tracer, call: ToolCall, capture: bool) -> None:
        self.tracer = tracer
        self.call = call
        self.capture = capture
        self.span: Span | None = None
        self.error: BaseException | None = None
        self._token: object = None
        self._end_time: int | None = None

    def _start(self) -> Span:
        call = self.call
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": call.name,
            "gen_ai.tool.call.id": call.id,
            "gen_ai.tool.type": "function",
            "tooljson.source": call.provider,
        }
        provider = PROVIDER_NAMES.get(call.provider)
        if provider is not None:
            attributes["gen_ai.provider.name"] = provider
        if self.capture:
            attributes.update(_argument_attributes(call.raw_json, utf8_size(call.raw_json)))
        return self.tracer.start_span(
            f"execute_tool {call.name}", kind=SpanKind.INTERNAL, attributes=attributes
        )

    def __enter__(self) -> _ToolRunSpan:
        self.span = self._start()
        self._token = context_api.attach(trace.set_span_in_context(self.span))
        return self

    def __exit__(self, *exc: object) -> None:
        self._end_time = time.time_ns()
        if self._token is not None:
            context_api.detach(self._token)  # type: ignore[arg-type]
            self._token = None

    def failed(self, error: BaseException) -> None:
        self.error = error

    def settle(self, state: CallState) -> None:
        span = self.span if self.span is not None else self._start()
        span.set_attribute("tooljson.verdict", state)
        if state in ERROR_STATES:
            error = self.error
            span.set_attribute("error.type", type(error).__qualname__ if error else state)
            if error is not None:
                span.record_exception(error)
            span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}" if error else state))
        span.end(end_time=self._end_time)


def trace_reader(reader: TurnReader, tracer: Tracer, *, capture_arguments: bool = False) -> None:
    """Make ``tracer``'s spans of the calls of ``reader`` (one not fed yet), instrumented or not: the
    proxy's own readers, whose spans go to the proxy's exporter. A watcher the reader already has
    (the process is instrumented) is replaced: its calls are not traced twice."""
    reader.watcher = reader.accumulator.watcher = _CallSpans(reader, tracer, capture_arguments)


class ToolJSONInstrumentor(BaseInstrumentor):  # type: ignore[misc]
    """Spans for tooljson's tool calls and the loop's tool runs (see the module's docstring).

    ``instrument(tracer_provider=None, capture_arguments=None)``: the spans go to ``tracer_provider``
    (the global one by default); ``capture_arguments`` puts each call's argument text, cut at
    :data:`MAX_ARGUMENT_BYTES`, in ``gen_ai.tool.call.arguments`` (by default, when the environment
    says ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``). Readers made before
    ``instrument`` or after ``uninstrument`` make no span; readers made in between keep theirs.
    """

    _factories: tuple[Any, Any] | None = None

    def instrumentation_dependencies(self) -> Collection[str]:
        # What is instrumented is tooljson itself: nothing else has to be installed.
        return ()

    def _instrument(self, **kwargs: Any) -> None:
        tracer = trace.get_tracer(__name__, __version__, tracer_provider=kwargs.get("tracer_provider"))
        capture = kwargs.get("capture_arguments")
        if capture is None:
            capture = os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() == "true"

        def watch_calls(reader: TurnReader) -> CallWatcher:
            return _CallSpans(reader, tracer, bool(capture))

        def run(call: ToolCall) -> ToolRun:
            return _ToolRunSpan(tracer, call, bool(capture))

        self._factories = (watch_calls, run)
        CALL_WATCHERS.append(watch_calls)
        RUN_WATCHERS.append(run)

    def _uninstrument(self, **kwargs: Any) -> None:
        if self._factories is None:
            return
        watch_calls, run = self._factories
        self._factories = None
        if watch_calls in CALL_WATCHERS:
            CALL_WATCHERS.remove(watch_calls)
        if run in RUN_WATCHERS:
            RUN_WATCHERS.remove(run)
