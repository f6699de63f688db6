"""The preview's guarantees, checked between every two consecutive previews of a stream."""

from __future__ import annotations

import copy
import json
import math
import random
from typing import Any

import pytest
import tooljson
from helpers import corpus_texts, has_duplicate_keys, same_json
from hypothesis import given, settings
from hypothesis import strategies as st


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _accepted_texts() -> list[tuple[str, str]]:
    texts = []
    for name, text in corpus_texts():
        if len(text) > 5000:
            continue
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            continue
        # copy.deepcopy and the recursive checks here recurse per level; the deep files are covered
        # by the conformance tests.
        if _depth(value) <= 100:
            texts.append((name, text))
    return texts


def _rejected_texts() -> list[tuple[str, str]]:
    texts = []
    for name, text in corpus_texts():
        if len(text) > 5000:
            continue
        try:
            json.loads(text)
        except json.JSONDecodeError:
            texts.append((name, text))
        except (ValueError, RecursionError):
            continue
    return texts


ACCEPTED = _accepted_texts()
REJECTED = _rejected_texts()


def check_growth(old: Any, new: Any, where: str = "$") -> None:
    """`new` is a valid successor of `old` under the preview's guarantees."""
    if old is None:
        return
    assert type(new) is type(old), f"{where}: type changed from {type(old)} to {type(new)}"
    if isinstance(old, str):
        assert new.startswith(old), f"{where}: string shrank or changed: {old!r} -> {new!r}"
    elif isinstance(old, list):
        assert len(new) >= len(old), f"{where}: array shrank"
        for position, (before, after) in enumerate(zip(old, new)):
            if position < len(old) - 1:
                assert same_json(before, after), f"{where}[{position}]: a member before the last changed"
            else:
                check_growth(before, after, f"{where}[{position}]")
    elif isinstance(old, dict):
        old_keys, new_keys = list(old), list(new)
        assert new_keys[: len(old_keys)] == old_keys, f"{where}: keys vanished or moved"
        for position, key in enumerate(old_keys):
            if position < len(old_keys) - 1:
                assert same_json(old[key], new[key]), f"{where}.{key}: a member before the last changed"
            else:
                check_growth(old[key], new[key], f"{where}.{key}")
    else:
        assert same_json(old, new), f"{where}: scalar changed {old!r} -> {new!r}"


def replay(fragments: list[str], *, check_types: bool = True) -> tuple[tooljson.Parser, Any]:
    """Feeds fragments, checking consecutive previews; returns the parser and the last preview."""
    parser = tooljson.Parser()
    previous: Any = None
    for fragment in fragments:
        parser.feed(fragment)
        current = copy.deepcopy(parser.preview())
        if check_types:
            check_growth(previous, current)
        previous = current
    return parser, previous


def random_fragments(text: str, rng: random.Random, largest: int = 8) -> list[str]:
    fragments = []
    at = 0
    while at < len(text):
        size = rng.randint(1, largest)
        fragments.append(text[at : at + size])
        at += size
    return fragments


@pytest.mark.parametrize(("name", "text"), ACCEPTED, ids=[name for name, _ in ACCEPTED])
def test_every_prefix_of_accepted_files_grows_monotonically(name: str, text: str) -> None:
    parser, last = replay(list(text), check_types=not has_duplicate_keys(text))
    expected = json.loads(text)
    result = parser.finish()
    assert same_json(result, expected)
    assert same_json(parser.preview(), expected)
    if not isinstance(expected, (int, float)) or isinstance(expected, bool):
        # Only a bare top-level number waits for finish(): it could still grow until the text ends.
        assert same_json(last, expected)


@pytest.mark.parametrize(("name", "text"), ACCEPTED, ids=[name for name, _ in ACCEPTED])
def test_random_fragmentations_keep_the_guarantees(name: str, text: str) -> None:
    rng = random.Random(name)
    for _ in range(3):
        parser, _ = replay(random_fragments(text, rng), check_types=not has_duplicate_keys(text))
        assert same_json(parser.finish(), json.loads(text))


@pytest.mark.parametrize(("name", "text"), REJECTED, ids=[name for name, _ in REJECTED])
def test_preview_freezes_once_the_text_is_malformed(name: str, text: str) -> None:
    parser = tooljson.Parser()
    before: Any = None
    failed_at = None
    for position, char in enumerate(text):
        try:
            parser.feed(char)
        except tooljson.MalformedJSONError:
            failed_at = position
            break
        before = copy.deepcopy(parser.preview())
    if failed_at is None:
        # Cut off rather than malformed: the preview is simply the last one.
        assert parser.status.state == "incomplete"
        return
    frozen = copy.deepcopy(parser.preview())
    assert same_json(frozen, before), "the bad character changed the preview"
    assert parser.status.state == "malformed"
    assert parser.status.pos == failed_at
    for char in ']}"1 ':
        with pytest.raises(tooljson.MalformedJSONError):
            parser.feed(char)
        assert same_json(parser.preview(), frozen)


def test_numbers_appear_only_once_complete() -> None:
    parser = tooljson.Parser()
    seen = []
    for char in '{"a": [12, -3.5e2, true], "b": 7}':
        parser.feed(char)
        seen.append(copy.deepcopy(parser.preview()))
    assert {"a": [1]} not in seen
    assert {"a": [12, -3.5]} not in seen
    assert {"a": [12, -350.0]} in seen
    assert seen[-1] == {"a": [12, -350.0, True], "b": 7}


def test_partial_strings_can_be_turned_off() -> None:
    parser = tooljson.Parser(partial_strings=False)
    for char in '{"path": "a.txt", "content": "hello':
        parser.feed(char)
        preview = parser.preview()
        assert preview in (None, {}, {"path": "a.txt"})
    parser.feed('"}')
    assert parser.preview() == {"path": "a.txt", "content": "hello"}


def test_string_limit_caps_open_strings_only() -> None:
    parser = tooljson.Parser(preview_string_limit=3)
    parser.feed('["héllo wörld", "abcdef')
    assert parser.preview() == ["héllo wörld", "abc"]
    parser.feed('gh"]')
    assert parser.preview() == ["héllo wörld", "abcdefgh"]


def test_accumulator_preview_per_index() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(1, "write_file", "toolu_1")
    accumulator.start(3, "get_weather", "toolu_2")
    accumulator.add_delta(1, '{"path": "notes.md", "content": "# Ti')
    accumulator.add_delta(3, '{"city": "Lis')
    assert accumulator.preview(1) == {"path": "notes.md", "content": "# Ti"}
    assert accumulator.preview(3) == {"city": "Lis"}
    with pytest.raises(KeyError):
        accumulator.preview(7)
    accumulator.add_delta(3, 'bon"}')
    assert accumulator.finish(3)["input"] == {"city": "Lisbon"}


def test_preview_never_raises_on_bad_input() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "t", "id")
    for fragment in ['{"a": "\\', "x", '"', "}", "{", "\x00"]:
        accumulator.add_delta(0, fragment)
        accumulator.preview(0)
    assert accumulator.status(0).state == "malformed"


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(codec="utf-8")),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=150, deadline=None)
@given(value=json_values, ensure_ascii=st.booleans(), seed=st.integers(0, 2**32))
def test_generated_documents_grow_monotonically(value: Any, ensure_ascii: bool, seed: int) -> None:
    text = json.dumps(value, ensure_ascii=ensure_ascii)
    parser, last = replay(random_fragments(text, random.Random(seed), largest=5))
    expected = json.loads(text)
    assert same_json(parser.finish(), expected)
    if not isinstance(expected, (int, float)) or isinstance(expected, bool):
        assert same_json(last, expected)
    if isinstance(expected, float) and math.isnan(expected):
        pytest.fail("generated NaN although disallowed")
