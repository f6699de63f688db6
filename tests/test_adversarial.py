"""Hostile inputs: each gets the value json.loads gives or a clean error, with bounded memory.

Timings are not asserted here (a loaded machine would make them flaky); ``benches/adversarial_report.py``
runs the same inputs and prints how long each takes. Memory is bounded through the process's peak
resident size, reset before each measurement (``/proc/self/clear_refs``), because the Rust core's
buffers are not seen by :mod:`tracemalloc`.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import tooljson
from helpers import (
    accumulator_outcome,
    assert_matches_json,
    assert_same_json,
    expected_input,
    json_outcome,
    loads_outcome,
    parser_outcome,
)

MB = 1_000_000
MiB = 1024 * 1024


def _peak_rss_kib() -> int:
    match = re.search(r"VmHWM:\s+(\d+) kB", Path("/proc/self/status").read_text())
    assert match is not None
    return int(match.group(1))


def _reset_peak() -> None:
    # Writing 5 resets the peak resident size (VmHWM) to the current one (Linux 4.0 and later).
    Path("/proc/self/clear_refs").write_text("5")


@pytest.fixture
def peak_growth() -> Callable[[Callable[[], object]], int]:
    """Runs a callable and returns by how many bytes it raised the process's peak resident size."""
    try:
        _reset_peak()
    except OSError:
        pytest.skip("the peak resident size cannot be reset on this system")

    def measure(action: Callable[[], object]) -> int:
        _reset_peak()
        before = _peak_rss_kib()
        action()
        return (_peak_rss_kib() - before) * 1024

    return measure


def chunks(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


def feed_all(parser: tooljson.Parser, text: str, size: int = 65_536) -> None:
    for chunk in chunks(text, size):
        parser.feed(chunk)


# --- Deep nesting -------------------------------------------------------------------------------


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_ten_megabytes_of_openers_stop_at_the_depth_limit(
    opener: str, peak_growth: Callable[..., int]
) -> None:
    text = opener * (10 * MB // len(opener))
    with pytest.raises(RecursionError):
        json.loads(text)

    def whole() -> None:
        with pytest.raises(tooljson.NestingTooDeepError) as caught:
            tooljson.loads(text)
        # The 1,001st opener is the first character that breaks the limit.
        assert caught.value.pos == 1000 * len(opener)
        assert caught.value.doc == text

    # The joined text is kept once for the error's doc and once by the parser: nothing else grows
    # with it (no per-character state, no recursion).
    assert peak_growth(whole) <= 3 * len(text) + 16 * MiB

    parser = tooljson.Parser()
    with pytest.raises(tooljson.NestingTooDeepError) as caught:
        feed_all(parser, text)
    assert caught.value.pos == 1000 * len(opener)
    # Refused in the first fragment: the remaining 10 MB are never fed, let alone kept.
    assert len(parser.text) <= 65_536


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def json_loads_deep(text: str) -> Any:
    """json.loads with room for nesting deeper than the default recursion limit allows."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)
    try:
        return json.loads(text)
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize("max_depth", [1, 2, 64, 1000])
def test_nesting_at_the_limit_parses_and_one_more_level_is_refused(max_depth: int) -> None:
    at_limit = nested(max_depth)
    assert_same_json(tooljson.loads(at_limit, max_depth=max_depth), json_loads_deep(at_limit))
    accumulator = tooljson.ToolCallAccumulator(max_depth=max_depth)
    accumulator.start(0, "tool", "toolu_1")
    for character in at_limit:
        accumulator.add_delta(0, character)
    assert_same_json(accumulator.finish(0)["input"], json_loads_deep(at_limit))

    past = nested(max_depth + 1)
    with pytest.raises(tooljson.NestingTooDeepError) as caught:
        tooljson.loads(past, max_depth=max_depth)
    assert caught.value.pos == max_depth
    parser = tooljson.Parser(max_depth=max_depth)
    parser.feed("[" * max_depth)
    assert parser.status.state == "incomplete"
    with pytest.raises(tooljson.NestingTooDeepError):
        parser.feed("[")
    after = parser.status
    assert (after.state, after.pos) == ("malformed", max_depth)


def test_objects_nested_past_the_limit_inside_a_string_are_just_text() -> None:
    text = json.dumps({"a": "[" * 5000 + '{"b":' * 5000})
    assert_same_json(tooljson.loads(text), json.loads(text))


# --- Numbers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "1" * MB,
        "-" + "1" * MB,
        "[" + "1" * MB + "]",
        '{"n": ' + "9" * MB + "}",
        # Over the limit and then broken or cut off: json.loads converts the integer first.
        "[" + "1" * MB,
        "[" + "1" * MB + ".",
        "[" + "1" * MB + "e",
    ],
    ids=["bare", "negative", "in-array", "in-object", "cut-off", "broken-fraction", "broken-exponent"],
)
def test_million_digit_integers_raise_the_same_value_error_as_json(text: str) -> None:
    expected = json_outcome(text)
    assert type(expected.error) is ValueError
    assert_matches_json(text, loads_outcome(text), expected)
    assert_matches_json(text, parser_outcome(list(chunks(text, 4096))), expected)


@pytest.mark.parametrize(
    "text",
    [
        "0." + "1" * MB,
        "1e" + "9" * MB,
        "1e-" + "9" * MB,
        "-" + "0" * 1 + "." + "0" * MB + "1",
        "[" + "7" * 4300 + "]",
    ],
    ids=["long-fraction", "huge-exponent", "tiny-exponent", "tiny-fraction", "at-digit-limit"],
)
def test_long_numbers_json_accepts_give_its_value(text: str) -> None:
    expected = json_outcome(text)
    assert expected.accepted
    assert_matches_json(text, loads_outcome(text), expected)
    assert_matches_json(text, parser_outcome(list(chunks(text, 1000))), expected)


# --- Big strings and objects --------------------------------------------------------------------


def test_ten_megabyte_string(peak_growth: Callable[..., int]) -> None:
    unit = "caf\u00e9 \\n \\u00e9 \\ud83d\\ude80 \\\\ plain text "
    body = unit * (10 * MB // len(unit))
    text = '{"content": "' + body + '"}'
    expected = json.loads(text)
    assert_same_json(tooljson.loads(text), expected)

    def streamed() -> None:
        parser = tooljson.Parser()
        for number, chunk in enumerate(chunks(text, 4096)):
            parser.feed(chunk)
            if number % 256 == 0:
                parser.preview()
        assert_same_json(parser.finish(), expected)

    # The text (kept for errors), the open string's decoded bytes and the shown string (four bytes a
    # character in CPython once it holds an emoji), which a preview replaces with a longer one, so
    # two of them live for a moment: no copy per fragment, none kept per preview.
    value_size = sys.getsizeof(expected["content"])
    assert peak_growth(streamed) <= 3 * len(text) + 2 * value_size + 16 * MiB


def test_object_with_300000_keys() -> None:
    members = {f"key_{n}": [n, f"v{n}"] for n in range(300_000)}
    text = json.dumps(members)
    expected = json.loads(text)
    assert_same_json(tooljson.loads(text), expected)
    # Fed as a stream, with a preview now and then (the helpers' parser_outcome re-reads the whole
    # text after every fragment, which at this size would measure the helper, not the parser).
    parser = tooljson.Parser()
    for number, chunk in enumerate(chunks(text, 37)):
        parser.feed(chunk)
        if number % 1000 == 0:
            assert parser.status.state == "incomplete"
            parser.preview()
    assert_same_json(parser.finish(), expected)


def test_300000_repeats_of_one_key_keep_the_last_value() -> None:
    text = "{" + ", ".join(f'"k": {n}' for n in range(300_000)) + ', "z": 0}'
    assert_same_json(tooljson.loads(text), json.loads(text))
    assert tooljson.loads(text) == {"k": 299_999, "z": 0}


def test_one_megabyte_fed_one_character_at_a_time_with_previews() -> None:
    document = {
        "path": "src/caf\u00e9.py",
        "content": "".join(f'line {n}: \u00e9\u20ac\U0001f680 "quoted" \\ tab\t\n' for n in range(28_000)),
        "numbers": [n * 1.5 for n in range(2000)],
        "flags": [True, False, None] * 500,
    }
    text = json.dumps(document, ensure_ascii=False)
    assert len(text) >= MB
    expected = json.loads(text)
    parser = tooljson.Parser()
    previews = 0
    shown_content = ""
    for position, character in enumerate(text):
        parser.feed(character)
        if position % 1000 == 999:
            preview = parser.preview()
            previews += 1
            if isinstance(preview, dict) and "content" in preview:
                # Strings only grow between previews, and only with the document's own text.
                assert preview["content"].startswith(shown_content)
                assert expected["content"].startswith(preview["content"])
                shown_content = preview["content"]
    assert previews == len(text) // 1000
    assert_same_json(parser.finish(), expected)


# --- Surrogates, NUL and escapes cut by fragment ends --------------------------------------------

SURROGATE_TEXTS = [
    '"\\ud800"',
    '"\\udc00"',
    '"\\ud800\\ud800"',
    '"\\udbff\\udfff"',
    '"\\ud800x"',
    '"\\ud800\\n"',
    '"\\ud83d\\u0041"',
    '"\\udc00\\ud800"',
    '{"\\ud800": "\\udfff"}',
    '"\ud800"',  # a raw lone surrogate character in the text itself
    '["\ud83d", "\ude80"]',
    '"\ud83d\ude80"',  # two raw lone surrogates side by side stay two characters
]


@pytest.mark.parametrize("text", SURROGATE_TEXTS)
def test_lone_surrogates_are_kept_as_json_keeps_them(text: str) -> None:
    expected = json_outcome(text)
    assert_matches_json(text, loads_outcome(text), expected)
    # Every two-way cut, so that each escape is cut at each of its characters.
    for cut in range(len(text) + 1):
        fragments = [text[:cut], text[cut:]]
        assert_matches_json(text, parser_outcome(fragments), expected)
        assert_matches_json(text, accumulator_outcome(fragments), expected_input(text))


def test_escaped_pair_cut_between_its_halves_makes_one_character() -> None:
    parser = tooljson.Parser()
    parser.feed('"\\ud83d')
    parser.feed('\\ude80"')
    assert parser.finish() == "\U0001f680"


@pytest.mark.parametrize(
    "text",
    [
        '"\\u0000"',
        '{"\\u0000": "a\\u0000b"}',
        '["\\u0000\\u001f\\u007f"]',
        '"\x00"',
        '{"a\x00": 1}',
        '"\x1f"',
    ],
)
def test_nul_escaped_is_a_character_and_raw_is_an_error(text: str) -> None:
    expected = json_outcome(text)
    assert_matches_json(text, loads_outcome(text), expected)
    for cut in range(len(text) + 1):
        assert_matches_json(text, parser_outcome([text[:cut], text[cut:]]), expected)


@pytest.mark.parametrize(
    ("fragments", "bad_position"),
    [
        (['["\\', 'q"]'], 3),
        (['"\\', "x"], 2),
        (['"\\u12', 'G4"'], 5),
        (['"\\u', '"'], 3),
        (['"\\ud83d\\', 'x"'], 8),
        (['"\\ud83d\\u', 'DE0"'], 12),
        (['"ok\\', "\\", "\\", 'a"'], 6),
        (['"\\', "\x00"], 2),
    ],
)
def test_invalid_escape_cut_by_a_fragment_end_is_refused_by_the_fragment_that_breaks_it(
    fragments: list[str], bad_position: int
) -> None:
    text = "".join(fragments)
    expected = json_outcome(text)
    assert not expected.accepted
    outcome = parser_outcome(fragments)
    assert_matches_json(text, outcome, expected)
    assert isinstance(outcome.error, tooljson.MalformedJSONError)
    assert outcome.error.pos == bad_position
    assert_matches_json(text, accumulator_outcome(fragments), expected_input(text))


# --- Size limits --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ['{"a": [1, 2, 3]}', '"caf\u00e9 \U0001f680"', "[" + "1," * 50 + "1]", '"\ud800\ud800"']
)
def test_max_size_accepts_the_limit_and_refuses_one_byte_more(text: str) -> None:
    size = len(text.encode("utf-8", "surrogatepass"))
    assert_same_json(tooljson.loads(text, max_size=size), json.loads(text))
    for max_size in range(size):
        with pytest.raises(tooljson.InputTooLargeError) as caught:
            tooljson.loads(text, max_size=max_size)
        error = caught.value
        assert isinstance(error, tooljson.MalformedJSONError) and isinstance(error, json.JSONDecodeError)
        # doc is the longest prefix within the limit; pos names the first character past it.
        assert text.startswith(error.doc)
        assert len(error.doc.encode("utf-8", "surrogatepass")) <= max_size
        assert len(text[: len(error.doc) + 1].encode("utf-8", "surrogatepass")) > max_size
        assert error.pos == len(error.doc)


def test_max_size_is_checked_per_fragment_and_sticks() -> None:
    parser = tooljson.Parser(max_size=8)
    parser.feed("[1, 2")
    with pytest.raises(tooljson.InputTooLargeError) as caught:
        parser.feed(", 3, 4]")
    assert caught.value.pos == 8
    for _ in range(2):
        with pytest.raises(tooljson.InputTooLargeError):
            parser.feed("")
    with pytest.raises(tooljson.InputTooLargeError):
        parser.finish()
    assert parser.status.state == "malformed"


def test_max_size_bounds_memory_when_far_more_is_fed(peak_growth: Callable[..., int]) -> None:
    fragment = '"' + "x" * MB
    accumulator = tooljson.ToolCallAccumulator(max_size=1000)
    accumulator.start(0, "write_file", "toolu_1")

    def flood() -> None:
        for _ in range(50):
            accumulator.add_delta(0, fragment)

    # 50 MB fed, none of it kept past the limit (only the one fragment in flight at a time).
    assert peak_growth(flood) <= 8 * MiB
    assert len(accumulator.text(0)) <= 1000
    assert accumulator.status(0).state == "malformed"
    with pytest.raises(tooljson.InputTooLargeError):
        accumulator.finish(0)


def test_empty_text_with_zero_max_size_is_cut_off_not_too_large() -> None:
    with pytest.raises(tooljson.IncompleteJSONError):
        tooljson.loads("", max_size=0)
    with pytest.raises(tooljson.InputTooLargeError):
        tooljson.loads(" ", max_size=0)
