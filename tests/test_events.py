"""Structural events: replaying them rebuilds the strict result, in document order, with exact values."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import tooljson
from helpers import corpus_texts, has_duplicate_keys, same_json
from hypothesis import given, settings
from hypothesis import strategies as st


def post_order_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every value in the order their last character comes in the text."""
    paths: list[tuple[Any, ...]] = []
    if isinstance(value, list):
        for position, item in enumerate(value):
            paths.extend(post_order_paths(item, (*path, position)))
    elif isinstance(value, dict):
        for key, item in value.items():
            paths.extend(post_order_paths(item, (*path, key)))
    paths.append(path)
    return paths


def lookup(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


class Rebuilt:
    """Applies events to an empty document, holding fresh objects (never the parser's own)."""

    def __init__(self) -> None:
        self.root: Any = None
        self.strings: dict[tuple[Any, ...], list[str]] = {}

    def _set(self, path: tuple[Any, ...], value: Any) -> None:
        if not path:
            self.root = value
            return
        parent = lookup(self.root, path[:-1])
        if isinstance(parent, list):
            position = path[-1]
            assert position in (len(parent), len(parent) - 1), f"array position {position} out of order"
            if position == len(parent):
                parent.append(value)
            else:
                parent[position] = value
        else:
            parent[path[-1]] = value

    def apply(self, event: tooljson.Event) -> None:
        path = event.path
        if event.kind == "begin":
            fresh = {"object": {}, "array": [], "string": ""}[event.value]
            self._set(path, fresh)
            if event.value == "string":
                self.strings[path] = []
        elif event.kind == "append":
            self.strings[path].append(event.value)
            self._set(path, "".join(self.strings[path]))
        else:
            if isinstance(event.value, (list, dict)):
                # Containers were built up member by member; their completion only confirms them.
                assert same_json(lookup(self.root, path), event.value)
            else:
                if path in self.strings:
                    assert "".join(self.strings.pop(path)) == event.value, "appends do not add up"
                self._set(path, event.value)


def fragments_of(text: str, rng: random.Random, largest: int) -> list[str]:
    pieces, at = [], 0
    while at < len(text):
        size = rng.randint(1, largest)
        pieces.append(text[at : at + size])
        at += size
    return pieces


def check_events(text: str, fragments: list[str]) -> None:
    parser = tooljson.Parser(events=True)
    events: list[tooljson.Event] = []
    for fragment in fragments:
        parser.feed(fragment)
        events.extend(parser.events())
    result = parser.finish()
    events.extend(parser.events())
    expected = json.loads(text)
    assert same_json(result, expected)

    rebuilt = Rebuilt()
    for event in events:
        rebuilt.apply(event)
    assert same_json(rebuilt.root, expected)

    completed = [event for event in events if event.kind == "complete"]
    # A repeated key's earlier value is a sub-document json.loads drops, so only texts without
    # repeated keys can be compared path by path with the final value.
    if not has_duplicate_keys(text):
        for event in completed:
            assert same_json(event.value, lookup(expected, event.path)), event
        assert [event.path for event in completed] == post_order_paths(expected)


def _accepted() -> list[tuple[str, str]]:
    found = []
    for name, text in corpus_texts():
        try:
            json.loads(text)
        except (ValueError, RecursionError):
            continue
        if len(text) < 5000 and text.count("[") < 100:
            found.append((name, text))
    return found


ACCEPTED = _accepted()


@pytest.mark.parametrize(("name", "text"), ACCEPTED, ids=[name for name, _ in ACCEPTED])
def test_events_rebuild_every_accepted_file(name: str, text: str) -> None:
    check_events(text, list(text))
    check_events(text, [text])
    check_events(text, fragments_of(text, random.Random(name), 7))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=6), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=150, deadline=None)
@given(value=json_values, seed=st.integers(0, 2**32), ensure_ascii=st.booleans())
def test_events_rebuild_generated_documents(value: Any, seed: int, ensure_ascii: bool) -> None:
    text = json.dumps(value, ensure_ascii=ensure_ascii)
    check_events(text, fragments_of(text, random.Random(seed), 6))


def test_a_string_is_complete_the_moment_its_closing_quote_arrives() -> None:
    parser = tooljson.Parser(events=True)
    parser.feed('{"path": "notes.md", "content": "# Tit')
    kinds = [(event.kind, event.pointer) for event in parser.events()]
    assert ("complete", "/path") in kinds
    assert ("begin", "/content") in kinds
    parser.feed('le"')
    assert [(event.kind, event.pointer, event.value) for event in parser.events()] == [
        ("append", "/content", "le"),
        ("complete", "/content", "# Title"),
    ]


def test_a_number_is_complete_once_the_character_after_it_arrives() -> None:
    parser = tooljson.Parser(events=True)
    parser.feed('{"n": 12')
    assert [event.kind for event in parser.events()] == ["begin"]
    parser.feed("3,")
    assert [(event.kind, event.path, event.value) for event in parser.events()] == [("complete", ("n",), 123)]


def test_pointer_escapes_tilde_and_slash() -> None:
    parser = tooljson.Parser(events=True)
    parser.feed('{"a/b": {"m~n": [true]}}')
    pointers = [event.pointer for event in parser.events() if event.kind == "complete"]
    assert pointers == ["/a~1b/m~0n/0", "/a~1b/m~0n", "/a~1b", ""]


def test_callback_sees_the_same_events_and_may_call_back_into_the_parser() -> None:
    seen: list[tuple[str, tuple[Any, ...]]] = []
    previews: list[Any] = []
    parser: tooljson.Parser

    def on_event(event: tooljson.Event) -> None:
        seen.append((event.kind, event.path))
        previews.append(parser.preview())

    parser = tooljson.Parser(on_event=on_event)
    pull = tooljson.Parser(events=True)
    text = '{"a": [1, "two"], "b": null}'
    pulled = []
    for fragment in fragments_of(text, random.Random(3), 4):
        parser.feed(fragment)
        pull.feed(fragment)
        pulled.extend((event.kind, event.path) for event in pull.events())
    parser.finish()
    pull.finish()
    pulled.extend((event.kind, event.path) for event in pull.events())
    assert seen == pulled
    assert parser.events() == []
    assert previews[-1] == {"a": [1, "two"], "b": None}


def test_accumulator_events_per_index_and_callback_with_index() -> None:
    received: list[tuple[int, str, str]] = []
    accumulator = tooljson.ToolCallAccumulator(
        on_event=lambda index, event: received.append((index, event.kind, event.pointer))
    )
    accumulator.start(0, "a", "t0")
    accumulator.start(2, "b", "t2")
    accumulator.add_delta(0, '{"x": ')
    accumulator.add_delta(2, '{"y": "h')
    accumulator.add_delta(0, "1}")
    accumulator.add_delta(2, 'i"}')
    assert accumulator.finish(0)["input"] == {"x": 1}
    assert accumulator.finish(2)["input"] == {"y": "hi"}
    assert [item for item in received if item[0] == 0] == [
        (0, "begin", ""),
        (0, "complete", "/x"),
        (0, "complete", ""),
    ]
    assert [item for item in received if item[0] == 2] == [
        (2, "begin", ""),
        (2, "begin", "/y"),
        (2, "append", "/y"),
        (2, "append", "/y"),
        (2, "complete", "/y"),
        (2, "complete", ""),
    ]


def test_events_must_be_switched_on() -> None:
    with pytest.raises(ValueError, match="events=True"):
        tooljson.Parser().events()
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "t", "id")
    with pytest.raises(ValueError, match="events=True"):
        accumulator.events(0)


def test_malformed_text_stops_the_events() -> None:
    parser = tooljson.Parser(events=True)
    parser.feed('[1, "a"')
    parser.events()
    with pytest.raises(tooljson.MalformedJSONError):
        parser.feed(" x")
    assert parser.events() == []


def test_events_caused_by_finish_can_still_be_pulled_once() -> None:
    accumulator = tooljson.ToolCallAccumulator(events=True)
    accumulator.start(0, "count", "toolu_1")
    accumulator.add_delta(0, "4")
    accumulator.add_delta(0, "2")
    assert accumulator.events(0) == []
    assert accumulator.finish(0)["input"] == 42
    assert [(event.kind, event.path, event.value) for event in accumulator.events(0)] == [
        ("complete", (), 42)
    ]
    with pytest.raises(KeyError):
        accumulator.events(0)
