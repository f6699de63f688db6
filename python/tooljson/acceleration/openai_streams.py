"""The ``openai`` helper streams and their managers, sync and async: ``chat.completions.stream`` and
``responses.stream``.

Each class subclasses the SDK's own (``ChatCompletionStream``, ``AsyncResponseStreamManager``, ...),
so ``isinstance`` checks, iteration, ``until_done``, ``close``, ``get_final_completion`` /
``get_final_response``, ``current_completion_snapshot`` and the context managers are the SDK's
code. The SDK's streams hand every chunk or event to their state object; an accelerated stream's
state is tooljson's (:mod:`.openai_chat`, :mod:`.openai_responses`), and that is the whole change.

On top of the SDK's members each stream has ``turn`` (the :class:`~tooljson.TurnReader` that parsed
every call's arguments: ``turn.state(call)`` is the verdict) and ``tool_calls`` (its finished calls).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from openai.lib.streaming.chat import (
    AsyncChatCompletionStream,
    AsyncChatCompletionStreamManager,
    ChatCompletionStream,
    ChatCompletionStreamManager,
)
from openai.lib.streaming.responses import (
    AsyncResponseStream,
    AsyncResponseStreamManager,
    ResponseStream,
    ResponseStreamManager,
)

from tooljson.acceleration.managers import AsyncManager, SyncManager
from tooljson.acceleration.openai_chat import AcceleratedChatCompletionStreamState
from tooljson.acceleration.openai_responses import AcceleratedResponseStreamState
from tooljson.acceleration.streams import StreamOptions
from tooljson.calls import ToolCall
from tooljson.parser import Parser
from tooljson.turn import TurnReader, describe_break

__all__ = [
    "AcceleratedAsyncChatCompletionStream",
    "AcceleratedAsyncChatCompletionStreamManager",
    "AcceleratedAsyncResponseStream",
    "AcceleratedAsyncResponseStreamManager",
    "AcceleratedChatCompletionStream",
    "AcceleratedChatCompletionStreamManager",
    "AcceleratedOpenAIStream",
    "AcceleratedResponseStream",
    "AcceleratedResponseStreamManager",
    "accelerated_openai_manager",
]


class AcceleratedOpenAIStream:
    """What the accelerated ``openai`` streams add to the SDK's: ``turn`` and ``tool_calls``.
    ``isinstance(stream, AcceleratedOpenAIStream)`` tells typed code that a stream has them."""

    _reader: TurnReader
    _state: Any

    def _take_over(self, state: Any) -> None:
        # The SDK's stream reads every chunk through its state object: tooljson's takes its place.
        self._state = state
        self._reader = state.reader

    @property
    def turn(self) -> TurnReader:
        """The :class:`~tooljson.TurnReader` that parsed this response's tool-call arguments; read
        it, do not feed it. ``turn.state(call)`` gives a call's verdict."""
        return self._reader

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls finished so far, in order (Chat Completions: when their choice's
        ``finish_reason`` arrived; Responses: at their ``.done`` event)."""
        return self._reader.calls


def _chat_state(
    options: StreamOptions, response_format: Any, input_tools: Any
) -> AcceleratedChatCompletionStreamState:
    reader = options.reader()
    partial = bool(options.partial_strings)

    def content_parser() -> Parser:
        return Parser(
            partial_strings=partial,
            preview_string_limit=options.preview_string_limit,
            max_depth=options.max_depth,
            max_size=options.max_size,
        )

    return AcceleratedChatCompletionStreamState(
        input_tools=input_tools, response_format=response_format, reader=reader, content_parser=content_parser
    )


class _SyncStream(AcceleratedOpenAIStream):
    def _read(self, stream: Iterator[Any]) -> Iterator[Any]:
        try:
            yield from stream
        except Exception as error:
            self._reader.interrupt(describe_break(error, self._reader.provider), error)
            raise


class _AsyncStream(AcceleratedOpenAIStream):
    async def _read(self, stream: AsyncIterator[Any]) -> AsyncIterator[Any]:
        try:
            async for event in stream:
                yield event
        except Exception as error:
            self._reader.interrupt(describe_break(error, self._reader.provider), error)
            raise


class AcceleratedChatCompletionStream(_SyncStream, ChatCompletionStream[Any]):
    """``client.chat.completions.stream(...)`` entered: the SDK's ``ChatCompletionStream``, each
    argument text and a structured-output content parsed once."""

    def __init__(
        self, *, raw_stream: Any, response_format: Any, input_tools: Any, options: StreamOptions
    ) -> None:
        super().__init__(raw_stream=raw_stream, response_format=response_format, input_tools=input_tools)
        self._take_over(_chat_state(options, response_format, input_tools))

    def __stream__(self) -> Iterator[Any]:
        return self._read(super().__stream__())


class AcceleratedAsyncChatCompletionStream(_AsyncStream, AsyncChatCompletionStream[Any]):
    """The async twin of :class:`AcceleratedChatCompletionStream`."""

    def __init__(
        self, *, raw_stream: Any, response_format: Any, input_tools: Any, options: StreamOptions
    ) -> None:
        super().__init__(raw_stream=raw_stream, response_format=response_format, input_tools=input_tools)
        self._take_over(_chat_state(options, response_format, input_tools))

    def __stream__(self) -> AsyncIterator[Any]:
        return self._read(super().__stream__())


class AcceleratedResponseStream(_SyncStream, ResponseStream[Any]):
    """``client.responses.stream(...)`` entered: the SDK's ``ResponseStream``, each call's
    arguments parsed once."""

    def __init__(
        self,
        *,
        raw_stream: Any,
        text_format: Any,
        input_tools: Any,
        starting_after: Any,
        options: StreamOptions,
    ) -> None:
        super().__init__(
            raw_stream=raw_stream,
            text_format=text_format,
            input_tools=input_tools,
            starting_after=starting_after,
        )
        self._take_over(
            AcceleratedResponseStreamState(
                input_tools=input_tools, text_format=text_format, reader=options.reader()
            )
        )

    def __stream__(self) -> Iterator[Any]:
        return self._read(super().__stream__())


class AcceleratedAsyncResponseStream(_AsyncStream, AsyncResponseStream[Any]):
    """The async twin of :class:`AcceleratedResponseStream`."""

    def __init__(
        self,
        *,
        raw_stream: Any,
        text_format: Any,
        input_tools: Any,
        starting_after: Any,
        options: StreamOptions,
    ) -> None:
        super().__init__(
            raw_stream=raw_stream,
            text_format=text_format,
            input_tools=input_tools,
            starting_after=starting_after,
        )
        self._take_over(
            AcceleratedResponseStreamState(
                input_tools=input_tools, text_format=text_format, reader=options.reader()
            )
        )

    def __stream__(self) -> AsyncIterator[Any]:
        return self._read(super().__stream__())


# --- the managers: what ``stream(...)`` returns, entered with ``with`` / ``async with``


class AcceleratedChatCompletionStreamManager(SyncManager, ChatCompletionStreamManager[Any]):
    """What ``chat.completions.stream(...)`` of an accelerated client returns."""

    _stream_class = AcceleratedChatCompletionStream

    def __init__(self, api_request: Any, *, options: StreamOptions, **arguments: Any) -> None:
        super().__init__(api_request, **arguments)
        self._keep(api_request, options, arguments)


class AcceleratedAsyncChatCompletionStreamManager(AsyncManager, AsyncChatCompletionStreamManager[Any]):
    """What ``chat.completions.stream(...)`` of an accelerated async client returns."""

    _stream_class = AcceleratedAsyncChatCompletionStream

    def __init__(self, api_request: Any, *, options: StreamOptions, **arguments: Any) -> None:
        super().__init__(api_request, **arguments)
        self._keep(api_request, options, arguments)


class AcceleratedResponseStreamManager(SyncManager, ResponseStreamManager[Any]):
    """What ``responses.stream(...)`` of an accelerated client returns."""

    _stream_class = AcceleratedResponseStream

    def __init__(self, api_request: Any, *, options: StreamOptions, **arguments: Any) -> None:
        super().__init__(api_request, **arguments)
        self._keep(api_request, options, arguments)


class AcceleratedAsyncResponseStreamManager(AsyncManager, AsyncResponseStreamManager[Any]):
    """What ``responses.stream(...)`` of an accelerated async client returns."""

    _stream_class = AcceleratedAsyncResponseStream

    def __init__(self, api_request: Any, *, options: StreamOptions, **arguments: Any) -> None:
        super().__init__(api_request, **arguments)
        self._keep(api_request, options, arguments)


# Each SDK manager, its accelerated twin and the private fields it keeps the request in.
_MANAGERS: dict[type[Any], tuple[type[Any], tuple[str, ...]]] = {
    ChatCompletionStreamManager: (AcceleratedChatCompletionStreamManager, ("response_format", "input_tools")),
    AsyncChatCompletionStreamManager: (
        AcceleratedAsyncChatCompletionStreamManager,
        ("response_format", "input_tools"),
    ),
    ResponseStreamManager: (
        AcceleratedResponseStreamManager,
        ("text_format", "input_tools", "starting_after"),
    ),
    AsyncResponseStreamManager: (
        AcceleratedAsyncResponseStreamManager,
        ("text_format", "input_tools", "starting_after"),
    ),
}


def accelerated_openai_manager(manager: Any, options: StreamOptions) -> Any:
    """The accelerated twin of a manager the SDK's ``stream(...)`` returned, for the same request
    (not sent yet). Its fields are private to the SDK: one it renamed is reported here rather than
    streamed unaccelerated."""
    sdk_class = type(manager)
    ours, fields = _MANAGERS.get(sdk_class, (None, ()))
    state = vars(manager)
    prefix = f"_{sdk_class.__name__}__"
    names = ("api_request", *fields)
    if ours is None or any(prefix + name not in state for name in names):
        import openai

        raise RuntimeError(
            f"tooljson.accelerate does not know the {sdk_class.__qualname__} of openai "
            f"{openai.__version__}; the SDK's stream helper changed shape"
        )
    request, *values = (state[prefix + name] for name in names)
    return ours(request, **dict(zip(fields, values)), options=options)
