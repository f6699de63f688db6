"""The content of one Gemini response: :class:`GeminiAssembler`, the Gemini source's assembler (see
:mod:`tooljson.providers.gemini`)."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from tooljson.providers.gemini.chunks import CallSequence, chunk_field, continuation, finish_word

if TYPE_CHECKING:
    from tooljson.calls import ToolCall

__all__ = ["GeminiAssembler"]


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
        self.sequence = CallSequence()
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
        bulk = continuation(event)
        if bulk is not None and (not bulk[0] or bulk[0] == self.response_id):
            said = self._candidates.get(bulk[1])
            if said is not None and said.sequence.open is not None:
                # The next pieces of a call: nothing of the content changes, but the usage may.
                usage = chunk_field(event, "usageMetadata", "usage_metadata")
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
            self.error = {
                "type": "error",
                "error": {"type": str(kind or "error"), "message": str(message or "")},
            }
            return
        response_id = chunk_field(event, "responseId", "response_id")
        if response_id and response_id != self.response_id:
            if self.response_id is not None:
                self._next_response()
            self.response_id = response_id
        usage = chunk_field(event, "usageMetadata", "usage_metadata")
        if usage is not None:
            self._usage_source = usage
            self._usage = None
        for candidate in chunk_field(event, "candidates", "candidates") or ():
            number = chunk_field(candidate, "index", "index") or 0
            said = self._candidates.get(number)
            if said is None:
                said = self._candidates[number] = _CandidateContent()
            content = chunk_field(candidate, "content", "content")
            for part in (chunk_field(content, "parts", "parts") if content is not None else None) or ():
                self._part(said, part)
            reason = chunk_field(candidate, "finishReason", "finish_reason")
            if reason is not None:
                self._finished[number] = finish_word(reason)
                said.sequence.open = None
                message = chunk_field(candidate, "finishMessage", "finish_message")
                if message is not None:
                    self.stop_message = message
        # Ended when every candidate seen has finished (counted, not scanned).
        self.stopped = bool(self._candidates) and len(self._finished) == len(self._candidates)

    def _part(self, said: _CandidateContent, part: Any) -> None:
        signature = _signature(chunk_field(part, "thoughtSignature", "thought_signature"))
        function_call = chunk_field(part, "functionCall", "function_call")
        if function_call is not None:
            step = said.sequence.part(
                chunk_field(function_call, "name", "name"),
                chunk_field(function_call, "id", "id"),
                bool(chunk_field(function_call, "willContinue", "will_continue")),
            )
            if step is None:
                return
            ordinal, begins = step[0], step[1]
            if begins:
                said.items.append(ordinal)
            if signature is not None:
                said.signatures.setdefault(ordinal, signature)
            return
        text = chunk_field(part, "text", "text")
        if not isinstance(text, str):
            return
        thought = bool(chunk_field(part, "thought", "thought"))
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
            text = "".join(
                "".join(run.pieces) for run in runs if isinstance(run, _TextRun) and not run.thought
            )
            if text:
                texts.append(text)
        return "\n\n".join(texts)
