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

This module holds the stream (the twin's class methods, which feed instructor's JSON pieces to a
builder and watch the provider's stop reason) and the client (the copy whose ``create`` and
``create_partial`` hand instructor the twin); :mod:`tooljson.acceleration.instructor.partials`
builds the partials.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterable, Iterator
from typing import Any, ClassVar

from tooljson.extras import require
from tooljson.providers.registry import SOURCES, recognise

from .partials import PartialBuilder, _cached

__all__ = ["KNOWN_VERSIONS", "PartialBuilder", "accelerated_instructor", "is_instructor_client"]

KNOWN_VERSIONS = ("1.17.",)
"""The instructor releases whose partial streaming this module mirrors (tested with 1.17.0)."""


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
    cls: type[Any],
    completion: Iterable[Any],
    stream_extractor: Callable[[Iterable[Any]], Iterable[Any]],
    kwargs: dict[str, Any],
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
    cls: type[Any],
    completion: AsyncIterator[Any],
    stream_extractor: Callable[[AsyncIterator[Any]], AsyncIterator[Any]],
    kwargs: dict[str, Any],
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

    twin = create_model(
        partial.__name__, __base__=(AcceleratedPartial, partial, IterableBase), __module__=partial.__module__
    )
    twin._original_model = partial._original_model  # noqa: SLF001 - instructor reads it back from the class
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
            async for item in await sdk_create(
                _partial_of(response_model), *args, **{**kwargs, "stream": True}
            ):
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
    served = sorted(
        source.name for source in SOURCES if source.accelerated and source.stop_reason_of is not None
    )
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
