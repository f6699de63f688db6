"""The helper streams and their managers, sync and async, for ``messages`` and ``beta.messages``.

Each class subclasses the SDK's own (``MessageStream``, ``BetaAsyncMessageStreamManager``, ...), so
``isinstance`` checks, ``text_stream``, ``until_done``, ``get_final_text``, ``close``, ``response``,
``request_id`` and the context managers are the SDK's code. Only the loop that turns raw events into
helper events (``__stream__``) and the members that read the message snapshot are replaced: the
snapshot is kept by a :class:`~tooljson.acceleration.snapshot.SnapshotBuilder`.

On top of the SDK's members each stream has ``turn`` (the :class:`~tooljson.TurnReader` that parsed
every tool input: ``turn.state(call)`` is the verdict) and ``tool_calls`` (its finished calls).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any

from anthropic.lib._tracing import withhold_message_snapshot
from anthropic.lib.streaming import (
    AsyncMessageStream,
    AsyncMessageStreamManager,
    BetaAsyncMessageStream,
    BetaAsyncMessageStreamManager,
    BetaInputJsonEvent,
    BetaMessageStream,
    BetaMessageStreamManager,
    InputJsonEvent,
    MessageStream,
    MessageStreamManager,
)
from anthropic.lib.streaming import _beta_messages as sdk_beta
from anthropic.lib.streaming import _messages as sdk_messages

from tooljson.acceleration.managers import AsyncManager, SyncManager
from tooljson.acceleration.models import input_json_event_maker
from tooljson.acceleration.snapshot import HelperFunctions, SnapshotBuilder
from tooljson.calls import ToolCall
from tooljson.turn import TurnReader

__all__ = [
    "AcceleratedAsyncMessageStream",
    "AcceleratedAsyncMessageStreamManager",
    "AcceleratedBetaAsyncMessageStream",
    "AcceleratedBetaAsyncMessageStreamManager",
    "AcceleratedBetaMessageStream",
    "AcceleratedBetaMessageStreamManager",
    "AcceleratedMessageStream",
    "AcceleratedMessageStreamManager",
    "AcceleratedStream",
    "StreamOptions",
    "accelerated_manager",
    "manager_request",
]

MESSAGES = HelperFunctions(
    sdk_messages.accumulate_event,
    sdk_messages.build_events,
    input_json_event_maker(InputJsonEvent),
    withhold_message_snapshot,
)
BETA = HelperFunctions(
    sdk_beta.accumulate_event,
    sdk_beta.build_events,
    input_json_event_maker(BetaInputJsonEvent),
    withhold_message_snapshot,
)

# The beta header under which the SDK's beta helper shows strings still being streamed.
FINE_GRAINED_TOOL_STREAMING = "fine-grained-tool-streaming-2025-05-14"


@dataclass(frozen=True)
class StreamOptions:
    """How the streams of one accelerated client parse tool input (see :func:`tooljson.accelerate`)."""

    partial_strings: bool | None = None
    preview_string_limit: int | None = None
    max_depth: int = 1000
    max_size: int | None = None

    def reader(self, *, fine_grained: bool = False) -> TurnReader:
        """A turn reader for one stream; ``fine_grained`` when the request turned on the beta of
        fine-grained tool streaming (growing strings are then shown unless told otherwise)."""
        partial = fine_grained if self.partial_strings is None else self.partial_strings
        return TurnReader(
            partial_strings=partial,
            preview_string_limit=self.preview_string_limit,
            max_depth=self.max_depth,
            max_size=self.max_size,
        )


def _beta_options(raw_stream: Any) -> tuple[bool, dict[str, Any]]:
    headers = raw_stream.response.request.headers
    return FINE_GRAINED_TOOL_STREAMING in headers.get("anthropic-beta", ""), {"request_headers": headers}


class AcceleratedStream:
    """What the four accelerated streams share: the members that read the snapshot, and the two they
    add to the SDK's. ``isinstance(stream, AcceleratedStream)`` tells typed code that a stream has
    ``turn`` and ``tool_calls``."""

    _builder: SnapshotBuilder

    @property
    def turn(self) -> TurnReader:
        """The :class:`~tooljson.TurnReader` that parsed this response's tool input; read it, do
        not feed it. ``turn.state(call)`` gives a call's verdict."""
        return self._builder.reader

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls finished so far (``tool_use`` and ``server_tool_use`` blocks), in order."""
        return self._builder.reader.calls

    @property
    def current_message_snapshot(self) -> Any:
        snapshot = self._builder.snapshot
        assert snapshot is not None, "no message_start received yet"
        return snapshot

    def _current_snapshot_or_none(self) -> Any:
        return self._builder.snapshot

    def _reword_unparsed(self, template: str) -> None:
        """Word the one warning per call that did not parse for a reader that handles such calls
        itself (the tool runner): ``template`` as ``UnparsedReport.reword`` takes it."""
        self._builder.reword_report(template)


class _SyncStream(AcceleratedStream):
    _raw_stream: Any

    def __stream__(self) -> Iterator[Any]:
        builder = self._builder
        try:
            for sse_event in self._raw_stream:
                yield from builder.events(sse_event)
        except Exception as error:
            builder.broke(error)
            raise
        builder.ended()

    # The SDK's, from the stream class after this one in the method resolution order.
    until_done: Callable[[], None]

    def get_final_message(self) -> Any:
        """Waits until the stream has been read to completion and returns the message."""
        self.until_done()
        return self.current_message_snapshot


class _AsyncStream(AcceleratedStream):
    _raw_stream: Any

    async def __stream__(self) -> AsyncIterator[Any]:
        builder = self._builder
        try:
            async for sse_event in self._raw_stream:
                for event in builder.events(sse_event):
                    yield event
        except Exception as error:
            builder.broke(error)
            raise
        builder.ended()

    # The SDK's, from the stream class after this one in the method resolution order.
    until_done: Callable[[], Coroutine[Any, Any, None]]

    async def get_final_message(self) -> Any:
        """Waits until the stream has been read to completion and returns the message."""
        await self.until_done()
        return self.current_message_snapshot


class AcceleratedMessageStream(_SyncStream, MessageStream[Any]):
    """``client.messages.stream(...)`` entered: the SDK's ``MessageStream`` with tooljson's tool input."""

    def __init__(self, raw_stream: Any, output_format: Any, *, options: StreamOptions) -> None:
        self._builder = SnapshotBuilder(MESSAGES, raw_stream, options.reader(), output_format=output_format)
        super().__init__(raw_stream, output_format)


class AcceleratedAsyncMessageStream(_AsyncStream, AsyncMessageStream[Any]):
    """The async twin of :class:`AcceleratedMessageStream`."""

    def __init__(self, raw_stream: Any, output_format: Any, *, options: StreamOptions) -> None:
        self._builder = SnapshotBuilder(MESSAGES, raw_stream, options.reader(), output_format=output_format)
        super().__init__(raw_stream, output_format)


class _BetaCounts:
    """The beta streams count stopped blocks and note ``message_stop`` (the SDK's threads read them)."""

    _completed_blocks: int
    _message_complete: bool

    def _count(self, kind: str) -> None:
        if kind == "content_block_stop":
            self._completed_blocks += 1
        elif kind == "message_stop":
            self._message_complete = True


class AcceleratedBetaMessageStream(_SyncStream, _BetaCounts, BetaMessageStream[Any]):
    """``client.beta.messages.stream(...)`` entered: the SDK's ``BetaMessageStream`` with tooljson's
    tool input."""

    def __init__(self, raw_stream: Any, output_format: Any, *, options: StreamOptions) -> None:
        fine_grained, accumulate_options = _beta_options(raw_stream)
        self._builder = SnapshotBuilder(
            BETA,
            raw_stream,
            options.reader(fine_grained=fine_grained),
            output_format=output_format,
            accumulate_options=accumulate_options,
            on_accumulated=self._count,
        )
        super().__init__(raw_stream, output_format)


class AcceleratedBetaAsyncMessageStream(_AsyncStream, _BetaCounts, BetaAsyncMessageStream[Any]):
    """The async twin of :class:`AcceleratedBetaMessageStream`."""

    def __init__(self, raw_stream: Any, output_format: Any, *, options: StreamOptions) -> None:
        fine_grained, accumulate_options = _beta_options(raw_stream)
        self._builder = SnapshotBuilder(
            BETA,
            raw_stream,
            options.reader(fine_grained=fine_grained),
            output_format=output_format,
            accumulate_options=accumulate_options,
            on_accumulated=self._count,
        )
        super().__init__(raw_stream, output_format)


# --- the managers: what ``stream(...)`` returns, entered with ``with`` / ``async with``


class AcceleratedMessageStreamManager(SyncManager, MessageStreamManager[Any]):
    """What ``messages.stream(...)`` of an accelerated client returns."""

    _stream_class = AcceleratedMessageStream

    def __init__(self, api_request: Callable[[], Any], *, output_format: Any, options: StreamOptions) -> None:
        super().__init__(api_request, output_format=output_format)
        self._keep(api_request, options, {"output_format": output_format})


class AcceleratedAsyncMessageStreamManager(AsyncManager, AsyncMessageStreamManager[Any]):
    """What ``messages.stream(...)`` of an accelerated async client returns."""

    _stream_class = AcceleratedAsyncMessageStream

    def __init__(self, api_request: Awaitable[Any], *, output_format: Any, options: StreamOptions) -> None:
        super().__init__(api_request, output_format=output_format)
        self._keep(api_request, options, {"output_format": output_format})


class AcceleratedBetaMessageStreamManager(SyncManager, BetaMessageStreamManager[Any]):
    """What ``beta.messages.stream(...)`` of an accelerated client returns."""

    _stream_class = AcceleratedBetaMessageStream

    def __init__(self, api_request: Callable[[], Any], *, output_format: Any, options: StreamOptions) -> None:
        super().__init__(api_request, output_format=output_format)
        self._keep(api_request, options, {"output_format": output_format})


class AcceleratedBetaAsyncMessageStreamManager(AsyncManager, BetaAsyncMessageStreamManager[Any]):
    """What ``beta.messages.stream(...)`` of an accelerated async client returns."""

    _stream_class = AcceleratedBetaAsyncMessageStream

    def __init__(self, api_request: Awaitable[Any], *, output_format: Any, options: StreamOptions) -> None:
        super().__init__(api_request, output_format=output_format)
        self._keep(api_request, options, {"output_format": output_format})


_MANAGERS: dict[type[Any], type[Any]] = {
    MessageStreamManager: AcceleratedMessageStreamManager,
    AsyncMessageStreamManager: AcceleratedAsyncMessageStreamManager,
    BetaMessageStreamManager: AcceleratedBetaMessageStreamManager,
    BetaAsyncMessageStreamManager: AcceleratedBetaAsyncMessageStreamManager,
}


def _unknown_shape(sdk_class: type[Any]) -> RuntimeError:
    import anthropic

    return RuntimeError(
        f"tooljson.accelerate does not know the {sdk_class.__qualname__} of anthropic "
        f"{anthropic.__version__}; the SDK's stream helper changed shape"
    )


def manager_request(manager: Any, sdk_class: type[Any]) -> tuple[Any, Any]:
    """The request a manager of the SDK's ``sdk_class`` (or of a subclass) will send (not sent yet)
    and its ``output_format``. They are private to the SDK's manager, so an SDK that renamed them is
    reported here rather than streamed unaccelerated."""
    state = vars(manager)
    prefix = f"_{sdk_class.__name__}__"
    if prefix + "api_request" not in state or prefix + "output_format" not in state:
        raise _unknown_shape(sdk_class)
    return state[prefix + "api_request"], state[prefix + "output_format"]


def accelerated_manager(manager: Any, options: StreamOptions) -> Any:
    """The accelerated twin of a manager the SDK's ``stream(...)`` returned, for the same request."""
    sdk_class = type(manager)
    ours = _MANAGERS.get(sdk_class)
    if ours is None:
        raise _unknown_shape(sdk_class)
    api_request, output_format = manager_request(manager, sdk_class)
    return ours(api_request, output_format=output_format, options=options)
