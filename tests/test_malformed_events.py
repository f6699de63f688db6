"""Events of the wrong shape, for every registered source: a valid stream with one event mutated (a
field dropped, given another type, nested one level too deep, a list cut short, an object's attribute
replaced) is read or refused with :class:`tooljson.MalformedEvent`, never with an error leaking from
an adapter (``AttributeError``, ``TypeError``, ``KeyError``, ``IndexError``, a bare ``ValueError``),
and in time linear in the stream."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("langchain_core")
pytest.importorskip("pydantic_ai")
pytest.importorskip("google.genai")

import tooljson
from test_sources_shared import events_of
from tooljson.errors import is_event
from tooljson.providers import registry

CALLS = [['{"city": "Pa', 'ris"}'], ['{"n": [1, ', "2]}"]]


def _stamped(events: list[Any]) -> list[Any]:
    """pydantic-ai's look-alike events stamped with an origin, as pydantic-ai 2.78 stamps its own."""
    for event in events:
        event.origin = SimpleNamespace(run_id="r", run_step=1, attempt=1, execution_attempt=1)
    return events


def stream_of(name: str, objects: bool) -> list[Any]:
    """A valid stream of the source ``name``, from its own builders (``Source.streams``): as plain
    data (dicts, or look-alike objects where the source reads objects) or as its SDK's objects."""
    each = registry.source(name)
    if each.streams is None:
        pytest.fail(f"source {name!r} names no stream builders (Source.streams): it cannot be tested here")
    events = events_of(each, CALLS, sdk=objects)
    return _stamped(events) if name == "pydantic-ai" and not objects else events


WRONG_VALUES: tuple[Any, ...] = (None, 7, -1, True, 2.5, "x", "", [], [1], {}, {"x": 1})
_LEAVES = (str, int, float, bool, type(None))


def _places(value: Any, path: tuple[Any, ...] = (), depth: int = 0) -> list[tuple[Any, ...]]:
    """Every place inside ``value`` (a key of a dict, an item of a list, an attribute of an object)."""
    if depth > 6 or isinstance(value, _LEAVES):
        return []
    if isinstance(value, dict):
        children = list(value.items())
    elif isinstance(value, list):
        children = list(enumerate(value))
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        children = [(key, item) for key, item in vars(value).items() if not key.startswith("_")]
    else:
        return []
    found = []
    for key, item in children:
        found.append((*path, key))
        found += _places(item, (*path, key), depth + 1)
    return found


def _holder(event: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        event = event[key] if isinstance(event, (dict, list)) else vars(event)[key]
    return event


def _get(holder: Any, key: Any) -> Any:
    return holder[key] if isinstance(holder, (dict, list)) else vars(holder)[key]


def _set(holder: Any, key: Any, value: Any) -> None:
    if isinstance(holder, (dict, list)):
        holder[key] = value
    else:
        # Past any validation or freezing: the object an SDK would never make, and a look-alike could.
        vars(holder)[key] = value


def _mutate(event: Any, path: tuple[Any, ...], operation: str, wrong: Any) -> str:
    """Change ``event`` in place at ``path``; say what was done."""
    holder = _holder(event, path)
    key = path[-1]
    where = ".".join(str(step) for step in path)
    if operation == "drop":
        if isinstance(holder, (dict, list)):
            del holder[key]
        else:
            del vars(holder)[key]
        return f"dropped {where}"
    if operation == "nest":
        _set(holder, key, [_get(holder, key)] if isinstance(wrong, list) else {"value": _get(holder, key)})
        return f"nested {where}"
    if operation == "truncate":
        value = _get(holder, key)
        if isinstance(value, (list, str)) and value:
            _set(holder, key, value[: len(value) // 2])
            return f"truncated {where}"
    _set(holder, key, copy.deepcopy(wrong))
    return f"set {where} to {wrong!r}"


FORMS = [(name, objects) for name in registry.NAMES for objects in (False, True)]


def _feed_all(feed: Callable[[Any], Any], events: list[Any]) -> tuple[int, BaseException | None]:
    """Feed ``events`` until one is refused; which one, and the error (``None``: all were read)."""
    for at, event in enumerate(events):
        try:
            feed(event)
        except tooljson.MalformedEvent as error:
            return at, error
        except TypeError as error:
            # The documented refusal of what is no event at all: an object without a ``type``.
            if is_event(event) or not str(error).startswith("expected a"):
                raise
            return at, error
    return len(events), None


def _names(message: str, event: Any, path: tuple[Any, ...]) -> bool:
    """Whether ``message`` names a field on ``path``, or the event (its type or class), or what it
    looked like when no source recognises it any more."""
    if "is no registered source's event" in message:
        return True
    kind = event.get("type") if isinstance(event, dict) else getattr(event, "type", None)
    if isinstance(kind, str) and kind in message or type(event).__name__ in message:
        return True
    # The field changed, one holding it, or (a change that makes the event mean another thing: a new
    # response id, and so a piece of a call never opened) another field of the event, that it names.
    steps = {step for place in (path, *_places(event)) for step in place if isinstance(step, str)}
    return any(step in message or step.rstrip("s") in message for step in steps)


@pytest.mark.parametrize("name", registry.NAMES)
def test_every_source_has_valid_streams_that_read_without_error(name: str) -> None:
    for objects in (False, True):
        events = stream_of(name, objects)
        reader = tooljson.TurnReader()
        reader.feed_all(events)
        assert reader.provider == name
        assert reader.calls, (name, objects)


@pytest.mark.parametrize(("name", "objects"), FORMS)
# An SDK object given a field of another type warns when it is dumped; it is read all the same.
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_mutated_event_is_read_or_refused_as_a_malformed_event(
    name: str, objects: bool, data: st.DataObject
) -> None:
    events = stream_of(name, objects)
    at = data.draw(st.integers(0, len(events) - 1), label="event")
    places = _places(events[at])
    if not places:
        return
    path = data.draw(st.sampled_from(places), label="path")
    operation = data.draw(st.sampled_from(["drop", "wrong", "nest", "truncate"]), label="operation")
    wrong = data.draw(st.sampled_from(WRONG_VALUES), label="wrong")
    events[at] = copy.deepcopy(events[at])
    done = _mutate(events[at], path, operation, wrong)
    for reader in (tooljson.TurnReader, tooljson.ToolCallAccumulator):
        sink = reader().feed
        started = time.perf_counter()
        try:
            refused, error = _feed_all(sink, events)
        except Exception as leaked:
            raise AssertionError(
                f"{name} ({'objects' if objects else 'plain'}) through {reader.__name__}, event {at}: {done}: "
                f"{type(leaked).__name__}: {leaked}"
            ) from leaked
        assert time.perf_counter() - started < 2.0, (name, done)
        if error is not None:
            message = str(error)
            assert message.strip() and len(message) < 1000, (done, message)
            if isinstance(error, tooljson.MalformedEvent) and refused == at:
                # The event changed is refused naming the field changed, or one that holds it. (A later
                # event may be refused instead: a delta for the call whose start was changed.)
                assert _names(message, events[at], path), (done, message)
