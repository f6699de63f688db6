"""The partial form of a pydantic model: every field optional (absent is ``None``), nested models,
lists and dicts of models partial too, constraints kept so that the form can validate what it holds."""

from __future__ import annotations

import copy
import types
import typing
from typing import Any, Optional, Union

__all__ = ["partial_model"]


def _partial_type(annotation: Any) -> Any:
    from pydantic import BaseModel

    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin is typing.Annotated:
        return typing.Annotated[(_partial_type(arguments[0]), *arguments[1:])]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return partial_model(annotation)
    if origin in (Union, types.UnionType):
        members = [member for member in arguments if member is not type(None)]
        if len(members) == 1:
            return Optional[_partial_type(members[0])]  # noqa: UP045 - built at run time
        return annotation
    if origin is list and len(arguments) == 1:
        return list.__class_getitem__(_partial_type(arguments[0]))
    if origin is dict and len(arguments) == 2:
        return dict.__class_getitem__((arguments[0], _partial_type(arguments[1])))
    return annotation


_PARTIALS: dict[type, type[Any]] = {}


def partial_model(model: type[Any]) -> type[Any]:
    """``Partial{Model}``: the same fields, each optional with ``None`` as default, nested models
    replaced by their partial forms. Cached per model class."""
    partial = _PARTIALS.get(model)
    if partial is None:
        if len(_PARTIALS) >= 256:
            # Models made on the fly (one per request, say) must not pile up.
            _PARTIALS.clear()
        partial = _PARTIALS[model] = _make_partial(model)
    return partial


def _make_partial(model: type[Any]) -> type[Any]:
    from pydantic import ConfigDict, create_model
    from pydantic.fields import FieldInfo

    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        annotation = _partial_type(info.annotation)
        plain = copy.copy(info)
        plain.default_factory = None  # absent is None in the partial form, whatever the model's default
        fields[name] = (Optional[annotation], FieldInfo.merge_field_infos(plain, default=None))  # noqa: UP045
    extra = model.model_config.get("extra")
    config = ConfigDict(extra=extra) if extra else None
    partial: type[Any] = create_model(
        f"Partial{model.__name__}", __config__=config, __module__=model.__module__, **fields
    )
    partial.__doc__ = (
        f"The partial form of {model.__name__}: every field optional, filled as the text streams."
    )
    return partial
