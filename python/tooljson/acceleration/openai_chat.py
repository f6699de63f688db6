"""The ``openai`` Chat Completions helper's state, with every argument text and a structured-output
content read once.

The SDK's ``ChatCompletionStreamState`` rebuilds the whole message snapshot for every chunk
(``model_dump``, ``accumulate_delta``, ``construct_type``) and, for ``strict`` function tools and a
``response_format`` model, re-parses the whole arguments / content text with jiter's partial mode.
:class:`AcceleratedChatCompletionStreamState` keeps the SDK's snapshot classes, events and order,
and changes how they are made:

* every chunk goes to a :class:`~tooljson.TurnReader` first, which parses each call's arguments
  once, as they arrive; a structured-output content is parsed once by a :class:`~tooljson.Parser`;
* a chunk that only adds text (content, refusal, or arguments of calls already begun: the bulk of a
  long stream) is added to the snapshot in place; any other chunk is merged by the SDK's own
  ``accumulate_delta`` as the SDK merges it;
* ``parsed_arguments`` (strict tools) and ``parsed`` (a ``response_format`` model) while they stream
  are tooljson's preview, the value under construction itself (see :func:`tooljson.accelerate`);
  at a call's ``tool_calls.function.arguments.done`` the value is the strict parse (a
  ``pydantic_function_tool`` is validated by pydantic from the text, as the SDK does);
* arguments that do not parse leave the stream going: the delta events keep showing the last
  preview, ``parsed_arguments`` is ``None`` at ``.done`` and in the final completion, the reader's
  verdict says why and one warning on the ``"tooljson"`` logger names the call.

The SDK's deliberate errors are raised where the SDK raises them: ``LengthFinishReasonError`` and
``ContentFilterFinishReasonError`` at a ``finish_reason`` of ``length`` / ``content_filter`` when the
request had parseable input, and by ``get_final_completion()`` for such a choice.
"""

from __future__ import annotations

from typing import Any, cast

from openai._compat import model_dump, model_parse_json
from openai._exceptions import ContentFilterFinishReasonError, LengthFinishReasonError
from openai._models import build, construct_type
from openai.lib._parsing._completions import (
    get_input_tool_by_name,
    has_parseable_input,
    has_rich_response_format,
    parse_chat_completion,
)
from openai.lib._tools import PydanticFunctionTool
from openai.lib.streaming._deltas import accumulate_delta
from openai.lib.streaming.chat import _completions as sdk_chat
from openai.lib.streaming.chat._events import (
    ChunkEvent,
    ContentDeltaEvent,
    FunctionToolCallArgumentsDeltaEvent,
    FunctionToolCallArgumentsDoneEvent,
    LogprobsContentDeltaEvent,
    LogprobsRefusalDeltaEvent,
    RefusalDeltaEvent,
)
from openai.lib.streaming.chat._types import ParsedChatCompletionMessageSnapshot, ParsedChoiceSnapshot
from openai.types.chat.chat_completion import ChoiceLogprobs, Moderation

from tooljson.acceleration.models import model_maker
from tooljson.acceleration.reporting import UnparsedReport
from tooljson.calls import ToolBlock
from tooljson.parser import Parser
from tooljson.turn import TurnReader

__all__ = ["AcceleratedChatCompletionStreamState"]

_chunk_event = model_maker(ChunkEvent, build, ("chunk", None, None))
_content_delta = model_maker(ContentDeltaEvent, build, ("content.delta", "a", "ab", {"a": 1}))
_refusal_delta = model_maker(RefusalDeltaEvent, build, ("refusal.delta", "a", "ab"))
_arguments_delta = model_maker(
    FunctionToolCallArgumentsDeltaEvent,
    build,
    ("tool_calls.function.arguments.delta", "f", 0, '{"a', {}, '"a'),
)

# What a chunk's delta may set for it to be added in place: text only, or nothing at all.
_TEXT_FIELDS = frozenset({"content", "refusal", "tool_calls"})
_PIECE_FIELDS = frozenset({"index", "function"})
_FUNCTION_FIELDS = frozenset({"arguments"})


def _only_text(model: Any, allowed: frozenset[str]) -> bool:
    return not model.__pydantic_extra__ and model.__pydantic_fields_set__ <= allowed


class _ChoiceEvents(sdk_chat.ChoiceEventState):
    """The SDK's per-choice bookkeeping of ``.done`` events, with a call's parsed arguments taken
    from the reader instead of parsed again."""

    def __init__(self, state: AcceleratedChatCompletionStreamState, choice: int) -> None:
        super().__init__(input_tools=state._input_tools)  # noqa: SLF001 - the SDK state's own
        self._owner = state
        self._choice = choice

    def _add_tool_done_event(
        self, *, events_to_fire: list[Any], choice_snapshot: Any, tool_index: int
    ) -> None:
        if tool_index in self._done_tool_calls:
            return
        self._done_tool_calls.add(tool_index)
        assert choice_snapshot.message.tool_calls is not None
        tool_call = choice_snapshot.message.tool_calls[tool_index]
        if tool_call.type != "function":
            return
        function = tool_call.function
        parsed = self._owner.parsed_arguments(self._choice, tool_index, function)
        function.parsed_arguments = parsed
        events_to_fire.append(
            build(
                FunctionToolCallArgumentsDoneEvent,
                type="tool_calls.function.arguments.done",
                index=tool_index,
                name=function.name,
                arguments=function.arguments,
                parsed_arguments=parsed,
            )
        )


class AcceleratedChatCompletionStreamState(sdk_chat.ChatCompletionStreamState[Any]):
    """``ChatCompletionStreamState`` with each argument text and a structured-output content parsed
    once (see the module's docstring). ``reader`` is the :class:`~tooljson.TurnReader` every chunk
    goes to; ``content_parser`` makes the parser of one choice's structured-output content."""

    def __init__(
        self, *, input_tools: Any, response_format: Any, reader: TurnReader, content_parser: Any
    ) -> None:
        super().__init__(input_tools=input_tools, response_format=response_format)
        self.reader = reader
        self._snapshot: Any = None
        self._choice_events: list[_ChoiceEvents] = []
        # The reader's calls by (choice, index), and how much of its list of calls is mapped.
        self._blocks: dict[Any, ToolBlock] = {}
        self._mapped: tuple[list[ToolBlock], int] = ([], 0)
        self._content_parser = content_parser
        self._content: dict[int, Parser] = {}
        # Choices whose content turned malformed: no more fragments go to their parser.
        self._broken: set[int] = set()
        self._parseable = has_parseable_input(response_format=response_format, input_tools=self._input_tools)
        self._rich = has_rich_response_format(response_format)
        # Per tool name: whether the SDK shows parsed_arguments while it streams (strict tools).
        self._previewed: dict[str, bool] = {}
        self._report = UnparsedReport(
            reader,
            "arguments of %s tool call %r (id %s, choice and index %s) are %s; the stream goes on and "
            "parsed_arguments is None",
        )

    # --- what the stream reads

    @property
    def current_completion_snapshot(self) -> Any:
        assert self._snapshot is not None
        return self._snapshot

    def get_final_completion(self) -> Any:
        """The SDK's final completion (the same checks and classes), each function call's
        ``parsed_arguments`` as the ``.done`` event gave it."""
        snapshot = self.current_completion_snapshot
        # Parsing the arguments is done: the SDK's function is given no tools, so it reads none again.
        final = parse_chat_completion(
            chat_completion=snapshot, response_format=self._rich_response_format, input_tools=[]
        )
        for choice, choice_snapshot in zip(final.choices, snapshot.choices):
            for position, tool_call in enumerate(choice.message.tool_calls or ()):
                if tool_call.type == "function":
                    tool_call.function.parsed_arguments = self.parsed_arguments(
                        choice_snapshot.index, position, tool_call.function
                    )
        return final

    def parsed_arguments(self, choice: int, index: int, function: Any) -> Any:
        """A finished call's ``parsed_arguments`` as the SDK's helper gives them: the value for a
        strict tool, the pydantic model for a ``pydantic_function_tool``, ``None`` for other tools
        and for arguments that did not parse."""
        tool = get_input_tool_by_name(input_tools=self._input_tools, name=function.name)
        if not tool:
            return None
        definition = cast(Any, tool.get("function"))
        pydantic_tool = isinstance(definition, PydanticFunctionTool)
        if not pydantic_tool and not definition.get("strict"):
            return None
        block = self._blocks.get((choice, index))
        call = block.call if block is not None else None
        if call is not None:
            if not call.ok:
                return None
            value = call.input
        elif block is not None and self.reader.accumulator.status(block.index).state == "complete":
            value = self.reader.accumulator.preview(block.index)
        else:
            return None
        if pydantic_tool:
            return model_parse_json(definition.model, function.arguments)
        return value

    # --- one chunk

    def handle_chunk(self, chunk: Any) -> list[Any]:
        calls = self.reader.feed(chunk)
        blocks = self.reader.accumulator.blocks
        mapped, count = self._mapped
        if blocks is not mapped or len(blocks) != count:
            if blocks is not mapped:
                # A chunk with another id began a new response: its calls start afresh.
                self._blocks.clear()
                count = 0
            for block in blocks[count:]:
                self._blocks[block.key] = block
            self._mapped = (blocks, len(blocks))
        if calls:
            self._report.report(calls)
        self._snapshot = self._accumulate_chunk(chunk)
        return self._build_events(chunk=chunk, completion_snapshot=self._snapshot)

    def _get_choice_state(self, choice: Any) -> Any:
        # As the SDK's: one state per choice, in the order the choices first came.
        try:
            return self._choice_events[choice.index]
        except IndexError:
            events = _ChoiceEvents(self, choice.index)
            self._choice_events.append(events)
            return events

    def _feed_content(self, choice: int, piece: Any) -> None:
        if not self._rich or not isinstance(piece, str) or not piece or choice in self._broken:
            return
        parser = self._content.get(choice)
        if parser is None:
            parser = self._content[choice] = self._content_parser()
        try:
            parser.feed(piece)
        except ValueError:
            # The preview stays as it was; content.done and the final completion are pydantic's.
            self._broken.add(choice)

    def _content_preview(self, choice: int) -> Any:
        parser = self._content.get(choice)
        return parser.preview() if parser is not None else None

    def _accumulate_chunk(self, chunk: Any) -> Any:
        snapshot = self._snapshot
        if snapshot is None:
            # The SDK makes the first snapshot from the first chunk and nothing more.
            for choice in chunk.choices:
                self._feed_content(choice.index, choice.delta.content)
            return sdk_chat._convert_initial_chunk_into_snapshot(chunk)  # noqa: SLF001 - the SDK's own first step
        for choice in chunk.choices:
            delta = choice.delta
            self._feed_content(choice.index, delta.content)
            try:
                choice_snapshot = snapshot.choices[choice.index]
            except IndexError:
                choice_snapshot = cast(
                    ParsedChoiceSnapshot,
                    construct_type(
                        type_=ParsedChoiceSnapshot,
                        value={
                            **choice.model_dump(exclude_unset=True, exclude={"delta"}),
                            "message": accumulate_delta({}, cast("dict[object, object]", delta.to_dict())),
                        },
                    ),
                )
                snapshot.choices.append(choice_snapshot)
            else:
                if not self._add_text(choice_snapshot.message, delta):
                    self._merge(choice_snapshot, delta)
            message = choice_snapshot.message
            if choice.finish_reason:
                choice_snapshot.finish_reason = choice.finish_reason
                if self._parseable:
                    if choice.finish_reason == "length":
                        raise LengthFinishReasonError(completion=snapshot)
                    if choice.finish_reason == "content_filter":
                        raise ContentFilterFinishReasonError(completion=snapshot)
            if self._rich:
                content = message.content
                shown = content and not message.refusal and content.lstrip()
                message.parsed = self._content_preview(choice.index) if shown else None
            for piece in delta.tool_calls or ():
                tool_call = (message.tool_calls or [])[piece.index]
                if (
                    tool_call.type == "function"
                    and tool_call.function.arguments
                    and self._shows(tool_call.function.name)
                ):
                    block = self._blocks.get((choice.index, piece.index))
                    if block is not None:
                        tool_call.function.parsed_arguments = self._arguments_preview(block)
            if choice.logprobs is not None:
                self._add_logprobs(choice_snapshot, choice.logprobs)
        snapshot.usage = chunk.usage
        snapshot.system_fingerprint = chunk.system_fingerprint
        if chunk.moderation is not None:
            snapshot.moderation = cast(
                Moderation, construct_type(type_=Moderation, value=chunk.moderation.to_dict())
            )
        return snapshot

    def _shows(self, name: str) -> bool:
        shows = self._previewed.get(name)
        if shows is None:
            tool = get_input_tool_by_name(input_tools=self._input_tools, name=name)
            shows = self._previewed[name] = bool(tool and cast(Any, tool.get("function", {})).get("strict"))
        return shows

    def _arguments_preview(self, block: ToolBlock) -> Any:
        # Arguments that turned malformed keep showing their last preview while they stream (a shown
        # key never goes away); the .done event says None.
        call = block.call
        if call is not None:
            return call.input if call.ok else call.preview
        return self.reader.accumulator.preview(block.index)

    @staticmethod
    def _add_text(message: Any, delta: Any) -> bool:
        """Add a delta that only brings text to the message in place; ``False`` for any other delta."""
        if not _only_text(delta, _TEXT_FIELDS):
            return False
        content, refusal = delta.content, delta.refusal
        if not isinstance(content, (str, type(None))) or not isinstance(refusal, (str, type(None))):
            return False
        pieces = delta.tool_calls
        if pieces:
            calls = message.tool_calls
            if calls is None:
                return False
            for piece in pieces:
                function = piece.function
                index = piece.index
                if (
                    not _only_text(piece, _PIECE_FIELDS)
                    or not isinstance(index, int)
                    or not 0 <= index < len(calls)
                    or calls[index].type != "function"
                    or (function is not None and not _only_text(function, _FUNCTION_FIELDS))
                    or (function is not None and not isinstance(function.arguments, (str, type(None))))
                ):
                    return False
            for piece in pieces:
                fragment = piece.function.arguments if piece.function is not None else None
                if fragment is not None:
                    target = calls[piece.index].function
                    target.arguments += fragment
        if content is not None:
            message.content = content if message.content is None else message.content + content
        if refusal is not None:
            message.refusal = refusal if message.refusal is None else message.refusal + refusal
        return True

    @staticmethod
    def _merge(choice_snapshot: Any, delta: Any) -> None:
        """Merge any other delta as the SDK does: the message as a dict, ``accumulate_delta``, a new
        message; the parsed values (not in the dict) are carried over."""
        message = choice_snapshot.message
        previous = message.tool_calls or []
        merged = accumulate_delta(
            cast(
                "dict[object, object]",
                model_dump(
                    message,
                    exclude={
                        "parsed": True,
                        "tool_calls": {
                            n: {"function": {"parsed_arguments": True}} for n in range(len(previous))
                        },
                    },
                ),
            ),
            cast("dict[object, object]", delta.to_dict()),
        )
        choice_snapshot.message = construct_type(type_=ParsedChatCompletionMessageSnapshot, value=merged)
        for position, before in enumerate(previous):
            if before.type == "function":
                choice_snapshot.message.tool_calls[
                    position
                ].function.parsed_arguments = before.function.parsed_arguments

    @staticmethod
    def _add_logprobs(choice_snapshot: Any, logprobs: Any) -> None:
        kept = choice_snapshot.logprobs
        if kept is None:
            choice_snapshot.logprobs = build(
                ChoiceLogprobs, content=logprobs.content, refusal=logprobs.refusal
            )
            return
        if logprobs.content:
            if kept.content is None:
                kept.content = []
            kept.content.extend(logprobs.content)
        if logprobs.refusal:
            if kept.refusal is None:
                kept.refusal = []
            kept.refusal.extend(logprobs.refusal)

    def _build_events(self, *, chunk: Any, completion_snapshot: Any) -> list[Any]:
        events: list[Any] = [_chunk_event("chunk", chunk, completion_snapshot)]
        for choice in chunk.choices:
            choice_events = self._get_choice_state(choice)
            choice_snapshot = completion_snapshot.choices[choice.index]
            delta = choice.delta
            message = choice_snapshot.message
            if delta.content is not None and message.content is not None:
                events.append(_content_delta("content.delta", delta.content, message.content, message.parsed))
            if delta.refusal is not None and message.refusal is not None:
                events.append(_refusal_delta("refusal.delta", delta.refusal, message.refusal))
            if delta.tool_calls:
                tool_calls = message.tool_calls
                assert tool_calls is not None
                for piece in delta.tool_calls:
                    tool_call = tool_calls[piece.index]
                    if tool_call.type == "function":
                        assert piece.function is not None
                        function = tool_call.function
                        events.append(
                            _arguments_delta(
                                "tool_calls.function.arguments.delta",
                                function.name,
                                piece.index,
                                function.arguments,
                                function.parsed_arguments,
                                piece.function.arguments or "",
                            )
                        )
            logprobs, kept = choice.logprobs, choice_snapshot.logprobs
            if logprobs is not None and kept is not None:
                if logprobs.content and kept.content:
                    events.append(
                        build(
                            LogprobsContentDeltaEvent,
                            type="logprobs.content.delta",
                            content=logprobs.content,
                            snapshot=kept.content,
                        )
                    )
                if logprobs.refusal and kept.refusal:
                    events.append(
                        build(
                            LogprobsRefusalDeltaEvent,
                            type="logprobs.refusal.delta",
                            refusal=logprobs.refusal,
                            snapshot=kept.refusal,
                        )
                    )
            events.extend(
                choice_events.get_done_events(
                    choice_chunk=choice,
                    choice_snapshot=choice_snapshot,
                    response_format=self._response_format,
                )
            )
        return events
