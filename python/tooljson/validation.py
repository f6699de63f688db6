"""Checking parsed tool input before running the tool.

Input is validated against the tool's ``input_schema`` (JSON Schema, Draft 2020-12, formats checked)
or against a pydantic model when the handler declares one. Only unambiguous, harmless slips are
repaired, each logged on the ``tooljson`` logger:

* enum letter case: ``"High"`` becomes ``"high"`` when exactly one member matches ignoring case;
* stray surrounding whitespace on a string whose ``enum``, ``format`` or ``pattern`` then matches.

Everything else (a missing required field, a wrong type, an unknown enum value...) is rejected: the
outcome lists each field as a JSON pointer with what to send instead, which
:func:`tooljson.results.rejected_input_result` turns into the error tool result.

``jsonschema`` and ``pydantic`` are imported only when first needed, so ``import tooljson`` stays light.
"""

from __future__ import annotations

import copy
import inspect
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tooljson.extras import require
from tooljson.text import json_excerpt, json_pointer

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError as SchemaError  # type: ignore[import-untyped]
    from pydantic import BaseModel

__all__ = [
    "Problem",
    "Repair",
    "ToolHandler",
    "ValidationOutcome",
    "model_of",
    "validate_tool_input",
]

logger = logging.getLogger("tooljson")


@dataclass(frozen=True)
class Repair:
    """One harmless change made to the input: at ``path`` (a JSON pointer), ``before`` → ``after``."""

    path: str
    before: Any
    after: Any
    reason: str


@dataclass(frozen=True)
class Problem:
    """One reason to reject the input: ``path`` is a JSON pointer, ``message`` says what to send."""

    path: str
    message: str


@dataclass(frozen=True)
class ValidationOutcome:
    """What validation concluded: ``value`` is the (repaired) input, or the model instance."""

    ok: bool
    value: Any
    repairs: tuple[Repair, ...] = ()
    problems: tuple[Problem, ...] = ()


def _display(pointer: str) -> str:
    return pointer or "(input)"


@dataclass(frozen=True)
class ToolHandler:
    """A handler registered with an explicit pydantic model to validate its input with.

    ``function`` receives the model instance. Plain callables need no wrapper: a handler whose first
    parameter is annotated with a ``BaseModel`` subclass gets that model found by :func:`model_of`.
    """

    function: Callable[..., Any]
    model: type[BaseModel] | None = None


def model_of(handler: Callable[..., Any] | ToolHandler) -> type[BaseModel] | None:
    """The pydantic model a handler declares (registered, or as its first parameter's annotation)."""
    if isinstance(handler, ToolHandler):
        return handler.model if handler.model is not None else model_of(handler.function)
    try:
        parameters = list(inspect.signature(handler).parameters.values())
    except (TypeError, ValueError):
        return None
    if not parameters:
        return None
    annotation = parameters[0].annotation
    if isinstance(annotation, str):
        try:
            annotation = inspect.get_annotations(handler, eval_str=True).get(parameters[0].name)
        except Exception:  # noqa: BLE001 - an unresolvable annotation simply declares no model
            return None
    if not isinstance(annotation, type):
        return None
    try:
        from pydantic import BaseModel
    except ImportError:
        return None
    return annotation if issubclass(annotation, BaseModel) else None


def _validator(schema: Mapping[str, Any]) -> Any:
    require("validating tool input against a JSON Schema", "jsonschema")
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _set_at(document: Any, path: Sequence[str | int], value: Any) -> Any:
    if not path:
        return value
    target = document
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return document


def _try_repair(error: SchemaError) -> tuple[Any, str] | None:
    """A repaired value for a failed ``enum``/``format``/``pattern`` check, when exactly one exists."""
    value = error.instance
    if not isinstance(value, str):
        return None
    stripped = value.strip()
    if error.validator == "enum":
        members = [m for m in error.validator_value if isinstance(m, str)]
        matches = [m for m in members if m.casefold() == stripped.casefold()]
        if len(matches) != 1:
            return None
        if matches[0] == stripped:
            return stripped, "stray whitespace around an enum value"
        extra = " and stray whitespace" if stripped != value else ""
        return matches[0], f"enum value in the wrong letter case{extra}"
    if error.validator in ("format", "pattern") and stripped != value:
        if not any(True for _ in _validator(error.schema).iter_errors(stripped)):
            return stripped, f"stray whitespace around a value with a {error.validator}"
    return None


def _describe(error: SchemaError) -> list[Problem]:
    """Problems worded to tell the model what to send instead."""
    path = list(error.absolute_path)
    where = json_pointer(path)
    validator = error.validator
    if validator == "required":
        present = error.instance if isinstance(error.instance, dict) else {}
        return [
            Problem(json_pointer([*path, name]), "required field is missing: add it")
            for name in error.validator_value
            if name not in present
        ]
    if validator == "type":
        expected = error.validator_value
        wanted = " or ".join(expected) if isinstance(expected, list) else expected
        return [
            Problem(
                where,
                f"expected {wanted}, got {_json_type(error.instance)} {_short(error.instance)}: "
                f"send a JSON {wanted}",
            )
        ]
    if validator == "enum":
        choices = ", ".join(json.dumps(m) for m in error.validator_value)
        return [Problem(where, f"{_short(error.instance)} is not allowed: send one of {choices}")]
    if validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return [Problem(json_pointer([*path, name]), "unexpected field: leave it out") for name in extra]
    if validator == "format":
        wanted = error.validator_value
        return [Problem(where, f"{_short(error.instance)} is not a valid {wanted}: send a valid {wanted}")]
    if validator == "const":
        return [Problem(where, f"must be exactly {json.dumps(error.validator_value)}")]
    return [Problem(where, f"{error.message} (schema rule {validator!r})")]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _short(value: Any, limit: int = 60) -> str:
    return json_excerpt(value, limit)


def validate_tool_input(
    name: str,
    value: Any,
    *,
    schema: Mapping[str, Any] | None = None,
    model: type[BaseModel] | None = None,
) -> ValidationOutcome:
    """Validate (and minimally repair) one call's input.

    With ``schema``, the input is checked against it and the repairs listed above are applied; with
    ``model`` too, the (repaired) input is then validated by the model and ``value`` of the outcome is
    the model instance. The raw input is logged first, at debug level, so every call leaves evidence.
    """
    logger.debug("tool %r raw input: %s", name, _short(value, 2000))
    repairs: list[Repair] = []
    problems: list[Problem] = []
    current = value
    if schema is not None:
        validator = _validator(schema)
        errors = list(validator.iter_errors(current))
        fixable = [(e, _try_repair(e)) for e in errors]
        if errors and all(fix is not None for _, fix in fixable):
            current = copy.deepcopy(value)
            for error, fix in fixable:
                assert fix is not None
                after, reason = fix
                path = list(error.absolute_path)
                current = _set_at(current, path, after)
                repairs.append(Repair(json_pointer(path), error.instance, after, reason))
            errors = list(validator.iter_errors(current))
        if errors:
            # Repairs are applied only when they make the whole input valid: a call that is rejected
            # anyway is reported as the model sent it.
            current = value
            repairs = []
            for error in sorted(errors, key=lambda e: list(map(str, e.absolute_path))):
                problems.extend(_describe(error))
    if not problems and model is not None:
        from pydantic import ValidationError

        try:
            current = model.model_validate(current)
        except ValidationError as exc:
            for item in exc.errors(include_url=False):
                problems.append(Problem(json_pointer(item["loc"]), _pydantic_message(item)))
    if problems:
        logger.warning(
            "tool %r input rejected (%s): %s",
            name,
            "; ".join(f"{_display(p.path)}: {p.message}" for p in problems),
            _short(value, 2000),
        )
        return ValidationOutcome(False, value, (), tuple(problems))
    for repair in repairs:
        logger.warning(
            "tool %r input repaired at %s: %s -> %s (%s)",
            name,
            _display(repair.path),
            _short(repair.before),
            _short(repair.after),
            repair.reason,
        )
    return ValidationOutcome(True, current, tuple(repairs), ())


def _pydantic_message(item: Mapping[str, Any]) -> str:
    kind = item.get("type", "")
    if kind == "missing":
        return "required field is missing: add it"
    if kind == "extra_forbidden":
        return "unexpected field: leave it out"
    return f"{item.get('msg', 'invalid value')} (got {_short(item.get('input'))})"
