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
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooljson.providers import begins_response, event_field
from tooljson.providers.adapter import Adapter, CallOperations

if TYPE_CHECKING:
    from tooljson.calls import ToolBlock, ToolCall

__all__ = ["ChatAdapter"]


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
        return begins_response(event, self.response_id)

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
            block = self.calls.begin_call("openai", key, call_id, name, event_field(piece, "type") or "function")
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
