"""``tooljson.accelerate(instructor_client)``: instructor's partial streaming in linear time.

instructor 1.17 streams a ``Partial[M]`` by re-parsing the whole text received so far three times
per chunk and rebuilding the partial object from it, validating every nested model that is already
complete again on every chunk: a 50 KB output costs seconds to minutes of CPU. A stream cut off at
the token limit ends on an unvalidated partial, malformed text fails inside jiter, and the sync
clients collect the whole stream in a list before the first partial is seen.

An accelerated client is a copy of the instructor client (same class, same SDK client, request
building, hooks, modes and retries) whose ``create_partial(...)`` and
``create(..., response_model=Partial[M], stream=True)`` hand instructor a twin of its own
``Partial[M]`` class. The twin subclasses instructor's class (so ``PartialBase``, the schema and the
tool name are instructor's) and reads the JSON pieces that instructor's own stream extractor takes
from the provider's chunks with :class:`tooljson.PartialParser` (jiter's partial values, each
fragment read once), and builds each partial exactly as instructor builds it, rebuilding only the
containers still open: a value that is complete is built (and a complete nested model validated)
once.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterable, Iterator
from typing import Any, ClassVar, Union, get_args, get_origin

from tooljson._native import loads
from tooljson.compat import PartialParser
from tooljson.compat.jiter_reference import RECURSION_LIMIT
from tooljson.errors import IncompleteJSONError, MalformedJSONError
from tooljson.extras import require
from tooljson.providers.registry import SOURCES, recognise

__all__ = ["KNOWN_VERSIONS", "PartialBuilder", "accelerated_instructor", "is_instructor_client"]

KNOWN_VERSIONS = ("1.17.",)
"""The instructor releases whose partial streaming this module mirrors (tested with 1.17.0)."""

# instructor strips these from every chunk before parsing (its ``remove_control_chars``).
_CONTROL_CHARACTERS = dict.fromkeys([*range(0x20), *range(0x7F, 0xA0)])
# The keyword arguments instructor passes on when it validates a whole root object.
_ROOT_VALIDATION_KEYS = frozenset({"context", "strict", "extra", "from_attributes", "by_alias", "by_name"})


def is_instructor_client(client: Any) -> bool:
    """Whether ``client`` is an ``instructor.Instructor`` (or ``AsyncInstructor``); instructor is
    never imported to find out."""
    if "instructor" not in sys.modules:
        return False
    from instructor import Instructor

    return isinstance(client, Instructor)


def _check_version() -> None:
    require("tooljson.accelerate for instructor clients", "instructor")
    import instructor

    version = getattr(instructor, "__version__", "unknown")
    if not version.startswith(KNOWN_VERSIONS):
        raise RuntimeError(
            f"tooljson.accelerate knows the partial streaming of instructor 1.17 (tested with 1.17.0), "
            f"not instructor {version}; install instructor>=1.17,<1.18 or leave the client unaccelerated"
        )


# --- building a partial as instructor builds it ------------------------------------------------------


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
        self.root_validation = {key: value for key, value in validation.items() if key in _ROOT_VALIDATION_KEYS}
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
                result[name] = self._object(value, nested, value_complete, (*path, name)) if nested is not None else value
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

    def _list(self, items: list[Any], item_model: type[Any] | None, complete: bool, path: tuple[Any, ...]) -> list[Any]:
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
            built.append(self._validated(item_model, item, self.validation) if isinstance(item, dict) else item)
        self._lists[path] = (raw, built)
        result = list(built)
        if settled < len(items):
            item = items[settled]
            result.append(self._object(item, item_model, False, (*path, settled)) if isinstance(item, dict) else item)
        return result


# --- the stream --------------------------------------------------------------------------------------


class _StopReason:
    """The stop reason the provider's chunks carry, seen as they pass to instructor's extractor."""

    def __init__(self) -> None:
        self.cut_off = False

    def see(self, chunk: Any) -> None:
        source = recognise(chunk)
        if source is not None and source.cuts_off(chunk):
            self.cut_off = True

    def watch(self, completion: Iterable[Any]) -> Generator[Any, None, None]:
        for chunk in completion:
            self.see(chunk)
            yield chunk

    async def awatch(self, completion: AsyncIterator[Any]) -> AsyncGenerator[Any, None]:
        async for chunk in completion:
            self.see(chunk)
            yield chunk


def _partials(
    cls: type[Any], completion: Iterable[Any], stream_extractor: Callable[[Iterable[Any]], Iterable[Any]], kwargs: dict[str, Any]
) -> Iterator[Any]:
    stop = _StopReason()
    builder = PartialBuilder(cls._original_model, kwargs)
    watched = stop.watch(completion)
    chunks = iter(stream_extractor(watched))
    try:
        for chunk in chunks:
            if chunk is not None:
                yield builder.feed(chunk)
        builder.finish(cut_off=stop.cut_off)
    finally:
        # A stream left early (an error, or a caller that stopped iterating) releases its
        # connection now rather than when the garbage collector finds it.
        for opened in (chunks, watched, completion):
            close = getattr(opened, "close", None)
            if callable(close):
                close()


async def _apartials(
    cls: type[Any], completion: AsyncIterator[Any], stream_extractor: Callable[[AsyncIterator[Any]], AsyncIterator[Any]], kwargs: dict[str, Any]
) -> AsyncIterator[Any]:
    stop = _StopReason()
    builder = PartialBuilder(cls._original_model, kwargs)
    watched = stop.awatch(completion)
    chunks = stream_extractor(watched)
    try:
        async for chunk in chunks:
            if chunk is not None:
                yield builder.feed(chunk)
        builder.finish(cut_off=stop.cut_off)
    finally:
        # As above; an async generator left open would be closed later by the event loop, after
        # the one below it.
        for opened in (chunks, watched):
            aclose = getattr(opened, "aclose", None)
            if callable(aclose):
                await aclose()
        close = getattr(completion, "close", None)
        if callable(close):
            closing = close()
            if inspect.isawaitable(closing):
                await closing


class AcceleratedPartial:
    """The streaming half of an accelerated ``Partial[M]``: instructor's handlers call these two
    class methods with the provider's stream and their own JSON extractor."""

    _tooljson_accelerated: ClassVar[bool] = True

    @classmethod
    def from_streaming_response(
        cls, completion: Iterable[Any], stream_extractor: Any, chunk_parser: Any = None, **kwargs: Any
    ) -> Iterator[Any]:
        """The partial objects, one per JSON piece, as the pieces arrive."""
        if stream_extractor is None:
            raise ValueError("stream_extractor is required for streaming responses")
        return _partials(cls, completion, stream_extractor, kwargs)

    @classmethod
    def from_streaming_response_async(
        cls, completion: AsyncIterator[Any], stream_extractor: Any, chunk_parser: Any = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """The partial objects of an async stream, one per JSON piece, as the pieces arrive."""
        if stream_extractor is None:
            raise ValueError("stream_extractor is required for streaming responses")
        return _apartials(cls, completion, stream_extractor, kwargs)


_TWINS: dict[type[Any], type[Any]] = {}
_TWINS_OF_MODELS: dict[type[Any], type[Any]] = {}


def accelerated_partial(partial: type[Any]) -> type[Any]:
    """The twin of instructor's ``Partial[M]`` class ``partial``: a subclass of it, of the same
    name and fields (so the same schema and tool name), whose stream is read by tooljson.

    It is an ``IterableBase`` too: instructor's handlers then hand its generator back as it is
    instead of collecting a sync stream into a list first.
    """
    if getattr(partial, "_tooljson_accelerated", False):
        return partial
    require("tooljson's instructor partials", "instructor")
    twin: type[Any] = _cached(_TWINS, partial, _make_twin)
    return twin


def _make_twin(partial: type[Any]) -> type[Any]:
    from instructor.v2.dsl.iterable import IterableBase
    from pydantic import create_model

    twin = create_model(partial.__name__, __base__=(AcceleratedPartial, partial, IterableBase), __module__=partial.__module__)
    twin._original_model = partial._original_model
    twin.__doc__ = partial.__doc__
    return twin


def _twin_of_model(model: type[Any]) -> type[Any]:
    from instructor import Partial

    return accelerated_partial(Partial[model])


def _partial_of(model: type[Any]) -> type[Any]:
    twin: type[Any] = _cached(_TWINS_OF_MODELS, model, _twin_of_model)
    return twin


def _is_partial(response_model: Any) -> bool:
    from instructor.v2.dsl.partial import PartialBase

    return isinstance(response_model, type) and issubclass(response_model, PartialBase)


# --- the client --------------------------------------------------------------------------------------


def _install(client: Any) -> None:
    from instructor import AsyncInstructor

    sdk_create = type(client).create.__get__(client)

    def swapped(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if not kwargs.get("stream"):
            return args, kwargs
        if args:
            if _is_partial(args[0]):
                args = (accelerated_partial(args[0]), *args[1:])
        elif _is_partial(kwargs.get("response_model")):
            kwargs = {**kwargs, "response_model": accelerated_partial(kwargs["response_model"])}
        return args, kwargs

    if isinstance(client, AsyncInstructor):

        @functools.wraps(sdk_create)
        async def create(*args: Any, **kwargs: Any) -> Any:
            args, kwargs = swapped(args, kwargs)
            return await sdk_create(*args, **kwargs)

        @functools.wraps(type(client).create_partial)
        async def acreate_partial(response_model: type[Any], *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            async for item in await sdk_create(_partial_of(response_model), *args, **{**kwargs, "stream": True}):
                yield item

        vars(client)["create"] = create
        vars(client)["create_partial"] = acreate_partial
        return

    @functools.wraps(sdk_create)
    def sync_create(*args: Any, **kwargs: Any) -> Any:
        args, kwargs = swapped(args, kwargs)
        return sdk_create(*args, **kwargs)

    @functools.wraps(type(client).create_partial)
    def create_partial(response_model: type[Any], *args: Any, **kwargs: Any) -> Any:
        return sdk_create(_partial_of(response_model), *args, **{**kwargs, "stream": True})

    vars(client)["create"] = sync_create
    vars(client)["create_partial"] = create_partial


def accelerated_instructor(client: Any) -> Any:
    """A copy of the instructor client ``client`` (same class, sharing its SDK client, defaults and
    hooks) whose partial streaming is tooljson's; ``client`` itself is left as it was."""
    _check_version()
    from instructor.v2.core.mode import Mode

    provider = getattr(client, "provider", None)
    mode = getattr(client, "mode", None)
    # The providers whose stop reasons are watched (the accelerated sources, whose chunks say their stop
    # reason: instructor names them as tooljson does), in the modes whose stream is tested.
    served = sorted(source.name for source in SOURCES if source.accelerated and source.stop_reason_of is not None)
    if getattr(provider, "value", None) not in served or mode not in (
        Mode.TOOLS,
        Mode.JSON,
        Mode.ANTHROPIC_TOOLS,
        Mode.ANTHROPIC_JSON,
    ):
        made_by = " or ".join(f"from_{name}" for name in served)
        raise TypeError(
            f"tooljson.accelerate serves instructor clients made by {made_by} in the "
            f"TOOLS, JSON, ANTHROPIC_TOOLS or ANTHROPIC_JSON mode, not {provider!r} in {mode!r}"
        )
    # copy.copy() would loop through the client's __getattr__ (it forwards every missing name to the
    # SDK client, the copy's too before its state is in place): the state is copied by hand.
    copied = object.__new__(type(client))
    vars(copied).update(vars(client))
    _install(copied)
    return copied
