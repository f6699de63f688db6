"""The Event class: its fields, value semantics, and how it lives with the cycle collector."""

from __future__ import annotations

import copy
import gc
import pickle
import weakref
from typing import Any

import pytest
import tooljson
from tooljson import Event


def events_of(text: str) -> list[Event]:
    parser = tooljson.Parser(events=True)
    parser.feed(text)
    parser.finish()
    return parser.events()


def test_fields_unpacking_and_match() -> None:
    event = Event("complete", ["a", 0], 1.5)
    assert (event.kind, event.path, event.value) == ("complete", ("a", 0), 1.5)
    kind, path, value = event
    assert (kind, path, value) == ("complete", ("a", 0), 1.5)
    match event:
        case Event("complete", ("a", position), number):
            assert (position, number) == (0, 1.5)
        case _:
            pytest.fail("positional match failed")


def test_value_semantics() -> None:
    event = Event("append", ("text",), "abc")
    same = Event("append", ("text",), "abc")
    assert event == same and not event != same
    assert hash(event) == hash(same)
    assert event != Event("append", ("text",), "abd")
    assert event != ("append", ("text",), "abc"), "an event is not a tuple"
    assert repr(event) == "Event(kind='append', path=('text',), value='abc')"
    assert pickle.loads(pickle.dumps(event)) == event
    assert copy.deepcopy(event) == event
    with pytest.raises(AttributeError):
        event.kind = "begin"  # type: ignore[misc]


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="'begin', 'append' or 'complete'"):
        Event("changed", (), None)


def test_unhashable_value_makes_an_unhashable_event() -> None:
    with pytest.raises(TypeError):
        hash(Event("complete", (), {"a": 1}))


def test_pointer_of_integer_and_escaped_parts() -> None:
    assert Event("complete", (), None).pointer == ""
    assert Event("complete", ("a/b", 3, "m~n", ""), None).pointer == "/a~1b/3/m~0n/"


def test_events_of_atomic_values_stay_off_the_collector() -> None:
    """Events and paths that can hold no container are untracked, like CPython's atomic tuples."""
    for event in events_of('{"list": [1, "two", null, 2.5, true], "obj": {}}'):
        assert not gc.is_tracked(event.path), event
        holds_container = isinstance(event.value, (list, dict))
        assert gc.is_tracked(event) == holds_container, event


def test_a_cycle_through_a_container_event_is_collected() -> None:
    class Witness:
        pass

    parser = tooljson.Parser(events=True)
    parser.feed('{"a": 1}')
    root: dict[str, Any] = parser.finish()
    (root_event,) = [event for event in parser.events() if event.kind == "complete" and event.path == ()]
    witness = Witness()
    gone = weakref.ref(witness)
    root["witness"] = witness
    root["event"] = root_event  # root -> event -> root
    del root, root_event, witness, parser
    gc.collect()
    assert gone() is None


def test_recycled_events_are_tracked_exactly_when_they_can_hold_a_container() -> None:
    """Event objects are recycled; a recycled one is tracked again when it can be in a cycle."""
    for _ in range(3):
        recycled = events_of('{"a": [1, "two", null], "b": {}}')
        del recycled  # their objects go back to be made again below
        events = events_of('{"list": [1, "two"], "obj": {}}')
        for event in events:
            assert gc.is_tracked(event) == isinstance(event.value, (list, dict)), event
        made = [Event("complete", (), []) for _ in range(20)] + [
            Event("begin", ["a"], "object") for _ in range(20)
        ]
        assert all(gc.is_tracked(event) for event in made)


def test_a_cycle_through_a_recycled_constructed_event_is_collected() -> None:
    class Witness:
        pass

    spare = events_of("[1, 2, 3, 4, 5, 6, 7, 8]")
    del spare  # recycled objects are handed out next
    holder: list[Any] = [Witness()]
    gone = weakref.ref(holder[0])
    holder.append(Event("complete", (), holder))  # holder -> event -> holder
    del holder
    gc.collect()
    assert gone() is None
