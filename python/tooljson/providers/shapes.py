"""Whether a plain-dict event of another provider has the shape its adapter reads.

The adapters take what the SDKs yield and skip what they do not know, but they assume that a field
they read has its documented type (a list of choices, a string fragment). Events from a file (a
recording to replay) are checked here first, so that a bad line is refused with a message naming
the field instead of failing half-way through a replay.
"""

from __future__ import annotations

from typing import Any

from tooljson.providers import BEDROCK_EVENTS, Provider

__all__ = ["shape_problem"]

_NO_VALUE = object()


def _check(value: Any, where: str, kinds: tuple[type, ...], *, optional: bool = True) -> str | None:
    if value is _NO_VALUE or value is None:
        return None if optional else f"{where} is required"
    if isinstance(value, bool) and bool not in kinds:
        return f"{where} must be {' or '.join(kind.__name__ for kind in kinds)}, not bool"
    if not isinstance(value, kinds):
        return f"{where} must be {' or '.join(kind.__name__ for kind in kinds)}, not {type(value).__name__}"
    return None


def _fields(obj: dict[str, Any], where: str, **kinds: tuple[type, ...]) -> str | None:
    for name, expected in kinds.items():
        problem = _check(obj.get(name, _NO_VALUE), f"{where}.{name}", expected)
        if problem is not None:
            return problem
    return None


def _chat(event: dict[str, Any]) -> str | None:
    problem = _fields(event, "chunk", id=(str,), choices=(list,), usage=(dict,), error=(dict,))
    if problem is not None:
        return problem
    for number, choice in enumerate(event.get("choices") or ()):
        where = f"chunk.choices[{number}]"
        problem = _check(choice, where, (dict,), optional=False) or _fields(
            choice, where, index=(int,), delta=(dict,), finish_reason=(str,)
        )
        if problem is not None:
            return problem
        delta = choice.get("delta") or {}
        problem = _fields(delta, f"{where}.delta", content=(str,), tool_calls=(list,))
        if problem is not None:
            return problem
        for position, piece in enumerate(delta.get("tool_calls") or ()):
            at = f"{where}.delta.tool_calls[{position}]"
            problem = _check(piece, at, (dict,), optional=False) or _fields(
                piece, at, index=(int,), id=(str,), type=(str,), function=(dict,)
            )
            if problem is None:
                problem = _fields(piece.get("function") or {}, f"{at}.function", name=(str,), arguments=(str,))
            if problem is not None:
                return problem
    return None


def _responses(event: dict[str, Any]) -> str | None:
    kind = event.get("type")
    problem = _fields(event, str(kind), output_index=(int,), item_id=(str,), delta=(str,), arguments=(str,),
                      input=(str,), item=(dict,), response=(dict,), code=(str,), message=(str,))
    if problem is not None:
        return problem
    item = event.get("item") or {}
    problem = _fields(item, f"{kind}.item", type=(str,), id=(str,), call_id=(str,), name=(str,), arguments=(str,), input=(str,))
    if problem is not None:
        return problem
    response = event.get("response") or {}
    problem = _fields(response, f"{kind}.response", status=(str,), incomplete_details=(dict,), usage=(dict,), error=(dict,))
    if problem is not None:
        return problem
    return _fields(response.get("incomplete_details") or {}, f"{kind}.response.incomplete_details", reason=(str,))


def _bedrock(event: dict[str, Any]) -> str | None:
    (name, body), = event.items()
    problem = _check(body, name, (dict,), optional=False) or _fields(
        body, name, contentBlockIndex=(int,), delta=(dict,), start=(dict,), stopReason=(str,), usage=(dict,), message=(str,)
    )
    if problem is not None:
        return problem
    delta = body.get("delta") or {}
    problem = _fields(delta, f"{name}.delta", text=(str,), toolUse=(dict,), reasoningContent=(dict,))
    if problem is not None:
        return problem
    problem = _fields(delta.get("toolUse") or {}, f"{name}.delta.toolUse", input=(str,)) or _fields(
        delta.get("reasoningContent") or {}, f"{name}.delta.reasoningContent", text=(str,)
    )
    if problem is not None:
        return problem
    start = body.get("start") or {}
    problem = _fields(start, f"{name}.start", toolUse=(dict,))
    if problem is not None:
        return problem
    return _fields(start.get("toolUse") or {}, f"{name}.start.toolUse", toolUseId=(str,), name=(str,))


def shape_problem(event: dict[str, Any], provider: Provider) -> str | None:
    """What is wrong with ``event`` as an event of ``provider`` (not the Messages API), or ``None``."""
    if provider == "openai":
        return _chat(event)
    if provider == "responses":
        return _responses(event)
    if provider == "bedrock" and len(event) == 1 and next(iter(event)) in BEDROCK_EVENTS:
        return _bedrock(event)
    if provider == "openai-agents":
        from tooljson.frameworks.openai_agents import check_recorded

        return check_recorded(event)
    return f"not an event of {provider!r}"
