"""OpenAI Chat Completions chunks (``chat.completions.create(..., stream=True)``) to calls.

A chunk holds ``choices``; each choice's ``delta.tool_calls`` lists pieces of tool calls, each with
the call's ``index`` within that choice. A call's first piece carries its ``id``, ``type`` and
``function.name`` (and usually ``function.arguments == ""``); later pieces only more
``function.arguments`` text. A call is identified by ``(choice index, tool-call index)``, so with
``n > 1`` the calls of different choices never mix, even when their chunks interleave.

There is no per-call end event: a call ends when its choice's ``finish_reason`` arrives, which is
also the stop reason that decides its verdict (``"length"``: cut off at the token limit). Ending a
call only then, rather than when the next call of the choice starts, keeps a server that
interleaves the fragments of parallel calls from having a call parsed before its text is whole.

Servers that speak this API differ: some send a call's whole arguments in its first piece, some
none at all (the input is then ``{}``), some repeat ``id`` and ``name`` in every piece (they are
kept from the first piece that has them), and some leave out ``index``: such a piece continues the
choice's latest call unless it brings an ``id`` of its own, which starts a new call. The deprecated
``delta.function_call`` (the functions API before tools) is not read.

Every chunk of a response carries the same ``id``: a chunk with another non-empty id begins a new
response, as ``message_start`` does for the Messages API.

Everything else tooljson knows of Chat Completions is here too: its content (one assistant message
per choice), its tool results (``role: "tool"`` messages, which have no error flag: the text alone
says it), the check of a recorded chunk, and how the openai SDK reports a broken stream. Chunks of
other libraries in this shape (LiteLLM's ``ModelResponseStream``) read the same way.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from tooljson.providers import event_field
from tooljson.providers.adapter import Adapter, CallOperations
from tooljson.providers.content import ContentAssembler, error_event, plain
from tooljson.providers.field_checks import check, fields
from tooljson.providers.source import Source

if TYPE_CHECKING:
    from tooljson.calls import ToolBlock, ToolCall

__all__ = ["SOURCE", "ChatAdapter", "ChatAssembler", "answer", "check_event", "describe_error", "recognise"]


def recognise(event: Any) -> bool:
    """Whether ``event`` is a Chat Completions chunk: it has ``choices`` (or is the ``{"error": ...}``
    line a failed stream ends with)."""
    if isinstance(event, dict):
        return (
            "choices" in event
            or event.get("object") == "chat.completion.chunk"
            or (len(event) == 1 and "error" in event)
        )
    fields_of = getattr(event, "__dict__", None)
    return isinstance(fields_of, dict) and fields_of.get("choices") is not None


class ChatAdapter(Adapter):
    """Chat Completions chunks, read for one accumulator; keeps this response's chunk id, the calls
    of each choice and each choice's ``finish_reason``."""

    provider = "openai"

    def __init__(self, calls: CallOperations) -> None:
        super().__init__(calls)
        # The chunk id of the response being read (a chunk with another one begins the next).
        self.response_id: str | None = None
        self._choice_calls: dict[int, list[ToolBlock]] = {}
        self._choice_stop_reasons: dict[Any, str] = {}
        # Per choice, the index after the highest one a call has used (for pieces without one).
        self._next_index: dict[int, int] = {}

    def reset(self) -> None:
        self.response_id = None
        self._choice_calls.clear()
        self._choice_stop_reasons.clear()
        self._next_index.clear()

    def begins_response(self, event: Any) -> bool:
        """A chunk with another (non-empty) id than the response being read: Chat Completions has no
        opening event."""
        chunk_id = event_field(event, "id")
        return bool(chunk_id) and self.response_id is not None and chunk_id != self.response_id

    def stop_reason_for(self, call: ToolCall | ToolBlock) -> str | None:
        """The ``finish_reason`` of the call's own choice."""
        return self._choice_stop_reasons.get(call.key[0])

    def feed(self, event: Any) -> list[ToolCall]:
        """Apply one chunk; return the calls whose choice it finished."""
        chunk_id = event_field(event, "id")
        if chunk_id and chunk_id != self.response_id:
            if self.response_id is not None:
                self.calls.new_response()
            self.response_id = chunk_id
        choices = event_field(event, "choices")
        if not choices:
            # The usage chunk of stream_options={"include_usage": True}, or a filter-results chunk.
            return []
        if len(choices) == 1 and self._continued(choices[0]):
            return []
        finished: list[ToolCall] = []
        for choice in choices:
            number = event_field(choice, "index") or 0
            delta = event_field(choice, "delta")
            pieces = event_field(delta, "tool_calls") if delta is not None else None
            if pieces:
                for piece in pieces:
                    self._piece(number, piece)
            reason = event_field(choice, "finish_reason")
            if reason is not None:
                self._choice_stop_reasons[number] = reason
                finished += self.calls.stop_response(reason, blocks=self._calls_of(number))
        return finished

    def _calls_of(self, choice: int) -> list[ToolBlock]:
        """The calls begun in ``choice`` of the response being read, in order."""
        return self._choice_calls.setdefault(choice, [])

    def _continued(self, choice: Any) -> bool:
        """The bulk of a long call: one more ``arguments`` fragment of an open call and nothing else.
        Applies it and says so, or says it is not that kind of chunk (read by the general path)."""
        if isinstance(choice, dict):
            delta = choice.get("delta")
            pieces = delta.get("tool_calls") if isinstance(delta, dict) else None
            if not pieces or len(pieces) != 1 or choice.get("finish_reason") is not None:
                return False
            piece = pieces[0]
            if not isinstance(piece, dict) or piece.get("id"):
                return False
            block = self.calls.open_call((choice.get("index") or 0, piece.get("index")))
            function = piece.get("function")
            fragment = function.get("arguments") if isinstance(function, dict) else None
        else:
            delta = getattr(choice, "delta", None)
            pieces = getattr(delta, "tool_calls", None)
            if not pieces or len(pieces) != 1 or getattr(choice, "finish_reason", None) is not None:
                return False
            piece = pieces[0]
            if getattr(piece, "id", None):
                return False
            block = self.calls.open_call((getattr(choice, "index", None) or 0, getattr(piece, "index", None)))
            fragment = getattr(getattr(piece, "function", None), "arguments", None)
        if block is None or block.free_text is not None:
            return False
        if fragment:
            self.calls.add_fragment(block, fragment)
        return True

    def _piece(self, choice: int, piece: Any) -> None:
        call_id = event_field(piece, "id")
        function = event_field(piece, "function")
        name = event_field(function, "name") if function is not None else None
        arguments = event_field(function, "arguments") if function is not None else None
        index = event_field(piece, "index")
        if index is None:
            index = self._unindexed(choice, call_id)
        key = (choice, index)
        block = self.calls.open_call(key)
        if block is None:
            block = self.calls.begin_call(
                self.provider, key, call_id, name, event_field(piece, "type") or "function"
            )
            self._calls_of(choice).append(block)
            if isinstance(index, int):
                self._next_index[choice] = max(self._next_index.get(choice, 0), index + 1)
        else:
            _fill_identity(block, call_id, name)
        if arguments:
            self.calls.add_fragment(block, arguments)

    def _unindexed(self, choice: int, call_id: Any) -> Any:
        """The index of a piece sent without one: the choice's latest call, or, for a piece that
        brings a new id, the one after the highest index the choice has used."""
        mine = self._calls_of(choice)
        if mine and (not call_id or call_id == mine[-1].id):
            return mine[-1].key[1]
        return self._next_index.get(choice, 0)


def _fill_identity(block: ToolBlock, call_id: Any, name: Any) -> None:
    # Some servers send the id or the name only in a later piece of the call.
    if call_id and not block.id:
        block.id = call_id
    if name and not block.name:
        block.name = name


class ChatAssembler(ContentAssembler):
    """Chat Completions chunks: ``delta.content`` per choice; ends when every choice finished."""

    def __init__(self, warnings: list[str] | None = None) -> None:
        super().__init__(warnings)
        self._finished: dict[int, str] = {}

    def feed(self, chunk: Any) -> None:
        # Only a recording holds the error line as an event (the client raises it instead).
        error = chunk.get("error") if isinstance(chunk, dict) else None
        if error is not None:
            self.error = error_event(event_field(error, "type"), event_field(error, "message"))
            return
        usage = event_field(chunk, "usage")
        if usage is not None:
            self.usage = dict(plain(usage))
        for choice in event_field(chunk, "choices") or ():
            number = event_field(choice, "index") or 0
            delta = event_field(choice, "delta")
            if delta is not None:
                self._piece(number, event_field(delta, "content"))
            self._text.setdefault(number, [])
            reason = event_field(choice, "finish_reason")
            if reason is not None:
                self._finished[number] = reason
        # Ended when every choice seen has finished (counted, not scanned: a chunk costs the same late).
        self.stopped = bool(self._text) and len(self._finished) == len(self._text)

    @property
    def content(self) -> list[dict[str, Any]]:
        messages = []
        for number in sorted(self._text):
            text = self._joined(number)
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            calls = sorted((key[1], call) for key, call in self._calls.items() if key[0] == number)
            if calls:
                message["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.raw_json},
                    }
                    for _, call in calls
                ]
            messages.append(message)
        return messages


def check_event(event: dict[str, Any]) -> str | None:
    """What is wrong with a recorded Chat Completions chunk (``None``: nothing)."""
    problem = fields(event, "chunk", id=(str,), choices=(list,), usage=(dict,), error=(dict,))
    if problem is not None:
        return problem
    for number, choice in enumerate(event.get("choices") or ()):
        where = f"chunk.choices[{number}]"
        problem = check(choice, where, (dict,), optional=False) or fields(
            choice, where, index=(int,), delta=(dict,), finish_reason=(str,)
        )
        if problem is not None:
            return problem
        delta = choice.get("delta") or {}
        problem = fields(delta, f"{where}.delta", content=(str,), tool_calls=(list,))
        if problem is not None:
            return problem
        for position, piece in enumerate(delta.get("tool_calls") or ()):
            at = f"{where}.delta.tool_calls[{position}]"
            problem = check(piece, at, (dict,), optional=False) or fields(
                piece, at, index=(int,), id=(str,), type=(str,), function=(dict,)
            )
            if problem is None:
                problem = fields(piece.get("function") or {}, f"{at}.function", name=(str,), arguments=(str,))
            if problem is not None:
                return problem
    return None


def answer(call: ToolCall, content: Any, is_error: bool, value: Any) -> dict[str, Any]:
    """A ``role: "tool"`` message (no error flag: the text says it)."""
    return {"role": "tool", "tool_call_id": call.id, "content": content}


def stop_reason_of(chunk: Any) -> str | None:
    """The ``finish_reason`` of a chunk's first choice that has one."""
    for choice in event_field(chunk, "choices") or ():
        reason = event_field(choice, "finish_reason")
        if isinstance(reason, str):
            return reason
    return None


def describe_error(error: BaseException) -> str | None:
    """The openai SDK's error for an error the API sent (its ``body`` is the error object), in a line
    (``None`` for anything else, another SDK's error with a ``body`` too; openai is looked up only if
    it was imported, which it was if it raised)."""
    api_error = getattr(sys.modules.get("openai"), "APIError", None)
    if not isinstance(api_error, type) or not isinstance(error, api_error):
        return None
    body = getattr(error, "body", None)
    if isinstance(body, dict) and "message" in body and not isinstance(body.get("error"), dict):
        return f"{body.get('type') or 'error'}: {body.get('message')}"
    return None


SOURCE = Source(
    name="openai",
    title="OpenAI Chat Completions",
    recognise=recognise,
    marks=frozenset({"choices"}),
    adapter=ChatAdapter,
    assembler=ChatAssembler,
    cut_off=frozenset({"length"}),
    end_event="finish_reason",
    answer=answer,
    check=check_event,
    stream_paths=(r"/chat/completions$",),
    describe_error=describe_error,
    stop_reason_of=stop_reason_of,
    telemetry_name="openai",
    wire="tooljson.providers.chat.wire",
    streams="tooljson.providers.chat.streams",
    extra="providers",
    modules=("openai",),
    accelerated=True,
)
