"""ToolCallAccumulator: a drop-in for the pure-Python accumulator, plus what only it can tell early.

The parity test drives both with the same random script of stream events (starts, deltas that build
valid and broken arguments, finishes, interleaved indices, indices never started) and requires the
same results and the same exceptions; ours may raise a subclass of what the pure one raises.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

import pytest
import tooljson
import tooljson.pure
from helpers import assert_error_position, assert_same_json, json_outcome, random_splits, split_at
from hypothesis import given, settings
from hypothesis import strategies as st

# Arguments as they reach finish: valid ones, cut-off ones, broken ones, and the edge cases of the
# accumulator itself (no text, whitespace only, nesting and integers json.loads refuses).
ARGUMENTS = [
    "",
    "   ",
    "{}",
    '{"city": "Paris", "units": "metric"}',
    '{"q": "caf\\u00e9 \\ud83d\\ude80 \ud800", "n": [1, 2.5e3, -0, 1E400, NaN], "ok": true}',
    '{"a": 1, "b": {"c": [null, false, "x"]}, "a": 2}',
    "[1, 2, 3]",
    '"text"',
    "12",
    '{"path": "/tmp/a.txt", "lines": [1, 2',
    '{"a": 1} {"b": 2}',
    '{"a": tru}',
    '{"a": "\\x41"}',
    '{"a": 01}',
    '{"a": "line\nbreak"}',
    '{"big": ' + "7" * 4301 + "}",
    # Deeper than max_depth (json.loads fails too on CPython up to 3.12, not on 3.13).
    "[" * 5000 + "]" * 5000,
]


@st.composite
def scripts(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """Stream events for a few block indices, interleaved as one response would interleave them."""
    indices = draw(st.lists(st.integers(0, 6), min_size=1, max_size=4, unique=True))
    queues: list[list[tuple[Any, ...]]] = []
    for index in indices:
        text = draw(st.sampled_from(ARGUMENTS))
        cuts = draw(st.lists(st.integers(0, len(text)), max_size=8))
        events: list[tuple[Any, ...]] = [("add_delta", index, fragment) for fragment in split_at(text, cuts)]
        if draw(st.integers(0, 4)) > 0:
            # Usually the block starts first; sometimes deltas come before it, or it never starts.
            at = draw(st.integers(0, len(events))) if draw(st.booleans()) else 0
            events.insert(at, ("start", index, f"tool_{index}", f"toolu_{index:02}"))
        events.append(("finish", index))
        if draw(st.booleans()):
            events.append(("finish", index))
        queues.append(events)
    script: list[tuple[Any, ...]] = []
    while any(queues):
        open_queues = [queue for queue in queues if queue]
        script.append(open_queues[draw(st.integers(0, len(open_queues) - 1))].pop(0))
        if draw(st.integers(0, 9)) == 0:
            script.append(("finish", draw(st.integers(0, 9))))
    return script


def run_one(target: Any, event: tuple[Any, ...]) -> tuple[Any, BaseException | None]:
    operation, *arguments = event
    try:
        return getattr(target, operation)(*arguments), None
    except (KeyError, ValueError, RecursionError) as error:
        return None, error


@settings(max_examples=250)
@given(script=scripts())
def test_same_results_as_the_pure_accumulator(script: list[tuple[Any, ...]]) -> None:
    ours = tooljson.ToolCallAccumulator()
    reference = tooljson.pure.ToolCallAccumulator()
    # What every open index holds, in the order the indices appeared.
    texts: dict[int, str] = {}
    for event in script:
        expected, expected_error = run_one(reference, event)
        got, error = run_one(ours, event)
        operation, index = event[0], event[1]
        if expected_error is None and isinstance(error, tooljson.NestingTooDeepError):
            # Depth is where the two differ by design: a clean limit here (max_depth), the
            # interpreter's there, which CPython 3.13 put far past a thousand levels.
            assert error.pos == 1000
        elif expected_error is None:
            assert error is None, (
                f"{event!r:.120}: pure returned {expected!r:.120}, ours raised {error!r:.200}"
            )
            if operation == "finish":
                assert list(got) == ["name", "id", "input"]
                assert (got["name"], got["id"]) == (expected["name"], expected["id"])
                assert_same_json(got["input"], expected["input"])
            else:
                assert got is None
        else:
            assert isinstance(error, type(expected_error)), (
                f"{event!r:.120}: {error!r:.200} vs {expected_error!r:.200}"
            )
            if isinstance(expected_error, KeyError):
                assert error.args == expected_error.args
            if isinstance(expected_error, json.JSONDecodeError):
                assert isinstance(error, tooljson.JSONDecodeError)
                assert_error_position(expected_error.doc, error)
                # Past max_depth json.loads may still go on (hypothesis raises the recursion limit
                # while it runs a test) and fail later in the text.
                if not isinstance(error, tooljson.NestingTooDeepError):
                    assert expected_error.pos <= error.pos
        # Keep the model of open indices: a start or a delta opens one, a finish that found the
        # index started closes it (whether or not the text parsed).
        if operation in ("start", "add_delta"):
            texts[index] = texts.get(index, "") + (event[2] if operation == "add_delta" else "")
        elif not isinstance(error, KeyError):
            del texts[index]
        assert ours.indices == list(texts)
        assert len(ours) == len(texts)
        for open_index, text in texts.items():
            assert open_index in ours
            assert ours.text(open_index) == text
            check_status(ours.status(open_index), text)


def check_status(status: tooljson.ParseStatus, text: str) -> None:
    """The status of a buffer must say what json.loads would make of it right now."""
    if text.count("[") + text.count("{") > 1000:
        # Depth is where the two differ by design: a clean limit here, the recursion limit there.
        assert (status.state, status.pos) == ("malformed", 1000)
        return
    expected = json_outcome(text)
    if expected.accepted:
        assert status.state == "complete", (text, status)
    elif isinstance(expected.error, json.JSONDecodeError):
        assert status.state in ("incomplete", "malformed"), (text, status)
        assert (status.state == "incomplete") == (status.pos == len(text))
        assert expected.error.pos <= status.pos  # type: ignore[operator]


def test_result_keys_come_in_order_name_id_input() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "get_weather", "toolu_01")
    accumulator.add_delta(0, '{"city": "Oslo"}')
    result = accumulator.finish(0)
    assert list(result) == ["name", "id", "input"]
    assert result == {"name": "get_weather", "id": "toolu_01", "input": {"city": "Oslo"}}
    # The same order as the pure accumulator returns: code may rely on it when logging.
    reference = tooljson.pure.ToolCallAccumulator()
    reference.start(0, "get_weather", "toolu_01")
    reference.add_delta(0, '{"city": "Oslo"}')
    assert list(reference.finish(0)) == list(result)


@pytest.mark.parametrize("deltas", [[], [""], ["", "", ""]])
def test_input_is_an_empty_object_when_no_text_streamed(deltas: list[str]) -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(2, "list_files", "toolu_02")
    for fragment in deltas:
        accumulator.add_delta(2, fragment)
    assert accumulator.text(2) == ""
    result = accumulator.finish(2)
    assert list(result) == ["name", "id", "input"]
    assert type(result["input"]) is dict and result["input"] == {}
    # Each call gets its own dict: mutating one result must not leak into the next.
    result["input"]["x"] = 1
    accumulator.start(2, "list_files", "toolu_03")
    assert accumulator.finish(2)["input"] == {}


def test_whitespace_only_text_is_incomplete_not_empty() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "t", "toolu_0")
    accumulator.add_delta(0, " \n")
    with pytest.raises(tooljson.IncompleteJSONError) as raised:
        accumulator.finish(0)
    assert (raised.value.doc, raised.value.pos) == (" \n", 2)


def test_finish_of_an_index_never_started_raises_key_error_and_keeps_its_fragments() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.add_delta(5, '{"path": ')
    with pytest.raises(KeyError):
        accumulator.finish(5)
    assert 5 in accumulator
    assert accumulator.text(5) == '{"path": '
    # Once the start arrives, nothing streamed before it is lost.
    accumulator.start(5, "read_file", "toolu_05")
    accumulator.add_delta(5, '"/etc/hosts"}')
    assert accumulator.finish(5) == {"name": "read_file", "id": "toolu_05", "input": {"path": "/etc/hosts"}}
    with pytest.raises(KeyError):
        accumulator.finish(123)


@pytest.mark.parametrize("text", ['{"a": [1, 2]}', '{"a": [1, 2', '{"a": [1, 2]]'])
def test_finish_forgets_the_index_whatever_the_outcome(text: str) -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(1, "t", "toolu_1")
    accumulator.add_delta(1, text)
    try:
        accumulator.finish(1)
    except tooljson.JSONDecodeError:
        pass
    assert 1 not in accumulator
    assert len(accumulator) == 0
    assert accumulator.indices == []
    with pytest.raises(KeyError):
        accumulator.finish(1)
    with pytest.raises(KeyError):
        accumulator.text(1)
    with pytest.raises(KeyError):
        accumulator.status(1)
    # The index can be used again by a later response, from a clean buffer.
    accumulator.start(1, "t", "toolu_2")
    accumulator.add_delta(1, "[]")
    assert accumulator.finish(1)["input"] == []


def test_text_status_discard_indices_contains_len() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    assert (len(accumulator), accumulator.indices) == (0, [])
    accumulator.start(3, "a", "toolu_a")
    accumulator.add_delta(1, '{"x": ')
    accumulator.start(1, "b", "toolu_b")
    accumulator.start(7, "c", "toolu_c")
    assert accumulator.indices == [3, 1, 7]
    assert len(accumulator) == 3
    assert 1 in accumulator and 3 in accumulator and 7 in accumulator
    assert 2 not in accumulator and "1" not in accumulator and None not in accumulator

    assert accumulator.text(3) == ""
    assert accumulator.status(3).state == "incomplete"
    assert accumulator.status(3).pos == 0
    assert accumulator.text(1) == '{"x": '
    status = accumulator.status(1)
    assert (status.state, status.pos) == ("incomplete", 6)
    assert status.msg
    accumulator.add_delta(1, "10}")
    assert accumulator.status(1).state == "complete"
    assert accumulator.status(1).pos is None and accumulator.status(1).msg is None
    assert accumulator.text(1) == '{"x": 10}'

    accumulator.discard(3)
    accumulator.discard(42)  # unknown indices are ignored: an abandoned stream may not have started
    assert accumulator.indices == [1, 7]
    with pytest.raises(KeyError):
        accumulator.finish(3)
    assert accumulator.finish(1)["input"] == {"x": 10}
    assert accumulator.indices == [7]
    with pytest.raises(KeyError):
        accumulator.text(99)


def test_bad_json_never_raises_in_add_delta_and_shows_in_status_at_once() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "t", "toolu_0")
    accumulator.add_delta(0, '{"a": 1')
    accumulator.add_delta(0, "} x")
    status = accumulator.status(0)
    assert (status.state, status.pos) == ("malformed", len('{"a": 1} '))
    assert status.msg
    # Later fragments are still kept: the raw text is what an error result quotes back.
    accumulator.add_delta(0, ' {"b": 2}')
    assert accumulator.status(0) == status
    assert accumulator.text(0) == '{"a": 1} x {"b": 2}'
    with pytest.raises(tooljson.MalformedJSONError) as raised:
        accumulator.finish(0)
    assert raised.value.pos == status.pos
    assert raised.value.doc == '{"a": 1} x {"b": 2}'
    assert_error_position(raised.value.doc, raised.value)


def test_many_indices_open_at_once() -> None:
    rng = random.Random(7)
    accumulator = tooljson.ToolCallAccumulator()
    documents = {
        index: json.dumps({"index": index, "items": list(range(index % 13)), "s": "é" * index})
        for index in range(300)
    }
    pending = {
        index: split_at(text, sorted(rng.sample(range(len(text)), 5))) for index, text in documents.items()
    }
    for index in documents:
        accumulator.start(index, f"tool_{index}", f"toolu_{index}")
    while pending:
        index = rng.choice(list(pending))
        accumulator.add_delta(index, pending[index].pop(0))
        if not pending[index]:
            del pending[index]
    assert len(accumulator) == 300
    order = list(documents)
    rng.shuffle(order)
    for finished, index in enumerate(order, start=1):
        result = accumulator.finish(index)
        assert result == {
            "name": f"tool_{index}",
            "id": f"toolu_{index}",
            "input": json.loads(documents[index]),
        }
        assert len(accumulator) == 300 - finished


@pytest.mark.parametrize(
    ("text", "error_class"),
    [
        ('{"a": ', tooljson.IncompleteJSONError),
        ('{"a": 1]', tooljson.MalformedJSONError),
        ("[" * 1001, tooljson.NestingTooDeepError),
    ],
)
def test_except_json_decode_error_catches_our_errors(text: str, error_class: type[Exception]) -> None:
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "t", "toolu_0")
    accumulator.add_delta(0, text)
    # Code written for the pure accumulator catches json.JSONDecodeError; it must keep working.
    try:
        accumulator.finish(0)
    except json.JSONDecodeError as error:
        assert type(error) is error_class
        assert isinstance(error, tooljson.JSONDecodeError)
        assert error.doc == text
    else:
        raise AssertionError("finish accepted invalid text")


def test_max_depth_applies_per_accumulator() -> None:
    accumulator = tooljson.ToolCallAccumulator(max_depth=3)
    accumulator.start(0, "t", "toolu_0")
    accumulator.add_delta(0, '{"a": [[1]]}')
    assert accumulator.finish(0)["input"] == {"a": [[1]]}
    accumulator.start(0, "t", "toolu_0")
    accumulator.add_delta(0, '{"a": [[[1]]]}')
    assert accumulator.status(0).state == "malformed"
    with pytest.raises(tooljson.NestingTooDeepError) as raised:
        accumulator.finish(0)
    assert raised.value.pos == 8


def test_name_and_id_are_passed_through() -> None:
    accumulator = tooljson.ToolCallAccumulator()
    name, tool_id = "naïve_tool \ud800", "toolu_01XYZ"
    accumulator.start(4, name, tool_id)
    # A second start of the same index (a retried block) replaces the name and id.
    accumulator.start(4, "renamed", tool_id)
    result = accumulator.finish(4)
    assert (result["name"], result["id"]) == ("renamed", tool_id)


@pytest.mark.parametrize("seed", range(4))
def test_long_strings_decoded_in_pieces_as_they_stream_are_whole(seed: int) -> None:
    """A long string value is decoded piece by piece while it streams and made whole at its closing
    quote: characters of every width (and lone surrogate escapes) fall on the pieces' edges, and the
    value, the preview and the events are what the whole text gives."""
    rng = random.Random(seed)
    alphabet = ["a", "é", "語", "😀", "\\n", '\\"', "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\udc00x"]
    # A string is decoded as it streams once it passes 4 KB of decoded content: both are.
    long_text = "".join(rng.choice(alphabet) for _ in range(rng.randint(150_000, 300_000)))
    text = '{"path": "a", "content": "' + long_text + '", "more": ["' + long_text[:17_000] + '", 1]}'
    expected = json.loads(text)
    pieces = random_splits(text, rng, len(text) // rng.choice([3, 16, 700]))
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "write_file", "toolu_01")
    parser = tooljson.Parser(events=True)
    for piece in pieces:
        accumulator.add_delta(0, piece)
        parser.feed(piece)
    assert_same_json(accumulator.finish(0)["input"], expected)
    assert_same_json(parser.finish(), expected)
    appended = "".join(
        event.value for event in parser.events() if event.kind == "append" and event.path == ("content",)
    )
    assert appended == expected["content"]


@pytest.mark.parametrize(
    "widths",
    [
        ("a", "é", "語", "😀"),
        ("a", "😀"),
        ("a", "語", "é"),
        ("é", "a"),
        ("a", "\\ud800", "b"),
        ("a",),
        ("ÿ",),
    ],
)
@pytest.mark.parametrize("step", [1, 7, 16, 600, 5000])
def test_long_strings_streamed_widen_to_the_narrowest_kind(widths: tuple[str, ...], step: int) -> None:
    """A long string decoded as it streams is kept at the width of its widest character so far,
    made wider when a wider one comes: the value is the same `str` as `json.loads` makes, of the
    same kind (its size says so), whichever delta the wider characters arrive in."""
    parts = [width * 3000 for width in widths]
    content = "x".join(parts)
    text = '{"content": "' + content + '", "short": "' + widths[-1] + '"}'
    expected = json.loads(text)
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "write_file", "toolu_01")
    for at in range(0, len(text), step):
        accumulator.add_delta(0, text[at : at + step])
    value = accumulator.finish(0)["input"]
    assert value == expected
    assert sys.getsizeof(value["content"]) == sys.getsizeof(expected["content"])
    assert max(map(ord, value["content"])) == max(map(ord, expected["content"]))
