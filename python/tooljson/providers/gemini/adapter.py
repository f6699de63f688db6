"""Gemini chunks to calls: :class:`GeminiAdapter`, the Gemini source's adapter (see :mod:`tooljson.providers.gemini`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooljson.errors import MalformedEvent
from tooljson.providers.adapter import Adapter, CallOperations
from tooljson.providers.gemini.arguments_text import BOOLEAN, NULL, NUMBER, STRING, ArgumentsText
from tooljson.providers.gemini.chunk_check import check
from tooljson.providers.gemini.chunks import CallSequence, chunk_field, continuation, finish_word
from tooljson.providers.gemini.json_path import ArgumentsError

if TYPE_CHECKING:
    from tooljson.calls import ToolBlock, ToolCall

__all__ = ["GeminiAdapter"]


_VALUES = (
    ("stringValue", "string_value", STRING),
    ("numberValue", "number_value", NUMBER),
    ("boolValue", "bool_value", BOOLEAN),
    ("nullValue", "null_value", NULL),
)


def _piece(entry: Any) -> tuple[str, str | None, Any, bool]:
    """A ``partialArgs`` entry as ``(jsonPath, value kind, value, willContinue)``."""
    if type(entry) is dict:
        path = entry.get("jsonPath")
        will_continue = entry.get("willContinue")
        found = [(kind, entry[camel]) for camel, _, kind in _VALUES if entry.get(camel) is not None]
    else:
        path = getattr(entry, "json_path", None)
        will_continue = getattr(entry, "will_continue", None)
        found = [
            (kind, value) for _, snake, kind in _VALUES if (value := getattr(entry, snake, None)) is not None
        ]
    if not isinstance(path, str):
        raise ArgumentsError(f"jsonPath must be a string, not {type(path).__name__}", repr(path))
    if will_continue is not None and not isinstance(will_continue, bool):
        raise ArgumentsError(f"willContinue must be a boolean, not {type(will_continue).__name__}", path)
    if len(found) > 1:
        raise ArgumentsError(f"one value per piece, not {' and '.join(kind for kind, _ in found)}", path)
    kind, value = found[0] if found else (None, None)
    return path, kind, value, bool(will_continue)


class GeminiAdapter(Adapter):
    """Gemini chunks, read for one accumulator; keeps this response's id, each candidate's calls,
    their argument writers and each candidate's ``finishReason``."""

    provider = "gemini"

    def __init__(self, calls: CallOperations) -> None:
        super().__init__(calls)
        # The responseId of the response being read (a chunk with another one begins the next).
        self.response_id: str | None = None
        self._sequences: dict[int, CallSequence] = {}
        self._writers: dict[tuple[int, int], ArgumentsText] = {}
        self._candidate_calls: dict[int, list[ToolBlock]] = {}
        self._stop_reasons: dict[int, str] = {}
        # The calls whose id was minted, until the model gives one.
        self._minted: set[tuple[int, int]] = set()

    def reset(self) -> None:
        self.response_id = None
        self._sequences.clear()
        self._writers.clear()
        self._candidate_calls.clear()
        self._stop_reasons.clear()
        self._minted.clear()

    def begins_response(self, event: Any) -> bool:
        response_id = chunk_field(event, "responseId", "response_id")
        return bool(response_id) and self.response_id is not None and response_id != self.response_id

    def stop_reason_for(self, call: ToolCall | ToolBlock) -> str | None:
        """The ``finishReason`` of the call's own candidate."""
        return self._stop_reasons.get(call.key[0])

    def feed(self, event: Any) -> list[ToolCall]:
        """Apply one chunk; return the calls it ended."""
        try:
            if self._continued(event):
                return []
            return self._chunk(event)
        except MalformedEvent:
            raise
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            problem = check(event) if isinstance(event, dict) else None
            raise MalformedEvent(
                problem or f"a Gemini chunk that cannot be read: {type(error).__name__}: {error}"
            ) from error

    def _continued(self, event: Any) -> bool:
        """The next pieces of the call streaming in a candidate (:func:`_continuation`): applied
        here, or ``False`` for a chunk the general path reads."""
        bulk = continuation(event)
        if bulk is None:
            return False
        response_id, number, pieces = bulk
        sequence = self._sequences.get(number)
        if (response_id and response_id != self.response_id) or sequence is None or sequence.open is None:
            return False
        key = (number, sequence.open)
        block = self.calls.open_call(key)
        writer = self._writers.get(key)
        if block is None or writer is None:
            return False
        text = self._pieces(event, number, block, writer, None, pieces, "")
        if text:
            self.calls.add_fragment(block, text)
        return True

    def _chunk(self, event: Any) -> list[ToolCall]:
        if type(event) is dict:
            # A dict can hold anything: its shape is checked before any of it is taken.
            problem = check(event)
            if problem is not None:
                raise MalformedEvent(problem)
        response_id = chunk_field(event, "responseId", "response_id")
        if response_id and response_id != self.response_id:
            if self.response_id is not None:
                self.calls.new_response()
            self.response_id = response_id
        candidates = chunk_field(event, "candidates", "candidates")
        if not candidates:
            return []
        ended: list[ToolCall] = []
        for candidate in candidates:
            number = chunk_field(candidate, "index", "index") or 0
            content = chunk_field(candidate, "content", "content")
            parts = chunk_field(content, "parts", "parts") if content is not None else None
            if parts:
                for part in parts:
                    function_call = chunk_field(part, "functionCall", "function_call")
                    if function_call is not None:
                        ended += self._function_call(number, function_call)
            reason = chunk_field(candidate, "finishReason", "finish_reason")
            if reason is not None:
                ended += self._finish(number, finish_word(reason))
        return ended

    def _finish(self, number: int, reason: str) -> list[ToolCall]:
        """Candidate ``number`` finished: its calls still open end where they stand."""
        self._stop_reasons[number] = reason
        sequence = self._sequences.get(number)
        if sequence is not None:
            sequence.open = None
        for key in [key for key in self._writers if key[0] == number]:
            del self._writers[key]
        return self.calls.stop_response(reason, blocks=self._candidate_calls.get(number, []))

    def _function_call(self, number: int, function_call: Any) -> list[ToolCall]:
        name = chunk_field(function_call, "name", "name")
        call_id = chunk_field(function_call, "id", "id")
        will_continue = chunk_field(function_call, "willContinue", "will_continue")
        args = chunk_field(function_call, "args", "args")
        pieces = chunk_field(function_call, "partialArgs", "partial_args")
        sequence = self._sequences.get(number)
        if sequence is None:
            sequence = self._sequences[number] = CallSequence()
        step = sequence.part(name, call_id, bool(will_continue))
        if step is None:
            if args is not None or pieces:
                given = "partialArgs" if pieces else "args"
                raise MalformedEvent(
                    f"candidate {number}: a functionCall with {given} for a call that was never opened "
                    "(it has no name, and no call of this candidate is streaming)"
                )
            self.calls.warnings.append(
                f"candidate {number}: an empty functionCall while no call is open: ignored"
            )
            return []
        ordinal, begins, ends, replaced = step
        ended: list[ToolCall] = []
        if replaced is not None:
            self.calls.warnings.append(
                f"candidate {number}: call {name!r} began while call {replaced} was still streaming: that one ends where it stands"
            )
            ended += self._end((number, replaced), "", whole=False)
        key = (number, ordinal)
        if begins:
            block = self.calls.begin_call("gemini", key, call_id or self._mint(key), name, "functionCall")
            if not call_id:
                self._minted.add(key)
            self._candidate_calls.setdefault(number, []).append(block)
            writer = self._writers[key] = ArgumentsText()
            text = writer.begin()
        else:
            open_block = self.calls.open_call(key)
            if open_block is None:
                return ended
            block = open_block
            writer = self._writers[key]
            if call_id and key in self._minted:
                block.id = call_id
                self._minted.discard(key)
            text = ""
        text = self._pieces(function_call, number, block, writer, args, pieces, text)
        if ends:
            ended += self._end(key, text)
        elif text:
            self.calls.add_fragment(block, text)
        return ended

    def _pieces(
        self,
        event: Any,
        number: int,
        block: ToolBlock,
        writer: ArgumentsText,
        args: Any,
        pieces: Any,
        text: str,
    ) -> str:
        """``text`` followed by the fragments of a part's ``args`` and ``partialArgs``. A piece that
        cannot be taken raises :class:`MalformedEvent`; the text of those before it is fed first."""
        try:
            if args is not None:
                text += writer.whole(args)
            if pieces:
                for entry in pieces:
                    text += writer.piece(*_piece(entry))
        except ArgumentsError as error:
            if text:
                self.calls.add_fragment(block, text)
            # A wire dict of the wrong types is named by the recording check (the general path runs
            # it first; the bulk's path only when a piece failed).
            problem = check(event) if type(event) is dict and "candidates" in event else None
            raise MalformedEvent(
                problem or f"candidate {number}, call {block.name!r} ({block.id}): {error}"
            ) from error
        return text

    def _end(self, key: tuple[int, int], text: str, *, whole: bool = True) -> list[ToolCall]:
        """The call under ``key`` ends after ``text``: ``whole``, its writer closes what is open;
        otherwise (a call replaced by another) it ends where it stands."""
        writer = self._writers.pop(key, None)
        block = self.calls.open_call(key)
        if block is None:
            return []
        if whole and writer is not None:
            text += writer.end()
        if text:
            self.calls.add_fragment(block, text)
        call = self.calls.end_call(key)
        return [] if call is None else [call]

    def _mint(self, key: tuple[int, int]) -> str:
        """An id for a call the model gave none: stable, unique within the response."""
        prefix = f"gemini-{self.response_id}" if self.response_id else "gemini"
        return f"{prefix}-{key[0]}-{key[1]}"
