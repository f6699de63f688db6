"""What a schema expects at each place of a document, walked one key at a time as the text streams.

A :class:`Shape` answers two questions about the value at one place: what lies under a key or a
position of it (:meth:`Shape.child`), and whether a value that just completed there is valid
(:meth:`Shape.check`). Shapes are made from a pydantic model (:func:`model_shape`) or from a JSON
Schema (:func:`schema_shape`) and cached, so walking a long list of records costs a dict lookup a
value.

``growable`` shapes are shown while they fill (a nested model, a list, a dict of models); the others
(a discriminated union, a tuple, a set, a scalar) appear in a partial value only once complete and
valid. ``growing_text`` marks plain strings, which may be shown while they grow because any text is
valid for them: a shown value never disappears.
"""

from __future__ import annotations

import copy
import json
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from tooljson.text import json_pointer

__all__ = ["FieldError", "Key", "Path", "Shape", "model_shape", "pydantic_errors", "schema_shape"]

Key = str | int
Path = tuple[Key, ...]


@dataclass(frozen=True)
class FieldError:
    """One field that failed validation: where (``pointer``, RFC 6901, into the document), why
    (``type``: pydantic's error type, or the JSON Schema keyword) and ``msg``; ``input`` is the value
    received."""

    pointer: str
    type: str
    msg: str
    input: Any = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.pointer, self.type)


def _loc_to_path(value: Any, loc: Sequence[Key]) -> Path:
    """The document path a validation error's ``loc`` names under ``value``; parts that are not in
    the document (a union member's tag, a validator's name) are left out. Without the value (the
    text did not parse), ``loc`` is taken as it is."""
    if value is None:
        return tuple(part for part in loc if isinstance(part, (str, int)))
    path: list[Key] = []
    for part in loc:
        if isinstance(value, dict) and isinstance(part, str) and part in value:
            value = value[part]
            path.append(part)
        elif isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
            value = value[part]
            path.append(part)
    return tuple(path)


def pydantic_errors(error: Any, path: Path, value: Any) -> list[FieldError]:
    """A pydantic ``ValidationError`` raised for ``value`` at ``path``, as :class:`FieldError` s."""
    return [
        FieldError(
            json_pointer(path + _loc_to_path(value, item["loc"])),
            item["type"],
            item["msg"],
            item.get("input"),
        )
        for item in error.errors(include_url=False)
    ]


class Shape:
    """What is expected at one place of the document."""

    growable = False
    growing_text = False

    def child(self, key: Key) -> Shape | None:
        """The shape under ``key``; ``None`` when the value there is ignored."""
        return None

    def check(self, value: Any, path: Path) -> tuple[Any, list[FieldError]]:
        """The validated value of a complete ``value`` at ``path`` and the errors found (the value is
        meaningless when there are errors)."""
        return value, []

    def new_partial(self, kind: str) -> Any:
        """An empty partial value for a growable shape, when a container of ``kind`` ("object" or
        "array") begins where it is expected; ``None`` for the wrong kind (checked once complete)."""
        return None


class _Forbidden(Shape):
    """A key the model or schema does not allow."""

    def __init__(self, error_type: str, message: str) -> None:
        self.error_type = error_type
        self.message = message

    def check(self, value: Any, path: Path) -> tuple[Any, list[FieldError]]:
        return value, [FieldError(json_pointer(path), self.error_type, self.message, value)]


# --- pydantic ---------------------------------------------------------------------------------------


def _strip_annotated(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    if typing.get_origin(annotation) is typing.Annotated:
        inner, *metadata = typing.get_args(annotation)
        base, more = _strip_annotated(inner)
        return base, (*more, *metadata)
    return annotation, ()


def _non_none_member(annotation: Any) -> Any | None:
    """``X`` of ``Optional[X]`` (``X | None``), else ``None``."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        members = [member for member in typing.get_args(annotation) if member is not type(None)]
        if len(members) == 1 and len(typing.get_args(annotation)) == 2:
            return members[0]
    return None


def _is_model(annotation: Any) -> bool:
    from pydantic import BaseModel

    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


class _Leaf(Shape):
    """A value validated as a whole when it completes, against the field's type and constraints."""

    def __init__(self, annotation: Any, config: Any, *, growing_text: bool = False) -> None:
        from pydantic import TypeAdapter

        if _is_model(annotation):
            self.adapter = TypeAdapter(annotation)
        else:
            self.adapter = TypeAdapter(annotation, config=config)
        self.growing_text = growing_text

    def check(self, value: Any, path: Path) -> tuple[Any, list[FieldError]]:
        from pydantic import ValidationError

        try:
            # JSON-mode validation, as model_validate_json does it (strict models accept a date as
            # a string there); json.dumps escapes lone surrogates so the text is always encodable.
            return self.adapter.validate_json(json.dumps(value)), []
        except ValidationError as error:
            return None, pydantic_errors(error, path, value)
        except ValueError as error:  # a value pydantic cannot even read (NaN where refused, say)
            return None, [FieldError(json_pointer(path), "value_error", str(error), value)]


class _List(_Leaf):
    """A list shown as it grows: each item is checked when it completes, the list when it does."""

    growable = True

    def __init__(self, annotation: Any, item: Shape, config: Any) -> None:
        super().__init__(annotation, config)
        self.item = item

    def child(self, key: Key) -> Shape | None:
        return self.item

    def new_partial(self, kind: str) -> Any:
        return [] if kind == "array" else None


class _Dict(_Leaf):
    """A dict of models, shown as it grows."""

    growable = True

    def __init__(self, annotation: Any, value: Shape, config: Any) -> None:
        super().__init__(annotation, config)
        self.value = value

    def child(self, key: Key) -> Shape | None:
        return self.value

    def new_partial(self, kind: str) -> Any:
        return {} if kind == "object" else None


class _Model(Shape):
    """A pydantic model: each field checked as it completes, the model as a whole when it does."""

    growable = True

    def __init__(self, model: type[Any]) -> None:
        self.model = model
        self._fields: dict[str, tuple[str, Any]] = {}
        config = model.model_config
        by_name = bool(config.get("validate_by_name") or config.get("populate_by_name"))
        for name, info in model.model_fields.items():
            alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
            keys = [alias] if alias else [name]
            if by_name and name not in keys:
                keys.append(name)
            for key in keys:
                self._fields[key] = (name, info)
        extra = config.get("extra") or "ignore"
        self._extra: Shape | None = None
        if extra == "forbid":
            self._extra = _Forbidden("extra_forbidden", "Extra inputs are not permitted")
        self.extra_allowed = extra == "allow"
        self._children: dict[str, Shape | None] = {}

    def field_name(self, key: Key) -> str | None:
        entry = self._fields.get(key) if isinstance(key, str) else None
        return entry[0] if entry is not None else None

    def child(self, key: Key) -> Shape | None:
        if not isinstance(key, str):
            return None
        if key in self._children:
            return self._children[key]
        entry = self._fields.get(key)
        if entry is None:
            shape = self._extra if not self.extra_allowed else _Leaf(Any, None)
        else:
            shape = _field_shape(entry[1], self.model.model_config)
        self._children[key] = shape
        return shape

    def check(self, value: Any, path: Path) -> tuple[Any, list[FieldError]]:
        from pydantic import ValidationError

        try:
            return self.model.model_validate_json(json.dumps(value)), []
        except ValidationError as error:
            return None, pydantic_errors(error, path, value)

    def new_partial(self, kind: str) -> Any:
        from tooljson.typed.partials import partial_model

        return partial_model(self.model).model_construct() if kind == "object" else None


def _field_shape(info: Any, config: Any) -> Shape:
    from pydantic import ConfigDict
    from pydantic.fields import FieldInfo
    from pydantic_core import PydanticUndefined

    annotation, metadata = _strip_annotated(info.annotation)
    optional = _non_none_member(annotation)
    if optional is not None:
        annotation = optional
    # Model-level settings that change how a field validates travel with it.
    field_config = ConfigDict()
    for key, value in config.items():
        if key.startswith(("str_", "strict", "coerce")):
            field_config[key] = value  # type: ignore[literal-required]
    # The field's type with its constraints; where the value sits (alias, default) is the model's business.
    plain = copy.copy(info)
    plain.alias = plain.validation_alias = plain.serialization_alias = plain.alias_priority = None
    plain.default, plain.default_factory = PydanticUndefined, None
    full = typing.Annotated[info.annotation, FieldInfo.merge_field_infos(plain)]
    return _type_shape(annotation, full, bool(metadata or info.metadata), field_config)


def _type_shape(annotation: Any, full: Any, constrained: bool, config: Any) -> Shape:
    """The shape of a value of ``annotation`` (``full`` with its constraints, for checking)."""
    annotation, metadata = _strip_annotated(annotation)
    if _is_model(annotation) and not constrained:
        return _cached_model_shape(typing.cast(type, annotation))
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin in (list, Sequence) and len(arguments) == 1:
        item, item_metadata = _strip_annotated(arguments[0])
        optional = _non_none_member(item)
        item_shape = _type_shape(
            optional if optional is not None else item, arguments[0], bool(item_metadata), config
        )
        return _List(full, item_shape, config)
    if origin in (dict, Mapping) and len(arguments) == 2 and _is_model(_strip_annotated(arguments[1])[0]):
        return _Dict(full, _type_shape(arguments[1], arguments[1], False, config), config)
    plain_text = (
        annotation is str
        and not constrained
        and not metadata
        and not any(
            key in config
            for key in (
                "str_strip_whitespace",
                "str_to_lower",
                "str_to_upper",
                "str_min_length",
                "str_max_length",
                "str_pattern",
            )
        )
    )
    return _Leaf(full, config, growing_text=plain_text)


_MODEL_SHAPES: dict[type, _Model] = {}


def _cached_model_shape(model: type) -> _Model:
    shape = _MODEL_SHAPES.get(model)
    if shape is None:
        if len(_MODEL_SHAPES) >= 256:
            # Models made on the fly (one per request, say) must not pile up.
            _MODEL_SHAPES.clear()
        shape = _MODEL_SHAPES[model] = _Model(model)
    return shape


def model_shape(model: type[Any]) -> Shape:
    """The shape of a pydantic model (cached per model class)."""
    if not _is_model(model):
        raise TypeError(f"model must be a pydantic BaseModel subclass, not {model!r}")
    return _cached_model_shape(typing.cast(type, model))


# --- JSON Schema ------------------------------------------------------------------------------------


class _Schema(Shape):
    """A JSON Schema node: children by ``properties`` / ``items``; checked with jsonschema."""

    growable = True

    def __init__(self, validator: Any, schema: Any) -> None:
        self.validator = validator
        self.schema = schema if isinstance(schema, (dict, bool)) else {}
        self._resolved = self._resolve(self.schema)
        self._children: dict[Key, Shape | None] = {}
        kinds = self._resolved.get("type") if isinstance(self._resolved, dict) else None
        self.growing_text = kinds == "string" and not any(
            key in self._resolved for key in ("enum", "const", "pattern", "format", "maxLength", "minLength")
        )

    def _resolve(self, schema: Any) -> Any:
        seen = 0
        while isinstance(schema, dict) and "$ref" in schema and seen < 32:
            try:
                schema = self.validator._resolver.lookup(schema["$ref"]).contents  # noqa: SLF001
            except Exception:  # noqa: BLE001 - an unresolvable reference is checked as is
                return schema
            seen += 1
        return schema

    def child(self, key: Key) -> Shape | None:
        if key in self._children:
            return self._children[key]
        schema = self._resolved
        sub: Any = None
        if isinstance(schema, dict):
            if isinstance(key, str):
                properties = schema.get("properties") or {}
                if key in properties:
                    sub = properties[key]
                else:
                    additional = schema.get("additionalProperties", True)
                    if additional is False and not schema.get("patternProperties"):
                        shape: Shape | None = _Forbidden("additionalProperties", f"unexpected field {key!r}")
                        self._children[key] = shape
                        return shape
                    sub = additional if isinstance(additional, dict) else None
            else:
                prefix = schema.get("prefixItems") or []
                sub = prefix[key] if key < len(prefix) else schema.get("items")
        shape = _Schema(self.validator, sub) if isinstance(sub, dict) else None
        if len(self._children) < 4096:
            self._children[key] = shape
        return shape

    def check(self, value: Any, path: Path) -> tuple[Any, list[FieldError]]:
        validator = self.validator.evolve(schema=self.schema)
        errors = [
            FieldError(
                json_pointer(path + tuple(error.absolute_path)),
                str(error.validator),
                error.message,
                error.instance,
            )
            for error in validator.iter_errors(value)
        ]
        return value, errors

    def new_partial(self, kind: str) -> Any:
        return [] if kind == "array" else {}


def schema_shape(schema: Mapping[str, Any]) -> Shape:
    """The shape of a JSON Schema (Draft 2020-12, formats checked)."""
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return _Schema(validator, dict(schema))
