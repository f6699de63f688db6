"""The check of a Gemini chunk given as a wire dict: what a recording's line (and the adapter, before it
takes any of a dict) is refused for, naming the field."""

from __future__ import annotations

from typing import Any

from tooljson.providers.field_checks import check as _check
from tooljson.providers.field_checks import fields as _fields

__all__ = ["check"]


def _check_piece(entry: Any, where: str) -> str | None:
    return (
        _check(entry, where, (dict,), optional=False)
        or _check(entry.get("jsonPath"), f"{where}.jsonPath", (str,), optional=False)
        or _fields(
            entry,
            where,
            jsonPath=(str,),
            stringValue=(str,),
            numberValue=(int, float),
            boolValue=(bool,),
            nullValue=(str,),
            willContinue=(bool,),
        )
    )


def _check_part(part: Any, where: str) -> str | None:
    problem = _check(part, where, (dict,), optional=False) or _fields(
        part, where, text=(str,), thought=(bool,), thoughtSignature=(str,), functionCall=(dict,)
    )
    if problem is not None:
        return problem
    function_call = part.get("functionCall") or {}
    at = f"{where}.functionCall"
    problem = _fields(
        function_call, at, name=(str,), id=(str,), args=(dict,), partialArgs=(list,), willContinue=(bool,)
    )
    if problem is not None:
        return problem
    for position, entry in enumerate(function_call.get("partialArgs") or ()):
        problem = _check_piece(entry, f"{at}.partialArgs[{position}]")
        if problem is not None:
            return problem
    return None


def check(event: dict[str, Any]) -> str | None:
    """What is wrong with a recorded Gemini chunk (a camelCase dict), or ``None``."""
    problem = _fields(
        event,
        "chunk",
        candidates=(list,),
        usageMetadata=(dict,),
        responseId=(str,),
        modelVersion=(str,),
        promptFeedback=(dict,),
        error=(dict,),
    )
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
