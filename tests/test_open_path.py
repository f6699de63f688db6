"""open_path: the one value being filled; everything else in the preview is complete.

Checked against the structural events: after every fragment, each value the preview shows is either
reported complete or lies on the open path, and nothing on the open path was reported complete.
"""

from __future__ import annotations

import json
import random
from typing import Any

import tooljson
from hypothesis import given, settings
from hypothesis import strategies as st
from test_events import fragments_of, json_values


def shown_paths(value: Any, path: tuple[Any, ...] = ()) -> set[tuple[Any, ...]]:
    paths = {path}
    if isinstance(value, dict):
        for key, item in value.items():
            paths |= shown_paths(item, (*path, key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            paths |= shown_paths(item, (*path, position))
    return paths


def check_open_path(text: str, fragments: list[str]) -> None:
    parser = tooljson.Parser(events=True)
    complete: set[tuple[Any, ...]] = set()
    for fragment in fragments:
        parser.feed(fragment)
        complete |= {event.path for event in parser.events() if event.kind == "complete"}
        preview = parser.preview()
        open_path = parser.open_path()
        on_path = set() if open_path is None else {open_path[:n] for n in range(len(open_path) + 1)}
        assert not on_path & complete, (fragment, open_path)
        if preview is not None:
            assert shown_paths(preview) <= complete | on_path, (text, open_path)
    parser.finish()
    assert parser.open_path() is None


@settings(max_examples=150, deadline=None)
@given(value=json_values, seed=st.integers(0, 2**32))
def test_open_path_splits_the_preview_into_complete_and_open(value: Any, seed: int) -> None:
    text = json.dumps(value)
    check_open_path(text, fragments_of(text, random.Random(seed), 6))
    check_open_path(text, list(text))


def test_open_path_follows_the_value_being_filled() -> None:
    parser = tooljson.Parser()
    steps = [
        ("", None),
        ('{"a": [1, {"b": "x', ("a", 1, "b")),
        ('y"', ("a", 1)),
        ("}, 2", ("a",)),
        ("]", ()),
        (', "c": "', ("c",)),
        ('"}', None),
    ]
    for fragment, expected in steps:
        parser.feed(fragment)
        assert parser.open_path() == expected, fragment


def test_open_path_per_accumulator_index() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "a", "id0")
    accumulator.start(3, "b", "id3")
    accumulator.add_delta(0, '{"path": "no')
    accumulator.add_delta(3, "[[1, ")
    assert accumulator.open_path(0) == ("path",)
    assert accumulator.open_path(3) == (0,)
    assert accumulator.open_path(0) == ("path",)
