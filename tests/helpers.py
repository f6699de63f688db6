"""What the Python tests share: exact value comparison, the json.loads oracle and the three ways in.

Every check here compares tooljson with :func:`json.loads` on the same joined text; nothing is
hard-coded. The error-position oracle relies on the definition of ``pos``: ``text[:pos]`` is still a
valid prefix of JSON and ``text[:pos + 1]`` is not.
"""

from __future__ import annotations

import functools
import json
import random
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tooljson

JSON_TEST_SUITE = Path(__file__).resolve().parents[2] / "shared" / "JSONTestSuite"
CORPUS = JSON_TEST_SUITE / "test_parsing"


@functools.cache
def corpus_texts() -> tuple[tuple[str, str], ...]:
    """The corpus files that decode as UTF-8, as (name, text) in name order, read once per session."""
    texts = []
    for path in sorted(CORPUS.iterdir()):
        try:
            texts.append((path.name, path.read_bytes().decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return tuple(texts)


# A second document streamed on another block index while the one under test is assembled, so that
# buffers of different indices are shown not to leak into each other.
OTHER_DOCUMENT = '{"query": "caf\\u00e9 \\ud83d\\ude80", "limit": [1, -0.5e3, true, null]}'


def _float_bits(value: float) -> bytes:
    return struct.pack("<d", value)


def assert_same_json(actual: Any, expected: Any) -> None:
    """Asserts that two decoded JSON values are identical, type for type.

    ``==`` is not enough: it equates ``True`` with ``1``, ``0.0`` with ``-0.0`` and ignores dict key
    order, and it never equates NaN with itself. Floats are compared by their IEEE-754 bits instead.
    The walk uses an explicit stack so that documents nested a thousand deep can be compared.
    """
    stack: list[tuple[str, Any, Any]] = [("$", actual, expected)]
    while stack:
        path, left, right = stack.pop()
        assert type(left) is type(right), (
            f"{path}: type {type(left).__name__} != {type(right).__name__} ({left!r:.80} vs {right!r:.80})"
        )
        if isinstance(right, float):
            assert _float_bits(left) == _float_bits(right), f"{path}: float {left!r} != {right!r}"
        elif isinstance(right, dict):
            assert list(left) == list(right), f"{path}: keys {list(left)!r:.200} != {list(right)!r:.200}"
            for key in reversed(list(right)):
                stack.append((f"{path}[{key!r}]", left[key], right[key]))
        elif isinstance(right, list):
            assert len(left) == len(right), f"{path}: length {len(left)} != {len(right)}"
            for position in reversed(range(len(right))):
                stack.append((f"{path}[{position}]", left[position], right[position]))
        else:
            # str, int, bool and None: == on these types is exact (str compares code points,
            # lone surrogates included; int compares at any size).
            assert left == right, f"{path}: {left!r:.200} != {right!r:.200}"


def same_json(actual: Any, expected: Any) -> bool:
    """Whether :func:`assert_same_json` would pass."""
    try:
        assert_same_json(actual, expected)
    except AssertionError:
        return False
    return True


def has_duplicate_keys(text: str) -> bool:
    """Whether some object of the (valid) JSON text repeats a key."""
    found = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal found
        keys = [key for key, _ in items]
        found = found or len(set(keys)) != len(keys)
        return dict(items)

    json.loads(text, object_pairs_hook=pairs)
    return found


@dataclass(frozen=True)
class Outcome:
    """What one parse of a text came to: a value or an exception (exactly one is set)."""

    value: Any = None
    error: BaseException | None = None

    @property
    def accepted(self) -> bool:
        return self.error is None


def json_outcome(text: str) -> Outcome:
    """What ``json.loads(text)`` does: a value, a JSONDecodeError, a RecursionError or a ValueError."""
    try:
        return Outcome(value=json.loads(text))
    except (ValueError, RecursionError) as error:
        return Outcome(error=error)


def _capture(parse: Callable[[], Any]) -> Outcome:
    try:
        return Outcome(value=parse())
    except (ValueError, RecursionError) as error:
        return Outcome(error=error)


def loads_outcome(text: str, *, max_depth: int = 1000) -> Outcome:
    """What ``tooljson.loads`` does with the whole text."""
    return _capture(lambda: tooljson.loads(text, max_depth=max_depth))


def is_int_digits_error(error: BaseException) -> bool:
    """The plain ValueError Python raises for an integer longer than ``sys.get_int_max_str_digits()``."""
    return type(error) is ValueError and "integer string conversion" in str(error)


def assert_location(error: json.JSONDecodeError) -> None:
    """json.JSONDecodeError derives line and column from ``doc`` and ``pos``; ours must follow that rule."""
    doc, pos = error.doc, error.pos
    assert (error.lineno, error.colno) == (doc.count("\n", 0, pos) + 1, pos - doc.rfind("\n", 0, pos))


def assert_error_position(text: str, error: BaseException, *, max_depth: int = 1000) -> None:
    """Checks one tooljson parse error against its text, without any other parser's help.

    The class says whether the text was cut off (``pos == len(text)``) or broken (``pos`` is the first
    offending character: the text up to it is a valid prefix, one character more is not).
    """
    assert isinstance(error, tooljson.JSONDecodeError), f"{type(error).__name__}: {error}"
    assert isinstance(error, json.JSONDecodeError)
    assert error.doc == text
    assert isinstance(error.msg, str) and error.msg
    pos = error.pos
    assert 0 <= pos <= len(text)
    assert_location(error)
    if isinstance(error, tooljson.IncompleteJSONError):
        assert not isinstance(error, tooljson.MalformedJSONError)
        assert pos == len(text), f"cut-off text reported at {pos}, not at its end {len(text)}"
        return
    assert isinstance(error, tooljson.MalformedJSONError), type(error)
    assert pos < len(text), "a malformed text must name a character of it"
    # (a) The text before the offending character is still a valid prefix.
    before = tooljson.Parser(max_depth=max_depth)
    before.feed(text[:pos])
    assert before.status.state != "malformed", f"text[:{pos}] is already malformed: {before.status.msg}"
    # (b) Adding that one character makes it invalid, at exactly that position.
    after = tooljson.Parser(max_depth=max_depth)
    try:
        after.feed(text[: pos + 1])
    except tooljson.MalformedJSONError as again:
        assert again.pos == pos
        assert type(again) is type(error)
    else:
        raise AssertionError(f"text[:{pos + 1}] was accepted as a prefix: {text[: pos + 1]!r:.200}")
    status = after.status
    assert status.state == "malformed"
    assert status.pos == pos
    assert status.msg


def assert_matches_json(text: str, ours: Outcome, expected: Outcome, *, max_depth: int = 1000) -> None:
    """Asserts that one tooljson outcome is what json.loads gives for ``text``."""
    if expected.accepted:
        assert ours.accepted, f"json.loads accepts {text!r:.200}, tooljson raised {ours.error!r:.300}"
        assert_same_json(ours.value, expected.value)
        return
    error, ours_error = expected.error, ours.error
    assert error is not None
    assert ours_error is not None, f"json.loads raises {error!r:.200}, tooljson returned {ours.value!r:.200}"
    if isinstance(error, RecursionError):
        assert isinstance(ours_error, tooljson.NestingTooDeepError), repr(ours_error)
        assert_error_position(text, ours_error, max_depth=max_depth)
    elif isinstance(error, json.JSONDecodeError):
        assert_error_position(text, ours_error, max_depth=max_depth)
        assert isinstance(ours_error, json.JSONDecodeError)
        # json.loads reports some errors where the offending token starts (an unterminated string at
        # its opening quote), never after the first character that breaks the text.
        assert error.pos <= ours_error.pos, (
            f"json.loads says {error.pos} ({error.msg}), we say {ours_error.pos}"
        )
    else:
        assert is_int_digits_error(error), repr(error)
        assert type(ours_error) is ValueError, repr(ours_error)
        assert str(ours_error) == str(error)


def fragment_bounds(fragments: Sequence[str]) -> list[tuple[int, int]]:
    """The character range of each fragment in the joined text."""
    bounds = []
    start = 0
    for fragment in fragments:
        bounds.append((start, start + len(fragment)))
        start += len(fragment)
    return bounds


def parser_outcome(fragments: Sequence[str], *, max_depth: int = 1000) -> Outcome:
    """Feeds the fragments to one ``tooljson.Parser`` and finishes it, checking the API on the way.

    A malformed text must be reported by the ``feed`` whose fragment holds the offending character,
    and again by every later call. The outcome is that of ``finish``, which must be repeatable.
    """
    parser = tooljson.Parser(max_depth=max_depth)
    text = "".join(fragments)
    feed_error: ValueError | None = None
    for number, ((start, end), fragment) in enumerate(zip(fragment_bounds(fragments), fragments)):
        try:
            parser.feed(fragment)
        except ValueError as error:
            feed_error = error
            refused_again(parser, error, fragments[number + 1 :])
            if isinstance(error, tooljson.MalformedJSONError):
                assert start <= error.pos < end, f"fragment {start}:{end} raised for pos {error.pos}"
                assert error.doc == text[:end]
                assert_location(error)
                assert parser.status.state == "malformed"
                assert parser.status.pos == error.pos
            else:
                # An over-long integer is refused by the fragment that ends it, as json.loads
                # refuses it as soon as it has read it.
                assert is_int_digits_error(error), repr(error)
            break
        assert parser.status.state != "malformed", parser.status
        assert parser.text == text[:end]
    assert parser.text == text
    status = parser.status
    outcome = _capture(parser.finish)
    if outcome.accepted:
        assert feed_error is None
        assert status.state == "complete", status
        assert status.pos is None and status.msg is None
        # A second finish gives the same value again.
        assert_same_json(parser.finish(), outcome.value)
        return outcome
    final_error = outcome.error
    if feed_error is not None:
        # finish raises what the feed raised (json.loads raises an over-long integer's ValueError
        # before it notices that the text goes wrong after it).
        assert type(final_error) is type(feed_error), (final_error, feed_error)
        assert getattr(final_error, "pos", None) == getattr(feed_error, "pos", None)
    else:
        assert not isinstance(final_error, tooljson.MalformedJSONError), (
            f"finish found a malformed text no feed had reported: {final_error!r}"
        )
    if isinstance(final_error, tooljson.IncompleteJSONError):
        assert status.state == "incomplete", status
        assert status.pos == len(text)
    again = _capture(parser.finish)
    assert type(again.error) is type(final_error)
    return outcome


def refused_again(parser: tooljson.Parser, error: ValueError, rest: Sequence[str]) -> None:
    """After a refused fragment, the rest of the text (or nothing, when there is none) is refused too.

    Past the next two fragments the rest goes in one piece: a file of 250,000 one-character
    fragments would otherwise spend seconds raising the same error.
    """
    for later in [*rest[:2], "".join(rest[2:])]:
        try:
            parser.feed(later)
        except ValueError as again:
            if isinstance(error, tooljson.MalformedJSONError):
                assert isinstance(again, tooljson.MalformedJSONError)
                assert (type(again), again.pos) == (type(error), error.pos)
        else:
            raise AssertionError("feed after a refused fragment did not raise")


def accumulator_outcome(fragments: Sequence[str], *, max_depth: int = 1000) -> Outcome:
    """Streams the fragments on block index 0 of a ``tooljson.ToolCallAccumulator`` and finishes it.

    Another tool call streams on index 1 at the same time, one of its fragments after each of ours,
    and must come out whole. The returned outcome is that of ``input`` (``{}`` for an empty text).
    """
    accumulator = tooljson.ToolCallAccumulator(max_depth=max_depth)
    other = [OTHER_DOCUMENT[i : i + 7] for i in range(0, len(OTHER_DOCUMENT), 7)]
    accumulator.start(1, "search", "toolu_other")
    accumulator.start(0, "tool_under_test", "toolu_main")
    for position, fragment in enumerate(fragments):
        accumulator.add_delta(0, fragment)
        if position < len(other):
            accumulator.add_delta(1, other[position])
    for fragment in other[len(fragments) :]:
        accumulator.add_delta(1, fragment)
    assert accumulator.text(0) == "".join(fragments)
    result = accumulator.finish(1)
    assert list(result) == ["name", "id", "input"]
    assert (result["name"], result["id"]) == ("search", "toolu_other")
    assert_same_json(result["input"], json.loads(OTHER_DOCUMENT))
    try:
        result = accumulator.finish(0)
    except (ValueError, RecursionError) as error:
        assert 0 not in accumulator, "finish must forget the index also when it raises"
        return Outcome(error=error)
    assert 0 not in accumulator
    assert list(result) == ["name", "id", "input"]
    assert (result["name"], result["id"]) == ("tool_under_test", "toolu_main")
    return Outcome(value=result["input"])


def expected_input(text: str) -> Outcome:
    """What a tool call's ``input`` must be for its joined text: ``{}`` when empty, else json.loads."""
    return Outcome(value={}) if text == "" else json_outcome(text)


def split_at(text: str, cuts: Sequence[int]) -> list[str]:
    """``text`` cut at the given offsets (sorted, duplicates give empty fragments)."""
    points = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in zip(points, points[1:])]


def random_splits(text: str, rng: random.Random, pieces: int) -> list[str]:
    """``text`` cut at ``pieces - 1`` random offsets (which may repeat, giving empty fragments)."""
    return split_at(text, [rng.randint(0, len(text)) for _ in range(pieces - 1)])


def dropped_stream_error() -> type[BaseException]:
    """What iterating an ``anthropic`` stream raises when the body is cut off mid-stream: from 2.16 on
    the SDK wraps a failure to read the body in ``APIConnectionError`` (the ``httpx2`` error its
    cause); up to 2.15 the ``httpx2.RemoteProtocolError`` came through unwrapped."""
    import anthropic
    import httpx2

    version = tuple(int(part) for part in anthropic.__version__.split(".")[:2])
    return anthropic.APIConnectionError if version >= (2, 16) else httpx2.RemoteProtocolError
