"""How a Gemini chunk reads, as a wire dict (camelCase) and as google-genai's objects (snake_case) alike:
its fields, its finish reason's word, the bulk chunk of a streamed call (one more piece of the open
call and nothing else), which both the adapter and the assembler take by a short path, and how the
calls of one candidate are counted (:class:`CallSequence`)."""

from __future__ import annotations

from typing import Any

__all__ = ["CallSequence", "chunk_field", "continuation", "finish_word"]


def chunk_field(obj: Any, camel: str, snake: str) -> Any:
    """A field of a chunk's part, from a wire dict (camelCase) or an SDK object (snake_case) alike."""
    if type(obj) is dict:
        return obj.get(camel)
    return getattr(obj, snake, None)


def finish_word(reason: Any) -> Any:
    """A ``finishReason`` as the wire's word (the SDK gives an enum whose value it is)."""
    return getattr(reason, "value", reason)


def continuation(event: Any) -> tuple[Any, int, list[Any]] | None:
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
        if (
            type(pieces) is not list
            or type(number) is not int
            or any(type(piece) is not dict for piece in pieces)
        ):
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
    if (
        function_call.will_continue is not True
        or function_call.name
        or function_call.id
        or function_call.args is not None
    ):
        return None
    return event.response_id, candidate.index or 0, function_call.partial_args or []


class CallSequence:
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
        if (
            open_ordinal is not None
            and not (name and name != self.name)
            and not (call_id and self.call_id and call_id != self.call_id)
        ):
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
