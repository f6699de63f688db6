"""Gemini streams to calls: google-genai's ``generate_content_stream`` chunks, Gemini API and Vertex AI.

Each chunk (``GenerateContentResponse``, or the same chunk as the camelCase dict a ``data:`` line of
``:streamGenerateContent?alt=sse`` carries) holds ``candidates``, each with ``content.parts``; a
part with a ``functionCall`` is a call. A call is keyed by ``(candidate index, ordinal)``, the
ordinal counting the calls begun in that candidate since the response began, so the calls of
several candidates never mix.

* A whole call is one part, ``{name, id?, args}``: its input is ``args`` exactly (their JSON text
  is fed to the parser as one fragment).
* Streamed arguments (``stream_function_call_arguments``, Vertex AI, Gemini 3 models): the call
  opens with ``{name, willContinue: true}``; parts without a name then continue it with
  ``partialArgs`` (a JSON path and a value each), and the call ends with an empty ``functionCall``
  or with a part whose ``willContinue`` is absent or false. The pieces become JSON text
  fragments (:mod:`tooljson.providers.gemini.paths`), so previews, structural events, typed values
  and the strict parse are the parser's, as for every provider. While a call streams, a part
  continues it unless it names another function or carries another id: that begins a new call,
  and the one left open ends where it stands (a warning says so).

Where the model gave no ``id`` (the Gemini API usually gives none), one is minted:
``gemini-{responseId}-{candidate}-{ordinal}`` (``gemini-{candidate}-{ordinal}`` without a response
id), the same for the same stream, unique within the response; a real id arriving later in the
call replaces it. The minted id goes into the history (:attr:`GeminiAssembler.content`) and into
the call's ``functionResponse``, so the two always match.

A candidate's ``finishReason`` is the stop reason of its calls (the wire's word: the SDK's enum is
read as its value); calls still open then end where they stand. ``MAX_TOKENS`` with a call open
makes it ``truncated``; ``MALFORMED_FUNCTION_CALL`` and ``UNEXPECTED_TOOL_CALL`` come with no
valid call (``finishMessage``, the model's broken call text, is kept as
:attr:`GeminiAssembler.stop_message`). A chunk with another ``responseId`` begins a new response.

Bad input raises :class:`~tooljson.MalformedEvent` naming the candidate, the call and what is wrong
(a ``jsonPath`` that is not a singular RFC 9535 path, with the character; a path that goes back to
a value already given, skips an array element or clashes with what is there; a piece for a call
that was never opened; a value of the wrong type): the pieces before it in the chunk were taken and
the call's text stays a valid prefix.
"""

from __future__ import annotations

import base64
import sys
from typing import TYPE_CHECKING, Any

from tooljson.errors import MalformedEvent
from tooljson.providers.adapter import Adapter, CallOperations
from tooljson.providers.gemini.paths import BOOLEAN, NULL, NUMBER, STRING, ArgumentsError, ArgumentsText
from tooljson.providers.shapes import check as _check
from tooljson.providers.shapes import fields as _fields
from tooljson.providers.source import Source

if TYPE_CHECKING:
    from tooljson.calls import ToolBlock, ToolCall

__all__ = [
    "SOURCE",
    "GeminiAdapter",
    "GeminiAssembler",
    "answer",
    "check",
    "describe_error",
    "recognise",
]


def _field(obj: Any, camel: str, snake: str) -> Any:
    """A field of a chunk's part, from a wire dict (camelCase) or an SDK object (snake_case) alike."""
    if type(obj) is dict:
        return obj.get(camel)
    return getattr(obj, snake, None)


def _word(reason: Any) -> Any:
    """A ``finishReason`` as the wire's word (the SDK gives an enum whose value it is)."""
    return getattr(reason, "value", reason)


def recognise(event: Any) -> bool:
    """Whether ``event`` is a Gemini chunk: a dict with ``candidates`` or ``usageMetadata`` (and no
    ``choices``), or google-genai's ``GenerateContentResponse`` (told by its fields, not imported)."""
    if isinstance(event, dict):
        return ("candidates" in event or "usageMetadata" in event) and "choices" not in event
    fields = getattr(event, "__dict__", None)
    return isinstance(fields, dict) and "candidates" in fields and "model_version" in fields and "prompt_feedback" in fields


class _CallSequence:
    """Which call each ``functionCall`` part of one candidate belongs to, by the rule the module's
    docs state; the adapter and the assembler each keep one per candidate, so they agree."""

    __slots__ = ("count", "open", "name", "call_id")

    def __init__(self) -> None:
        self.count = 0
        # The ordinal of the call streaming in this candidate, with its name and id.
        self.open: int | None = None
        self.name: Any = None
        self.call_id: Any = None

    def part(self, name: Any, call_id: Any, will_continue: bool) -> tuple[int, bool, bool, int | None] | None:
        """``(ordinal, begins, ends, replaced)`` for the next part (``replaced``: the ordinal of a
        call left open that a new one replaces), or ``None`` for a part that names no call while
        none is open."""
        open_ordinal = self.open
        if open_ordinal is not None and not (name and name != self.name) and not (call_id and self.call_id and call_id != self.call_id):
            if call_id and not self.call_id:
                self.call_id = call_id
            if not will_continue:
                self.open = None
            return open_ordinal, False, not will_continue, None
        if not name:
            return None
        ordinal = self.count
        self.count += 1
        self.open = ordinal if will_continue else None
        self.name = name
        self.call_id = call_id
        return ordinal, True, not will_continue, open_ordinal


# A partialArgs entry's value fields, in the order they are looked for, with the kind each gives.
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
        found = [(kind, value) for _, snake, kind in _VALUES if (value := getattr(entry, snake, None)) is not None]
    if not isinstance(path, str):
        raise ArgumentsError(f"jsonPath must be a string, not {type(path).__name__}", repr(path))
    if will_continue is not None and not isinstance(will_continue, bool):
        raise ArgumentsError(f"willContinue must be a boolean, not {type(will_continue).__name__}", path)
    if len(found) > 1:
        raise ArgumentsError(f"one value per piece, not {' and '.join(kind for kind, _ in found)}", path)
    kind, value = found[0] if found else (None, None)
    return path, kind, value, bool(will_continue)


def _continuation(event: Any) -> tuple[Any, int, list[Any]] | None:
    """The bulk of a streamed call: a chunk of one candidate, not finishing, whose one part is a
    ``functionCall`` that only continues the call streaming there (no name, id or args, and
    ``willContinue`` true). Its ``(responseId, candidate index, partialArgs)``, or ``None`` for any
    other chunk (read by the general path)."""
    if type(event) is dict:
        candidates = event.get("candidates")
        if type(candidates) is not list or len(candidates) != 1:
            return None
        candidate = candidates[0]
        if type(candidate) is not dict or candidate.get("finishReason") is not None:
            return None
        content = candidate.get("content")
        parts = content.get("parts") if type(content) is dict else None
        if type(parts) is not list or len(parts) != 1:
            return None
        part = parts[0]
        # A part holding anything but the call (text, a signature) is read by the general path.
        if type(part) is not dict or len(part) != 1:
            return None
        function_call = part.get("functionCall")
        if type(function_call) is not dict or function_call.get("willContinue") is not True:
            return None
        if "name" in function_call or "id" in function_call or "args" in function_call:
            return None
        pieces = function_call.get("partialArgs", [])
        number = candidate.get("index") or 0
        if type(pieces) is not list or type(number) is not int or any(type(piece) is not dict for piece in pieces):
            return None
        usage = event.get("usageMetadata")
        if usage is not None and type(usage) is not dict:
            return None
        return event.get("responseId"), number, pieces
    candidates = getattr(event, "candidates", None)
    if not candidates or len(candidates) != 1:
        return None
    candidate = candidates[0]
    content = candidate.content
    if candidate.finish_reason is not None or content is None or not content.parts or len(content.parts) != 1:
        return None
    part = content.parts[0]
    function_call = part.function_call
    if function_call is None or part.text is not None or part.thought_signature is not None:
        return None
    if function_call.will_continue is not True or function_call.name or function_call.id or function_call.args is not None:
        return None
    return event.response_id, candidate.index or 0, function_call.partial_args or []


class GeminiAdapter(Adapter):
    """Gemini chunks, read for one accumulator; keeps this response's id, each candidate's calls,
    their argument writers and each candidate's ``finishReason``."""

    provider = "gemini"

    def __init__(self, calls: CallOperations) -> None:
        super().__init__(calls)
        # The responseId of the response being read (a chunk with another one begins the next).
        self.response_id: str | None = None
        self._sequences: dict[int, _CallSequence] = {}
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
        response_id = _field(event, "responseId", "response_id")
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
            raise MalformedEvent(problem or f"a Gemini chunk that cannot be read: {type(error).__name__}: {error}") from error

    def _continued(self, event: Any) -> bool:
        """The next pieces of the call streaming in a candidate (:func:`_continuation`): applied
        here, or ``False`` for a chunk the general path reads."""
        bulk = _continuation(event)
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
        response_id = _field(event, "responseId", "response_id")
        if response_id and response_id != self.response_id:
            if self.response_id is not None:
                self.calls.new_response()
            self.response_id = response_id
        candidates = _field(event, "candidates", "candidates")
        if not candidates:
            return []
        ended: list[ToolCall] = []
        for candidate in candidates:
            number = _field(candidate, "index", "index") or 0
            content = _field(candidate, "content", "content")
            parts = _field(content, "parts", "parts") if content is not None else None
            if parts:
                for part in parts:
                    function_call = _field(part, "functionCall", "function_call")
                    if function_call is not None:
                        ended += self._function_call(number, function_call)
            reason = _field(candidate, "finishReason", "finish_reason")
            if reason is not None:
                ended += self._finish(number, _word(reason))
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
        name = _field(function_call, "name", "name")
        call_id = _field(function_call, "id", "id")
        will_continue = _field(function_call, "willContinue", "will_continue")
        args = _field(function_call, "args", "args")
        pieces = _field(function_call, "partialArgs", "partial_args")
        sequence = self._sequences.get(number)
        if sequence is None:
            sequence = self._sequences[number] = _CallSequence()
        step = sequence.part(name, call_id, bool(will_continue))
        if step is None:
            if args is not None or pieces:
                given = "partialArgs" if pieces else "args"
                raise MalformedEvent(
                    f"candidate {number}: a functionCall with {given} for a call that was never opened "
                    "(it has no name, and no call of this candidate is streaming)"
                )
            self.calls.warnings.append(f"candidate {number}: an empty functionCall while no call is open: ignored")
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

    def _pieces(self, event: Any, number: int, block: ToolBlock, writer: ArgumentsText, args: Any, pieces: Any, text: str) -> str:
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
            raise MalformedEvent(problem or f"candidate {number}, call {block.name!r} ({block.id}): {error}") from error
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


def _signature(value: Any) -> str | None:
    """A ``thoughtSignature`` as the wire carries it (base64 text; the SDK gives the bytes)."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    return value if isinstance(value, str) and value else None


class _TextRun:
    """Consecutive text parts of one kind (thought or not) of a candidate, joined into one part."""

    __slots__ = ("pieces", "signature", "thought")

    def __init__(self, thought: bool) -> None:
        self.thought = thought
        self.pieces: list[str] = []
        self.signature: str | None = None


class _CandidateContent:
    """What one candidate said, in order: text runs, and the calls it made by ordinal."""

    __slots__ = ("items", "sequence", "signatures")

    def __init__(self) -> None:
        self.items: list[_TextRun | int] = []
        self.sequence = _CallSequence()
        # The thoughtSignature that came with each call's parts, by ordinal.
        self.signatures: dict[int, str] = {}


class GeminiAssembler:
    """The content of one Gemini response: text parts (thought parts counted in ``thinking_chars``),
    the calls (handed over parsed), ``usageMetadata``, whether every candidate finished, the
    ``finishMessage`` (``stop_message``) and an ``{"error": ...}`` line of a recording.

    ``content`` is Gemini's history shape: one ``{"role": "model", "parts": [...]}`` per candidate
    (usually one), its parts in the order they came: consecutive text parts of one kind joined into
    one (``thought: true`` on thought text), each ``functionCall`` part with ``name``, ``args`` (the
    parsed input; ``{}`` for a call that did not parse) and ``id``, and every ``thoughtSignature``
    on the part it came with (as base64 text, which the SDK and the wire both take: Gemini 3
    refuses a history whose call parts lost theirs). A call that never ended is left out.
    """

    def __init__(self) -> None:
        self._candidates: dict[int, _CandidateContent] = {}
        self._calls: dict[Any, ToolCall] = {}
        self._finished: dict[int, str] = {}
        self._usage_source: Any = None
        self._usage: dict[str, Any] | None = {}
        self.response_id: str | None = None
        self.stopped = False
        self.error: dict[str, Any] | None = None
        self.thinking_chars = 0
        self.stop_message: str | None = None

    @property
    def usage(self) -> dict[str, Any]:
        """The latest ``usageMetadata``, in the wire's camelCase (made a dict only when read: every
        chunk carries one)."""
        if self._usage is None:
            source = self._usage_source
            if isinstance(source, dict):
                self._usage = dict(source)
            else:
                self._usage = dict(source.model_dump(mode="json", by_alias=True, exclude_none=True))
        return self._usage

    @usage.setter
    def usage(self, value: dict[str, Any]) -> None:
        self._usage_source = None
        self._usage = value

    def feed(self, event: Any) -> None:
        bulk = _continuation(event)
        if bulk is not None and (not bulk[0] or bulk[0] == self.response_id):
            said = self._candidates.get(bulk[1])
            if said is not None and said.sequence.open is not None:
                # The next pieces of a call: nothing of the content changes, but the usage may.
                usage = _field(event, "usageMetadata", "usage_metadata")
                if usage is not None:
                    self._usage_source = usage
                    self._usage = None
                return
        if type(event) is dict and "error" in event and "candidates" not in event:
            # Only a recording holds the error line as an event (the client raises it instead).
            error = event["error"]
            if isinstance(error, dict):
                kind, message = error.get("status") or error.get("code"), error.get("message")
            else:
                kind, message = None, error
            self.error = {"type": "error", "error": {"type": str(kind or "error"), "message": str(message or "")}}
            return
        response_id = _field(event, "responseId", "response_id")
        if response_id and response_id != self.response_id:
            if self.response_id is not None:
                self._next_response()
            self.response_id = response_id
        usage = _field(event, "usageMetadata", "usage_metadata")
        if usage is not None:
            self._usage_source = usage
            self._usage = None
        for candidate in _field(event, "candidates", "candidates") or ():
            number = _field(candidate, "index", "index") or 0
            said = self._candidates.get(number)
            if said is None:
                said = self._candidates[number] = _CandidateContent()
            content = _field(candidate, "content", "content")
            for part in (_field(content, "parts", "parts") if content is not None else None) or ():
                self._part(said, part)
            reason = _field(candidate, "finishReason", "finish_reason")
            if reason is not None:
                self._finished[number] = _word(reason)
                said.sequence.open = None
                message = _field(candidate, "finishMessage", "finish_message")
                if message is not None:
                    self.stop_message = message
        # Ended when every candidate seen has finished (counted, not scanned).
        self.stopped = bool(self._candidates) and len(self._finished) == len(self._candidates)

    def _part(self, said: _CandidateContent, part: Any) -> None:
        signature = _signature(_field(part, "thoughtSignature", "thought_signature"))
        function_call = _field(part, "functionCall", "function_call")
        if function_call is not None:
            step = said.sequence.part(
                _field(function_call, "name", "name"),
                _field(function_call, "id", "id"),
                bool(_field(function_call, "willContinue", "will_continue")),
            )
            if step is None:
                return
            ordinal, begins = step[0], step[1]
            if begins:
                said.items.append(ordinal)
            if signature is not None:
                said.signatures.setdefault(ordinal, signature)
            return
        text = _field(part, "text", "text")
        if not isinstance(text, str):
            return
        thought = bool(_field(part, "thought", "thought"))
        last = said.items[-1] if said.items else None
        if isinstance(last, _TextRun) and last.thought == thought and not (signature and last.signature):
            run = last
        else:
            run = _TextRun(thought)
            said.items.append(run)
        if text:
            run.pieces.append(text)
            if thought:
                self.thinking_chars += len(text)
        if signature is not None:
            run.signature = signature

    def _next_response(self) -> None:
        self._candidates.clear()
        self._calls.clear()
        self._finished.clear()
        self.stopped = False
        self.stop_message = None

    def set_call(self, call: ToolCall) -> None:
        """Put a finished call in place (parsed by the reader's accumulator)."""
        self._calls[call.key] = call

    @property
    def content(self) -> list[dict[str, Any]]:
        contents = []
        for number in sorted(self._candidates):
            said = self._candidates[number]
            parts: list[dict[str, Any]] = []
            for item in said.items:
                if isinstance(item, _TextRun):
                    part: dict[str, Any] = {"text": "".join(item.pieces)}
                    if item.thought:
                        part["thought"] = True
                    signature = item.signature
                else:
                    call = self._calls.get((number, item))
                    if call is None:
                        continue
                    args = call.input if isinstance(call.input, dict) else {}
                    part = {"functionCall": {"name": call.name, "args": args, "id": call.id}}
                    signature = said.signatures.get(item)
                if signature is not None:
                    part["thoughtSignature"] = signature
                parts.append(part)
            contents.append({"role": "model", "parts": parts})
        return contents

    @property
    def text(self) -> str:
        """The text so far, thoughts left out (every candidate's, in order)."""
        texts = []
        for number in sorted(self._candidates):
            runs = self._candidates[number].items
            text = "".join("".join(run.pieces) for run in runs if isinstance(run, _TextRun) and not run.thought)
            if text:
                texts.append(text)
        return "\n\n".join(texts)


def answer(call: ToolCall, content: Any, is_error: bool, value: Any) -> dict[str, Any]:
    """The ``functionResponse`` part answering ``call``: ``{"functionResponse": {"id", "name",
    "response"}}``, ``response`` an object (as Gemini requires): ``{"output": value}`` for a result
    (the JSON value, or the text when there is none), ``{"error": text}`` for an error, and an
    error's own object as it is when it has one (``{"INVALID_JSON": raw}`` for input that is not
    JSON). The parts answering one turn's calls go back in one ``{"role": "user", "parts": [...]}``.
    """
    if is_error:
        response = value if isinstance(value, dict) else {"error": content}
    else:
        response = {"output": value if value is not None else content}
    return {"functionResponse": {"id": call.id, "name": call.name, "response": response}}


def _check_piece(entry: Any, where: str) -> str | None:
    return _check(entry, where, (dict,), optional=False) or _check(entry.get("jsonPath"), f"{where}.jsonPath", (str,), optional=False) or _fields(
        entry, where, jsonPath=(str,), stringValue=(str,), numberValue=(int, float), boolValue=(bool,),
        nullValue=(str,), willContinue=(bool,),
    )


def _check_part(part: Any, where: str) -> str | None:
    problem = _check(part, where, (dict,), optional=False) or _fields(
        part, where, text=(str,), thought=(bool,), thoughtSignature=(str,), functionCall=(dict,)
    )
    if problem is not None:
        return problem
    function_call = part.get("functionCall") or {}
    at = f"{where}.functionCall"
    problem = _fields(function_call, at, name=(str,), id=(str,), args=(dict,), partialArgs=(list,), willContinue=(bool,))
    if problem is not None:
        return problem
    for position, entry in enumerate(function_call.get("partialArgs") or ()):
        problem = _check_piece(entry, f"{at}.partialArgs[{position}]")
        if problem is not None:
            return problem
    return None


def check(event: dict[str, Any]) -> str | None:
    """What is wrong with a recorded Gemini chunk (a camelCase dict), or ``None``."""
    problem = _fields(event, "chunk", candidates=(list,), usageMetadata=(dict,), responseId=(str,), modelVersion=(str,),
                      promptFeedback=(dict,), error=(dict,))
    if problem is not None:
        return problem
    for number, candidate in enumerate(event.get("candidates") or ()):
        where = f"chunk.candidates[{number}]"
        problem = _check(candidate, where, (dict,), optional=False) or _fields(
            candidate, where, index=(int,), content=(dict,), finishReason=(str,), finishMessage=(str,)
        )
        if problem is not None:
            return problem
        content = candidate.get("content") or {}
        problem = _fields(content, f"{where}.content", role=(str,), parts=(list,))
        if problem is not None:
            return problem
        for position, part in enumerate(content.get("parts") or ()):
            problem = _check_part(part, f"{where}.content.parts[{position}]")
            if problem is not None:
                return problem
    return None


def describe_error(error: BaseException) -> str | None:
    """A google-genai ``APIError`` raised while streaming, in a line (``None`` for anything else;
    google-genai is looked up only if it was imported, which it was if it raised)."""
    errors = sys.modules.get("google.genai.errors")
    api_error = getattr(errors, "APIError", None)
    if not isinstance(api_error, type) or not isinstance(error, api_error):
        return None
    kind = getattr(error, "status", None) or getattr(error, "code", None) or "error"
    return f"{kind}: {getattr(error, 'message', None) or error}"


SOURCE = Source(
    name="gemini",
    title="Gemini",
    recognise=recognise,
    marks=frozenset({"candidates", "usageMetadata"}),
    adapter=GeminiAdapter,
    assembler=lambda warnings: GeminiAssembler(),
    cut_off=frozenset({"MAX_TOKENS"}),
    refused=frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"}),
    end_event="finishReason",
    answer=answer,
    check=check,
    stream_paths=(r"/models/(?P<model>[^/:]+):streamGenerateContent",),
    describe_error=describe_error,
    telemetry_name="gcp.gemini",
    extra="gemini",
    modules=("google.genai",),
    distributions={"google.genai": "google-genai"},
)
"""Everything tooljson knows about Gemini streams (see :class:`tooljson.providers.source.Source`)."""
