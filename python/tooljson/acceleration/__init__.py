"""``tooljson.accelerate(client)``: the SDKs' stream helpers, with tool input parsed by tooljson.

The ``anthropic`` helper stream re-parses a tool block's whole input on every ``input_json_delta``
(quadratic CPU) and raises mid-stream at the first malformed fragment; the ``openai`` Chat
Completions helper rebuilds its whole snapshot per chunk and re-parses a strict tool's arguments and
a structured-output content the same way. An accelerated client serves ``messages.stream(...)`` and
``beta.messages.stream(...)`` (anthropic), ``chat.completions.stream(...)`` and
``responses.stream(...)`` (openai) with the SDK's own stream classes and events, in the same order,
and parses each tool input once, as it arrives, with a :class:`~tooljson.TurnReader`. Everything
else about the client is the SDK's.

Modules: :mod:`.clients` (the copy and its ``stream`` methods), :mod:`.streams` (the anthropic
stream and manager subclasses), :mod:`.managers` (entering and leaving a manager, for both SDKs), :mod:`.snapshot` (raw events to helper events, around the turn
reader), :mod:`.models` (events made as the SDK makes them, faster), :mod:`.reporting` (the warning
for input that did not parse), :mod:`.threads` (beta threads whose turns stream through tooljson),
:mod:`.runner` (the SDK's streaming tool runner with tooljson's answers to calls that did not
parse), :mod:`.openai_streams` (the openai streams and managers), :mod:`.openai_chat` and
:mod:`.openai_responses` (their states), :mod:`.instructor` (instructor clients' partial streaming).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, cast

from tooljson.acceleration.instructor import is_instructor_client as _is_instructor_client

if TYPE_CHECKING:
    from anthropic import (
        Anthropic,
        AnthropicBedrock,
        AnthropicVertex,
        AsyncAnthropic,
        AsyncAnthropicBedrock,
        AsyncAnthropicVertex,
    )
    from instructor import AsyncInstructor, Instructor
    from openai import AsyncOpenAI, OpenAI

    from tooljson.acceleration.openai_streams import AcceleratedOpenAIStream
    from tooljson.acceleration.runner import RunnerTruncation
    from tooljson.acceleration.streams import AcceleratedStream

__all__ = ["AcceleratedOpenAIStream", "AcceleratedStream", "RunnerTruncation", "accelerate"]

ClientT = TypeVar(
    "ClientT",
    bound="Anthropic | AsyncAnthropic | AnthropicBedrock | AsyncAnthropicBedrock | AnthropicVertex | AsyncAnthropicVertex"
    " | OpenAI | AsyncOpenAI | Instructor | AsyncInstructor",
)


def __getattr__(name: str) -> Any:
    # The SDKs' classes are imported only when asked for: an anthropic-only install never imports
    # openai, and an instructor client (openai alone, say) never needs anthropic.
    if name == "AcceleratedOpenAIStream":
        from tooljson.acceleration.openai_streams import AcceleratedOpenAIStream

        return AcceleratedOpenAIStream
    if name == "AcceleratedStream":
        from tooljson.acceleration.streams import AcceleratedStream

        return AcceleratedStream
    if name == "RunnerTruncation":
        from tooljson.acceleration.runner import RunnerTruncation

        return RunnerTruncation
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def accelerate(
    client: ClientT,
    *,
    partial_strings: bool | None = None,
    preview_string_limit: int | None = None,
    max_depth: int = 1000,
    max_size: int | None = None,
    truncation: RunnerTruncation | None = None,
    max_tokens_cap: int | None = None,
) -> ClientT:
    """A copy of ``client`` whose stream helpers are served by tooljson; ``client`` itself keeps
    working unchanged. anthropic clients: ``messages.stream(...)``, ``beta.messages.stream(...)``,
    beta threads and the streaming tool runner; openai clients (``OpenAI``, ``AsyncOpenAI``,
    ``AzureOpenAI``, ...): ``chat.completions.stream(...)`` (and ``beta.chat.completions.stream(...)``
    where the SDK has it) and ``responses.stream(...)``.

    The copy is made with the client's own ``copy()``, as ``with_options()`` makes one: the same class,
    options and connection pool (closing either client closes the pool). Every other resource and
    method (``create``, ``count_tokens``, ``batches``, ``models``, ``with_raw_response``...) is the
    SDK's, untouched; ``with_options()`` and ``copy()`` of the copy are accelerated too.

    The streams are the SDK's classes (``MessageStream``, ``BetaAsyncMessageStream``...) and yield
    the SDK's events in the SDK's order; only the tool input of ``tool_use`` and ``server_tool_use``
    blocks differs:

    * ``input_json.snapshot`` and the block's ``input`` in ``current_message_snapshot`` are tooljson's
      preview: built in place, never re-parsed. It is the **live value**: an ``input_json`` event's
      snapshot keeps growing after the event (``copy.deepcopy`` it to keep it as it was); once the
      block stops it no longer changes. Keys and values appear only once complete: strings (unless
      ``partial_strings``), and numbers always (the SDK shows ``12`` of ``123``).
    * At ``content_block_stop`` the input is exactly what :func:`json.loads` returns for the text.
    * A text that does not parse does not stop the stream (the SDK raises ``ValueError``): the block
      keeps its last preview as ``input``, ``stream.tool_calls`` has the :class:`~tooljson.ToolCall`
      with its error, ``stream.turn.state(call)`` the verdict (``"truncated"`` when ``stop_reason`` is
      ``max_tokens``, else ``"incomplete"`` or ``"malformed"``) and a warning is logged on the
      ``"tooljson"`` logger.

    ``partial_strings``: show strings while they stream. ``None`` (the default) does as the SDK's
    helper: only complete strings, except on ``beta.messages.stream`` with the fine-grained tool
    streaming beta header, where the SDK shows growing strings too. ``preview_string_limit``,
    ``max_depth`` and ``max_size`` are :class:`~tooljson.ToolCallAccumulator` options.

    The streams of ``beta.messages.thread(...)`` and of ``beta.messages.tool_runner(..., stream=True)``
    are accelerated the same way, and the runner answers by tooljson's rules (see
    :mod:`tooljson.acceleration.runner`): a call whose input is malformed is never run and gets the
    ``INVALID_JSON`` result; a call cut off at ``max_tokens`` is never run, and ``truncation`` says
    what the runner does then: ``"stop"`` (the default) ends the run as the SDK does, ``"retry"``
    sends the turn again with ``max_tokens`` doubled up to ``max_tokens_cap`` (then raises), and
    ``"raise"`` raises :class:`~tooljson.TruncatedToolInput`; ``max_tokens_cap`` defaults to 64,000.
    Beta ``mcp_tool_use`` blocks keep the SDK's own accumulation. Both options are the anthropic
    tool runner's: given for an openai client, they raise :class:`TypeError` rather than be ignored.

    openai streams: the SDK's ``ChatCompletionStream`` / ``ResponseStream`` classes and events.
    Every chunk goes to a turn reader first; a chunk that only adds text is added to the snapshot in
    place (no ``model_dump`` and rebuild per chunk). ``parsed_arguments`` of a strict tool's
    ``tool_calls.function.arguments.delta`` events and ``parsed`` of ``content.delta`` events (with
    a ``response_format`` model) are tooljson's preview, the live value as above; at ``.done`` and
    in ``get_final_completion()`` they are what the SDK's helper gives for well-formed text.
    Arguments that do not parse do not stop the stream: ``parsed_arguments`` is ``None``, the
    verdict is ``stream.turn.state(call)`` and a warning is logged. ``LengthFinishReasonError`` and
    ``ContentFilterFinishReasonError`` are raised as the SDK raises them.

    instructor clients (``instructor.Instructor`` / ``AsyncInstructor`` from ``from_openai`` or
    ``from_anthropic``, ``TOOLS`` or ``JSON`` mode, instructor 1.17): a copy whose
    ``create_partial(...)`` and ``create(..., response_model=Partial[M], stream=True)`` yield the
    partials instructor yields, each chunk read once (see :mod:`tooljson.acceleration.instructor`);
    a stream cut off at the token limit raises instructor's ``IncompleteOutputException``, malformed
    text :class:`~tooljson.MalformedJSONError`. The options above do not apply to them and raise
    :class:`TypeError` when given.

    Type checkers see the SDK's stream types; ``isinstance(stream, AcceleratedStream)`` (anthropic)
    and ``isinstance(stream, AcceleratedOpenAIStream)`` (openai), from ``tooljson.acceleration``,
    narrow a stream to one with ``turn`` and ``tool_calls``.
    """
    if _is_instructor_client(client):
        given = {
            name: value
            for name, value, default in (
                ("partial_strings", partial_strings, None),
                ("preview_string_limit", preview_string_limit, None),
                ("max_depth", max_depth, 1000),
                ("max_size", max_size, None),
                ("truncation", truncation, None),
                ("max_tokens_cap", max_tokens_cap, None),
            )
            if value != default
        }
        if given:
            raise TypeError(
                f"an instructor client's partials are instructor's own: {', '.join(given)} cannot change them"
            )
        from tooljson.acceleration.instructor import accelerated_instructor

        return cast(ClientT, accelerated_instructor(client))
    from tooljson.acceleration.clients import accelerated_copy, is_openai_client
    from tooljson.acceleration.runner import accelerated_runner
    from tooljson.acceleration.streams import StreamOptions
    from tooljson.acceleration.threads import Acceleration
    from tooljson.loop import DEFAULT_MAX_TOKENS_CAP

    if partial_strings is not None and not isinstance(partial_strings, bool):
        raise TypeError(f"partial_strings must be True, False or None, not {partial_strings!r}")
    if truncation is not None and truncation not in ("stop", "retry", "raise"):
        raise ValueError(f"truncation must be 'stop', 'retry' or 'raise', not {truncation!r}")
    if max_tokens_cap is not None and (
        not isinstance(max_tokens_cap, int) or isinstance(max_tokens_cap, bool) or max_tokens_cap < 1
    ):
        raise ValueError(f"max_tokens_cap must be a positive integer, not {max_tokens_cap!r}")
    if (truncation is not None or max_tokens_cap is not None) and is_openai_client(client):
        raise TypeError(
            "truncation and max_tokens_cap say what anthropic's tool runner does with a call cut off at "
            f"max_tokens; {type(client).__qualname__} has no such runner"
        )
    options = StreamOptions(partial_strings, preview_string_limit, max_depth, max_size)
    # The accumulator checks its own options: a bad one fails here, not in the middle of a stream.
    options.reader()
    acceleration = Acceleration(
        options,
        truncation or "stop",
        DEFAULT_MAX_TOKENS_CAP if max_tokens_cap is None else max_tokens_cap,
        accelerated_runner,
    )
    return cast(ClientT, accelerated_copy(client, acceleration))
