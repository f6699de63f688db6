"""Building a partial as instructor builds it: :class:`PartialBuilder` turns the JSON text of one
stream, fed piece by piece, into the partial objects instructor 1.17 yields for it (``model_construct``
while the text is open, complete nested models validated, ``model_validate`` once it is whole),
rebuilding only the containers still open.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union, get_args, get_origin

from tooljson._native import loads
from tooljson.compat import PartialParser
from tooljson.compat.jiter_reference import RECURSION_LIMIT
from tooljson.errors import IncompleteJSONError, MalformedJSONError

__all__ = ["PartialBuilder"]

# instructor strips these from every chunk before parsing (its ``remove_control_chars``).
_CONTROL_CHARACTERS = dict.fromkeys([*range(0x20), *range(0x7F, 0xA0)])
# The keyword arguments instructor passes on when it validates a whole root object.
_ROOT_VALIDATION_KEYS = frozenset({"context", "strict", "extra", "from_attributes", "by_alias", "by_name"})


def _model_in(annotation: Any) -> type[Any] | None:
    """The pydantic model of ``annotation``: the model itself or ``Optional[model]`` (instructor's
    rule for which values are built as models)."""
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in _UNION_ORIGINS:
        members = [member for member in get_args(annotation) if member is not type(None)]
        if len(members) == 1 and isinstance(members[0], type) and issubclass(members[0], BaseModel):
            return members[0]
    return None


_UNION_ORIGINS: tuple[Any, ...] = (Union, type(int | None))


def _list_item_model(annotation: Any) -> type[Any] | None:
    """The model of the items of a list field (only a bare ``list[...]`` field has its items built
    as models, as in instructor)."""
    if get_origin(annotation) is not list:
        return None
    arguments = get_args(annotation)
    return _model_in(arguments[0]) if arguments else None


class _Fields:
    """How instructor builds each field of one model, worked out once per model class."""

    __slots__ = ("items", "missing", "nested")

    def __init__(self, model: type[Any]) -> None:
        # Fields whose dict is built as a (partial) model, and lists whose items are.
        self.nested: dict[str, type[Any]] = {}
        self.items: dict[str, type[Any]] = {}
        # What an absent field holds: an empty partial of its model, None, or its default.
        self.missing: list[tuple[str, str, Any]] = []
        for name, info in model.model_fields.items():
            annotation = info.annotation
            nested = _model_in(annotation)
            if nested is not None:
                self.nested[name] = nested
            item_model = _list_item_model(annotation)
            if item_model is not None:
                self.items[name] = item_model
            if isinstance(annotation, type) and nested is annotation:
                self.missing.append((name, "model", annotation))
            elif info.is_required():
                self.missing.append((name, "none", None))
            else:
                self.missing.append((name, "default", info))


# Per class, bounded: models made on the fly (one per request, say) must not pile up (a weak key
# would not help: what is kept for a class refers to the class).
_CACHE_LIMIT = 256
_FIELDS: dict[type[Any], _Fields] = {}


def _cached(cache: dict[type[Any], Any], key: type[Any], make: Callable[[type[Any]], Any]) -> Any:
    value = cache.get(key)
    if value is None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        value = cache[key] = make(key)
    return value


def _fields(model: type[Any]) -> _Fields:
    fields: _Fields = _cached(_FIELDS, model, _Fields)
    return fields


class PartialBuilder:
    """The partial objects instructor yields for one stream of JSON text, built incrementally.

    ``feed(chunk)`` returns what instructor yields after that chunk: an instance of ``model`` made
    with ``model_construct`` while the text is incomplete (nested models that are complete, by
    instructor's rule that a value followed by a sibling is complete, validated), and
    ``model.model_validate(value)`` once the whole object is. ``finish(cut_off=...)`` validates the
    final object, or raises when the text never completed.

    Malformed text raises :class:`~tooljson.MalformedJSONError` in the chunk that makes it so. The
    values come from a :class:`~tooljson.PartialParser` in jiter's ``"trailing-strings"`` mode, which
    shares complete values between calls: what is built (or validated) for a complete value is kept
    by the value's identity and reused, so each chunk costs only the containers still open.
    """

    def __init__(self, model: type[Any], validation: dict[str, Any]) -> None:
        self.model = model
        self.validation = validation
        self.root_validation = {
            key: value for key, value in validation.items() if key in _ROOT_VALIDATION_KEYS
        }
        self.parser = PartialParser("trailing-strings")
        self.started = False
        self._held: list[str] = []
        self.last: Any = None
        self.yielded = False
        # The text is a whole object with data, and the last object its validation.
        self.whole = False
        # (id(value), model) -> (value, validated): the value is kept so that its id is not reused.
        self._built: dict[tuple[int, Any], tuple[Any, Any]] = {}
        # A list of models' place in the document -> its settled items and what was built for them.
        self._lists: dict[tuple[Any, ...], tuple[list[Any], list[Any]]] = {}

    # -- text

    def feed(self, chunk: Any) -> Any:
        """The partial object instructor yields after ``chunk``."""
        if not isinstance(chunk, str):
            chunk = str(chunk)
        chunk = chunk.translate(_CONTROL_CHARACTERS)
        if not self.started:
            # instructor parses the text stripped: leading whitespace is never part of it.
            chunk = chunk.lstrip()
        # Nor is trailing whitespace (which shortens a string still open): it is held back until
        # something else follows it.
        body = chunk.rstrip()
        if body:
            held = "".join(self._held)
            self._held.clear()
            self.parser.feed(held + body)
            self.started = True
            if self.parser.status.state == "malformed":
                raise self._parse_error()
        if len(body) < len(chunk):
            self._held.append(chunk[len(body) :])
        if self.yielded and (not body or self.whole):
            # The text instructor parses is unchanged, or a whole object was followed by whitespace.
            return self.last
        self.last = self._current()
        self.yielded = True
        return self.last

    def _parse_error(self) -> Exception:
        """tooljson's error for the text so far (malformed, or cut off), by the strict parser."""
        text = str(self.parser.text)
        try:
            loads(text, max_depth=RECURSION_LIMIT)
        except (MalformedJSONError, IncompleteJSONError) as error:
            return error
        status = self.parser.status
        position = status.pos if status.pos is not None else len(text)
        return MalformedJSONError(status.msg or "Invalid JSON", text, position)

    def _complete(self) -> bool:
        return not self.started or self.parser.status.state == "complete"

    def _value(self) -> Any:
        # An empty text stands for "{}" in instructor.
        return self.parser.value() if self.started else {}

    def _current(self) -> Any:
        value = self._value()
        complete = self._complete()
        has_data = bool(value) if isinstance(value, dict) else True
        if complete and has_data:
            self.whole = True
            return self.model.model_validate(value, **self.root_validation)
        return self._object(value, self.model, complete)

    def finish(self, *, cut_off: bool) -> Any:
        """The final object: the last one, validated against the full model.

        Raises instructor's ``IncompleteOutputException`` when the stream stopped at the token limit
        (``cut_off``) before the text was whole (or began), :class:`~tooljson.IncompleteJSONError`
        when the text stopped short otherwise, and pydantic's ``ValidationError`` when the whole
        object is not valid. No text at all stands for ``{}``, as in instructor.
        """
        complete = self._complete()
        if cut_off and not (complete and self.started):
            from instructor.core.exceptions import IncompleteOutputException

            raise IncompleteOutputException(last_completion=self.last)
        if not complete:
            raise self._parse_error()
        if self.whole and self.validation == self.root_validation:
            # The last object is this very validation of the same value.
            return self.last
        return self.model.model_validate(self._value(), **self.validation)

    # -- instructor's partial objects

    def _validated(self, model: type[Any], value: Any, validation: dict[str, Any]) -> Any:
        key = (id(value), model)
        cached = self._built.get(key)
        if cached is not None:
            return cached[1]
        built = model.model_validate(value, **validation)
        self._built[key] = (value, built)
        return built

    def _object(self, data: Any, model: type[Any], complete: bool, path: tuple[Any, ...] = ()) -> Any:
        if data is None:
            return None
        if not isinstance(data, dict):
            return data
        fields = _fields(model)
        result: dict[str, Any] = {}
        last = len(data) - 1
        for position, (name, value) in enumerate(data.items()):
            if value is None:
                result[name] = None
                continue
            # instructor's rule: a value followed by a sibling is complete, the last one is not known
            # to be until its container is.
            value_complete = complete or position < last
            nested = fields.nested.get(name)
            if nested is not None and value_complete:
                result[name] = self._validated(nested, value, self.validation)
            elif isinstance(value, dict):
                result[name] = (
                    self._object(value, nested, value_complete, (*path, name))
                    if nested is not None
                    else value
                )
            elif isinstance(value, list):
                result[name] = self._list(value, fields.items.get(name), value_complete, (*path, name))
            else:
                result[name] = value
        for name, kind, source in fields.missing:
            if name in result:
                continue
            if kind == "model":
                result[name] = self._object({}, source, False)
            elif kind == "none":
                result[name] = None
            else:
                result[name] = source.get_default(call_default_factory=True)
        return model.model_construct(**result)

    def _list(
        self, items: list[Any], item_model: type[Any] | None, complete: bool, path: tuple[Any, ...]
    ) -> list[Any]:
        if item_model is None:
            # Nothing is built in a list of anything but models; each partial has its own list.
            return list(items)
        # The items known to be complete (all but the last while the list is open) never change:
        # what was built for them is kept by the list's place in the document and only extended.
        settled = len(items) if complete or not items else len(items) - 1
        raw, built = self._lists.get(path) or ([], [])
        if len(raw) > settled or items[: len(raw)] != raw:
            # Another list at the same place (a repeated key): built anew.
            raw, built = [], []
        for position in range(len(raw), settled):
            item = items[position]
            raw.append(item)
            built.append(
                self._validated(item_model, item, self.validation) if isinstance(item, dict) else item
            )
        self._lists[path] = (raw, built)
        result = list(built)
        if settled < len(items):
            item = items[settled]
            result.append(
                self._object(item, item_model, False, (*path, settled)) if isinstance(item, dict) else item
            )
        return result
