"""tooljson.Parser: errors in the right fragment, status as the text grows, limits, and edge input."""

from __future__ import annotations

import json
import pickle
import sys
from collections.abc import Iterator

import pytest
import tooljson
from helpers import (
    accumulator_outcome,
    assert_error_position,
    assert_matches_json,
    assert_same_json,
    json_outcome,
    loads_outcome,
    parser_outcome,
    split_at,
)


@pytest.mark.parametrize(
    ("fragments", "bad_fragment", "pos"),
    [
        (['{"a": 1', "}}"], 1, 8),
        (["[1, 2", ".", "x]"], 2, 6),
        (['"abc', "\\", 'q"'], 2, 5),
        (['"ab', "\x01", '"'], 1, 3),
        (["tr", "ue", " ", "x"], 3, 5),
        (['{"a"', " 1}"], 1, 5),
        (["[1,", " ]"], 1, 4),
        (['"\\u12', 'G4"'], 1, 5),
        (["\ufeff[]"], 0, 0),
        (["-", "Infinity", "x"], 2, 9),
        (["Na", "n"], 1, 2),
        (["[0", "1]"], 1, 2),
        (["{", '"k": 1,', " }"], 2, 9),
        (['"\ud800"', " ", "x"], 2, 4),
        (['"\U0001f680', '"', " x"], 2, 4),
    ],
)
def test_feed_raises_in_the_fragment_holding_the_first_bad_character(
    fragments: list[str], bad_fragment: int, pos: int
) -> None:
    text = "".join(fragments)
    parser = tooljson.Parser()
    for fragment in fragments[:bad_fragment]:
        parser.feed(fragment)
    assert parser.status.state != "malformed"
    with pytest.raises(tooljson.MalformedJSONError) as raised:
        parser.feed(fragments[bad_fragment])
    error = raised.value
    fed = "".join(fragments[: bad_fragment + 1])
    assert (error.pos, error.doc) == (pos, fed)
    assert_error_position(fed, error)
    status = parser.status
    assert (status.state, status.pos, status.msg) == ("malformed", pos, error.msg)
    # Every later call reports the same error: the text cannot recover.
    for fragment in [*fragments[bad_fragment + 1 :], "[]"]:
        with pytest.raises(tooljson.MalformedJSONError) as again:
            parser.feed(fragment)
        assert again.value.pos == pos
    with pytest.raises(tooljson.MalformedJSONError) as at_finish:
        parser.finish()
    assert at_finish.value.pos == pos
    # json.loads rejects the same text, never later than we do.
    with pytest.raises(json.JSONDecodeError) as from_json:
        json.loads(text)
    assert from_json.value.pos <= pos


def statuses(fragments: list[str]) -> Iterator[tuple[str, int | None]]:
    parser = tooljson.Parser()
    yield parser.status.state, parser.status.pos
    for fragment in fragments:
        parser.feed(fragment)
        yield parser.status.state, parser.status.pos


def test_status_goes_from_incomplete_to_complete() -> None:
    assert list(statuses(['{"a"', ": [1", ", 2]", "}", " \n"])) == [
        ("incomplete", 0),
        ("incomplete", 4),
        ("incomplete", 8),
        ("incomplete", 12),
        ("complete", None),
        ("complete", None),
    ]


def test_top_level_number_is_complete_while_more_digits_could_follow() -> None:
    assert list(statuses(["-", "1", "2", ".", "5", "e", "+", "3"])) == [
        ("incomplete", 0),
        ("incomplete", 1),
        ("complete", None),
        ("complete", None),
        ("incomplete", 4),
        ("complete", None),
        ("incomplete", 6),
        ("incomplete", 7),
        ("complete", None),
    ]
    parser = tooljson.Parser()
    parser.feed("12")
    assert parser.status.state == "complete"
    parser.feed("3")
    assert parser.finish() == 123
    # Inside a container a number is never the end: the closer is still missing.
    assert list(statuses(["[12"])) == [("incomplete", 0), ("incomplete", 3)]


def test_status_is_a_comparable_value() -> None:
    first, second = tooljson.Parser(), tooljson.Parser()
    for parser in (first, second):
        parser.feed("[1, ")
    assert first.status == second.status
    assert hash(first.status) == hash(second.status)
    assert first.status.msg
    second.feed("2]")
    assert first.status != second.status
    assert "incomplete" in repr(first.status)


def test_text_is_the_joined_fragments_unchanged() -> None:
    fragments = ['{"s": "caf', "é \ud800", ' \U0001f680\\n"', ",  "]
    parser = tooljson.Parser()
    for position, fragment in enumerate(fragments, start=1):
        parser.feed(fragment)
        assert parser.text == "".join(fragments[:position])
    assert tooljson.Parser().text == ""


def test_finish_twice_gives_the_same_result() -> None:
    parser = tooljson.Parser()
    parser.feed('{"a": [1, 2.5, "x"]}')
    first = parser.finish()
    assert_same_json(parser.finish(), first)
    assert first == {"a": [1, 2.5, "x"]}

    cut_off = tooljson.Parser()
    cut_off.feed('{"a": [1')
    errors = []
    for _ in range(2):
        with pytest.raises(tooljson.IncompleteJSONError) as raised:
            cut_off.finish()
        errors.append(raised.value)
    assert [(type(error), error.pos, error.doc) for error in errors] == [
        (tooljson.IncompleteJSONError, 8, '{"a": [1')
    ] * 2


def test_feed_after_a_successful_finish_raises_runtime_error() -> None:
    parser = tooljson.Parser()
    parser.feed("[]")
    assert parser.finish() == []
    with pytest.raises(RuntimeError):
        parser.feed(" ")
    assert parser.finish() == []


@pytest.mark.parametrize("text", ["", "   ", "\n\t\r "])
def test_empty_or_blank_text_is_incomplete_at_its_end(text: str) -> None:
    for error in (loads_outcome(text).error, parser_outcome([text]).error):
        assert isinstance(error, tooljson.IncompleteJSONError)
        assert (error.pos, error.doc) == (len(text), text)
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


@pytest.mark.parametrize("max_depth", [1, 2, 17, 1000])
@pytest.mark.parametrize("opener", ["[", '{"k": '])
def test_max_depth_is_the_deepest_nesting_that_parses(max_depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    at_limit = opener * max_depth + "0" + closer * max_depth
    value = tooljson.loads(at_limit, max_depth=max_depth)
    for _ in range(max_depth):
        value = value[0] if opener == "[" else value["k"]
    assert value == 0
    parser = tooljson.Parser(max_depth=max_depth)
    parser.feed(at_limit)
    assert parser.status.state == "complete"

    too_deep = opener * (max_depth + 1) + "0" + closer * (max_depth + 1)
    expected_pos = len(opener) * max_depth
    with pytest.raises(tooljson.NestingTooDeepError) as raised:
        tooljson.loads(too_deep, max_depth=max_depth)
    error = raised.value
    assert isinstance(error, RecursionError)
    assert isinstance(error, json.JSONDecodeError)
    assert isinstance(error, tooljson.MalformedJSONError)
    assert error.pos == expected_pos
    assert_error_position(too_deep, error, max_depth=max_depth)
    # The fragment holding the opener one level too deep is the one that raises.
    parser = tooljson.Parser(max_depth=max_depth)
    parser.feed(too_deep[:expected_pos])
    with pytest.raises(tooljson.NestingTooDeepError):
        parser.feed(too_deep[expected_pos:])


def test_default_max_depth_is_1000() -> None:
    tooljson.loads("[" * 1000 + "]" * 1000)
    with pytest.raises(tooljson.NestingTooDeepError) as raised:
        tooljson.loads("[" * 1001 + "]" * 1001)
    assert raised.value.pos == 1000


def test_depth_counts_open_containers_not_total_ones() -> None:
    # Many containers side by side are not deep.
    text = "[" + ", ".join(["[[{}]]"] * 5000) + "]"
    assert_same_json(tooljson.loads(text, max_depth=4), json.loads(text))


LIMIT = sys.get_int_max_str_digits()


@pytest.mark.parametrize(
    "text",
    [
        "1" * LIMIT,
        "-" + "1" * LIMIT,
        "1" * (LIMIT + 1),
        "-" + "9" * (LIMIT + 1),
        "[" + "1" * (LIMIT + 1) + "]",
        '{"a": ' + "1" * (LIMIT + 1) + "}",
        # json.loads converts the integer before it finds what follows, so the ValueError wins over
        # a missing closer or a broken rest.
        "[" + "1" * (LIMIT + 1),
        "[" + "1" * (LIMIT + 1) + ", x]",
        # A fraction or exponent makes it a float, which has no digit limit.
        "1" * (LIMIT + 1) + ".5",
        "1" * (LIMIT + 1) + "e5",
    ],
)
def test_integer_digit_limit_as_json_loads(text: str) -> None:
    expected = json_outcome(text)
    assert_matches_json(text, loads_outcome(text), expected)
    for fragments in ([text], split_at(text, [1, len(text) // 2, len(text) - 1])):
        assert_matches_json(text, parser_outcome(fragments), expected)
        assert_matches_json(text, accumulator_outcome(fragments), expected)


@pytest.mark.parametrize(
    "text",
    [
        # json.loads reads the longest number it can, here the integer before a "." or "e" that no
        # digit follows, converts it, and raises the ValueError before noticing what is left.
        "1" * (LIMIT + 1) + ".",
        "1" * (LIMIT + 1) + "e",
        "[" + "1" * (LIMIT + 1) + ".x]",
        "[" + "1" * (LIMIT + 1) + "e+]",
    ],
)
def test_integer_digit_limit_before_a_broken_fraction_or_exponent(text: str) -> None:
    expected = json_outcome(text)
    assert type(expected.error) is ValueError
    assert_matches_json(text, loads_outcome(text), expected)
    for cut in (len(text) - 3, len(text) - 2, len(text) - 1):
        fragments = split_at(text, [cut])
        assert_matches_json(text, parser_outcome(fragments), expected)
        assert_matches_json(text, accumulator_outcome(fragments), expected)


def test_integer_digit_limit_follows_the_interpreter_setting() -> None:
    text = "[" + "7" * 1000 + "]"
    previous = sys.get_int_max_str_digits()
    try:
        sys.set_int_max_str_digits(640)
        assert_matches_json(text, loads_outcome(text), json_outcome(text))
        assert type(loads_outcome(text).error) is ValueError
        sys.set_int_max_str_digits(0)
        assert tooljson.loads(text) == [int("7" * 1000)]
    finally:
        sys.set_int_max_str_digits(previous)


@pytest.mark.parametrize("text", ["\ufeff{}", "\ufeff", '\ufeff"x"', " \ufeff[]"])
def test_byte_order_mark_is_rejected(text: str) -> None:
    error = loads_outcome(text).error
    assert isinstance(error, tooljson.MalformedJSONError)
    assert error.pos == text.index("\ufeff")
    assert_matches_json(text, loads_outcome(text), json_outcome(text))
    # Inside a string it is an ordinary character.
    assert tooljson.loads('"\ufeff"') == "\ufeff"


@pytest.mark.parametrize("code", [*range(0x20), 0x7F, 0x85, 0x2028])
def test_control_characters_inside_strings(code: int) -> None:
    text = '["ab' + chr(code) + 'c"]'
    outcome = loads_outcome(text)
    assert_matches_json(text, outcome, json_outcome(text))
    # Below U+0020 a raw character is an error at its own position; above, it is content.
    if code < 0x20:
        assert isinstance(outcome.error, tooljson.MalformedJSONError)
        assert outcome.error.pos == 4
    else:
        assert outcome.value == ["ab" + chr(code) + "c"]


@pytest.mark.parametrize("char", ["\x0b", "\x0c", "\xa0", "\u2028", "\u3000", "\x00"])
def test_only_four_whitespace_characters_between_tokens(char: str) -> None:
    text = "[1," + char + "2]"
    outcome = loads_outcome(text)
    assert isinstance(outcome.error, tooljson.MalformedJSONError)
    assert outcome.error.pos == 3
    assert_matches_json(text, outcome, json_outcome(text))
    assert tooljson.loads("[1,\t\n\r 2]") == [1, 2]


@pytest.mark.parametrize(
    "fragments",
    [
        ['["', "\ud800", '"]'],
        ['["\\ud83d', "\ude80", '"]'],
        ['["\ud83d', '\ude80"]'],
        ['{"\udc00": "\udbff\udfff"}'],
        ['"\\ud800', "\\udc00", '\\ud800"'],
    ],
)
def test_lone_surrogates_in_fragments(fragments: list[str]) -> None:
    text = "".join(fragments)
    expected = json_outcome(text)
    assert expected.accepted
    assert_matches_json(text, parser_outcome(fragments), expected)
    assert_matches_json(text, accumulator_outcome(fragments), expected)
    parser = tooljson.Parser()
    for fragment in fragments:
        parser.feed(fragment)
    assert parser.text == text


def test_lone_surrogate_outside_a_string_is_malformed_at_its_position() -> None:
    text = "[1, \ud800]"
    error = loads_outcome(text).error
    assert isinstance(error, tooljson.MalformedJSONError)
    assert (error.pos, error.doc) == (4, text)
    assert_matches_json(text, loads_outcome(text), json_outcome(text))


def test_positions_count_characters_not_bytes() -> None:
    # "é" is two bytes, the rocket four, a lone surrogate three in the parser's encoding; pos counts
    # each as one character, as Python indexes str.
    text = '{"é\U0001f680\ud800": [1,\n "\U0001f680" x]}'
    error = loads_outcome(text).error
    assert isinstance(error, tooljson.MalformedJSONError)
    assert error.pos == text.index("x")
    assert (error.lineno, error.colno) == (2, text.index("x") - text.index("\n"))
    assert str(error) == f"{error.msg}: line 2 column {error.colno} (char {error.pos})"


def test_errors_pickle_like_json_errors() -> None:
    for text in ['{"a": ', '{"a": }', "[" * 1001]:
        error = loads_outcome(text).error
        assert isinstance(error, tooljson.JSONDecodeError)
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error)
        assert (copy.msg, copy.doc, copy.pos, copy.lineno, copy.colno) == (
            error.msg,
            error.doc,
            error.pos,
            error.lineno,
            error.colno,
        )


@pytest.mark.parametrize(
    "text", ["NaN", "Infinity", "-Infinity", "[NaN, -Infinity]", "-0", "-0.0", "1E400", "-1e400", "1e-400"]
)
def test_special_numbers_are_bit_identical(text: str) -> None:
    expected = json_outcome(text)
    assert_matches_json(text, loads_outcome(text), expected)
    for cut in range(len(text) + 1):
        assert_matches_json(text, parser_outcome(split_at(text, [cut])), expected)


def fitting_prefix(text: str, max_size: int) -> int:
    """The most characters of ``text`` whose UTF-8 encoding fits in ``max_size`` bytes."""
    size = 0
    for position, char in enumerate(text):
        size += len(char.encode("utf-8", "surrogatepass"))
        if size > max_size:
            return position
    return len(text)


SIZED_TEXTS = ["[1, 2, 3]", '"ééé"', '{"k": "\U0001f680\U0001f680"}']


@pytest.mark.parametrize("text", SIZED_TEXTS)
def test_max_size_counts_utf8_bytes(text: str) -> None:
    size = len(text.encode())
    # Exactly max_size bytes parse as json.loads parses them.
    assert_same_json(tooljson.loads(text, max_size=size), json.loads(text))
    parser = tooljson.Parser(max_size=size)
    for char in text:
        parser.feed(char)
    assert_same_json(parser.finish(), json.loads(text))

    # Any smaller limit: the fragment that crosses it raises, whichever it is, and is kept only up
    # to the limit.
    for limit in range(size):
        check_size_limit(text, limit)


def check_size_limit(text: str, limit: int) -> None:
    expected_pos = fitting_prefix(text, limit)
    with pytest.raises(tooljson.InputTooLargeError) as from_loads:
        tooljson.loads(text, max_size=limit)
    assert isinstance(from_loads.value, tooljson.MalformedJSONError)
    assert isinstance(from_loads.value, json.JSONDecodeError)
    assert from_loads.value.pos == expected_pos, (limit, from_loads.value.pos, expected_pos)
    for fragments in [list(text), *(split_at(text, [cut]) for cut in range(len(text) + 1))]:
        parser = tooljson.Parser(max_size=limit)
        fed = ""
        for fragment in fragments:
            if len((fed + fragment).encode()) <= limit:
                parser.feed(fragment)
                fed += fragment
                continue
            with pytest.raises(tooljson.InputTooLargeError) as raised:
                parser.feed(fragment)
            assert raised.value.pos == expected_pos
            assert raised.value.doc == text[:expected_pos] == parser.text
            assert (parser.status.state, parser.status.pos) == ("malformed", expected_pos)
            break
        with pytest.raises(tooljson.InputTooLargeError) as at_finish:
            parser.finish()
        assert at_finish.value.pos == expected_pos


def test_max_size_in_the_accumulator_never_raises_in_add_delta() -> None:
    accumulator = tooljson.ToolCallAccumulator(max_size=8)
    accumulator.start(0, "t", "toolu_0")
    accumulator.add_delta(0, '{"a": ')
    accumulator.add_delta(0, '"long value"}')
    accumulator.add_delta(0, " ")
    assert accumulator.status(0).state == "malformed"
    assert accumulator.text(0) == '{"a": "l'
    with pytest.raises(tooljson.InputTooLargeError) as raised:
        accumulator.finish(0)
    assert raised.value.pos == 8
    assert 0 not in accumulator


def test_first_error_wins_over_the_size_limit_however_the_text_is_cut() -> None:
    # The "]" after a comma breaks the text at offset 3, before the 5-byte limit is reached.
    text = "[1,]xxxxx"
    outcomes = set()
    for fragments in [[text], list(text), *(split_at(text, [cut]) for cut in range(len(text) + 1))]:
        error = parser_outcome_with(fragments, max_size=5)
        outcomes.add((type(error).__name__, error.pos))
    assert len(outcomes) == 1, outcomes


def parser_outcome_with(fragments: list[str], *, max_size: int) -> json.JSONDecodeError:
    parser = tooljson.Parser(max_size=max_size)
    try:
        for fragment in fragments:
            parser.feed(fragment)
        parser.finish()
    except json.JSONDecodeError as error:
        return error
    raise AssertionError("the text was accepted")
