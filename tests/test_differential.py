"""Differential tests: tooljson against json.loads on generated documents, whole and in fragments.

Documents come from two sources: Python values serialised by ``json.dumps`` in its various styles,
and a serialiser of our own that writes JSON text directly, so that it can use what ``json.dumps``
never writes: random escapes (``\\/``, ``\\u00E9``, surrogate pairs, lone surrogates), whitespace of
every kind between tokens, duplicate keys (also spelt differently), ``-0``, ``1E400``, long exponents.
Each is cut into generated fragments. Broken variants (cut off, one character inserted or deleted,
data after the value) must be rejected exactly when json.loads rejects them, with the right class
and position.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import tooljson
from helpers import (
    Outcome,
    accumulator_outcome,
    assert_error_position,
    assert_matches_json,
    assert_same_json,
    expected_input,
    is_int_digits_error,
    json_outcome,
    loads_outcome,
    parser_outcome,
    same_json,
    split_at,
)
from hypothesis import assume, given, settings
from hypothesis import strategies as st

# Characters of every sort a string can hold: any code point (json.dumps and our serialiser decide
# how to write it), surrogates on their own, and the ones that must or may be escaped.
STRING_CHARACTERS = st.one_of(
    st.characters(),
    st.characters(codec=None, categories=["Cs"]),
    st.sampled_from(['"', "\\", "/", "\x00", "\x1f", "\x7f", "\u2028", "\ufeff", "é", "\U0001f680"]),
)
# A list joined, not st.text: st.text draws from such a mixed alphabet with surrogates and the
# special characters all but missing.
PYTHON_STRINGS = st.lists(STRING_CHARACTERS, max_size=12).map("".join)

SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "\\/",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}
WHITESPACE = st.text(st.sampled_from(" \t\n\r"), max_size=3)

NUMBER_TEXTS = st.one_of(
    st.from_regex(r"-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,20})?([eE][-+]?[0-9]{1,3})?", fullmatch=True),
    st.sampled_from(
        [
            "-0",
            "-0.0",
            "0e0",
            "0E-0",
            "1E400",
            "-1e400",
            "1e-400",
            "4.9e-324",
            "2.2250738585072014e-308",
            "1.7976931348623157e308",
            "9007199254740993",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775809",
            "0.1000000000000000055511151231257827",
            "NaN",
            "Infinity",
            "-Infinity",
        ]
    ),
    # Integers of any size up to a few hundred digits, well within Python's conversion limit.
    st.integers(min_value=-(10**400), max_value=10**400).map(str),
)


def hex4(code: int, upper: bool) -> str:
    digits = f"{code:04x}"
    return "\\u" + (digits.upper() if upper else digits)


@st.composite
def string_texts(draw: st.DrawFn) -> str:
    """A JSON string literal whose characters are each written raw or escaped, at random."""
    content = draw(PYTHON_STRINGS)
    choices = draw(st.lists(st.integers(0, 3), min_size=len(content), max_size=len(content)))
    out = ['"']
    for char, choice in zip(content, choices):
        code = ord(char)
        must_escape = char in '"\\' or code < 0x20
        if choice == 0 and not must_escape:
            out.append(char)
        elif choice == 1 and char in SHORT_ESCAPES:
            out.append(SHORT_ESCAPES[char])
        elif code > 0xFFFF:
            # An astral character as an escaped surrogate pair.
            high = 0xD800 + ((code - 0x10000) >> 10)
            low = 0xDC00 + ((code - 0x10000) & 0x3FF)
            out.append(hex4(high, choice == 2) + hex4(low, choice == 3))
        else:
            out.append(hex4(code, choice >= 2))
    out.append('"')
    return "".join(out)


# Keys drawn from a small pool repeat often; "\u0061" is "a" spelt otherwise, a duplicate json.loads
# only sees after decoding.
KEY_TEXTS = st.one_of(st.sampled_from(['"a"', '"b"', '"\\u0061"', '""']), string_texts())
LEAF_TEXTS = st.one_of(
    NUMBER_TEXTS, string_texts(), st.sampled_from(["true", "false", "null", "NaN", "Infinity", "-Infinity"])
)


@st.composite
def array_text(draw: st.DrawFn, children: st.SearchStrategy[str]) -> str:
    items = draw(st.lists(children, max_size=5))
    gaps = [draw(WHITESPACE) for _ in range(2 * len(items) + 1)]
    if not items:
        return "[" + gaps[0] + "]"
    parts = ["["]
    for position, item in enumerate(items):
        parts += [gaps[2 * position], item, gaps[2 * position + 1], ","]
    parts[-1] = "]"
    return "".join(parts)


@st.composite
def object_text(draw: st.DrawFn, children: st.SearchStrategy[str]) -> str:
    members = draw(st.lists(st.tuples(KEY_TEXTS, children), max_size=5))
    if not members:
        return "{" + draw(WHITESPACE) + "}"
    parts = ["{"]
    for key, value in members:
        parts += [
            draw(WHITESPACE),
            key,
            draw(WHITESPACE),
            ":",
            draw(WHITESPACE),
            value,
            draw(WHITESPACE),
            ",",
        ]
    parts[-1] = "}"
    return "".join(parts)


@st.composite
def nested_text(draw: st.DrawFn) -> str:
    """A value wrapped in up to 200 arrays and objects: deep, but within what json.loads can parse."""
    depth = draw(st.integers(1, 200))
    openers = draw(st.lists(st.booleans(), min_size=depth, max_size=depth))
    inner = draw(LEAF_TEXTS)
    head = "".join('{"k":' if is_object else "[" for is_object in openers)
    tail = "".join("}" if is_object else "]" for is_object in reversed(openers))
    return head + inner + tail


CUSTOM_DOCUMENTS = st.one_of(
    st.tuples(
        WHITESPACE,
        st.recursive(
            LEAF_TEXTS, lambda children: st.one_of(array_text(children), object_text(children)), max_leaves=25
        ),
        WHITESPACE,
    ).map("".join),
    nested_text(),
)

PYTHON_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**300), max_value=10**300),
        st.floats(allow_nan=True, allow_infinity=True),
        PYTHON_STRINGS,
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=5), st.dictionaries(PYTHON_STRINGS, children, max_size=5)
    ),
    max_leaves=25,
)


@st.composite
def dumped_documents(draw: st.DrawFn) -> str:
    """A Python value written by json.dumps in one of its styles."""
    value = draw(PYTHON_VALUES)
    return json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, 0, 2, "\t", " \r\n"])),
        separators=draw(st.sampled_from([None, (",", ":"), (" , ", " : "), (",\n", ":\t")])),
        sort_keys=draw(st.booleans()),
    )


DOCUMENTS = st.one_of(CUSTOM_DOCUMENTS, dumped_documents())


@st.composite
def fragmentations(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut into fragments: whole, per character, or at a few to many random offsets."""
    how = draw(st.sampled_from(["whole", "characters", "random", "random"]))
    if how == "whole":
        return [text]
    if how == "characters" and len(text) <= 400:
        return list(text)
    cuts = draw(st.lists(st.integers(0, len(text)), max_size=30))
    return split_at(text, cuts)


def check_all_ways(text: str, fragments: list[str]) -> Outcome:
    """Parses ``text`` through loads, a Parser and an accumulator; each must match json.loads."""
    expected = json_outcome(text)
    assert_matches_json(text, loads_outcome(text), expected)
    assert_matches_json(text, parser_outcome(fragments), expected)
    assert_matches_json(text, accumulator_outcome(fragments), expected_input(text))
    return expected


@settings(max_examples=700)
@given(data=st.data(), text=DOCUMENTS)
def test_valid_documents_parse_as_json_loads_parses_them(data: st.DataObject, text: str) -> None:
    expected = check_all_ways(text, data.draw(fragmentations(text)))
    # Generated documents are valid: a rejection here means the generator, not tooljson, is wrong.
    assert expected.accepted, expected.error


@settings(max_examples=150)
@given(text=DOCUMENTS)
def test_every_cut_off_prefix_is_incomplete_or_what_json_loads_accepts(text: str) -> None:
    # Cut-off texts are valid prefixes by construction, which tells IncompleteJSONError apart from
    # MalformedJSONError without asking the parser under test.
    rng = random.Random(len(text))
    cuts = range(len(text)) if len(text) <= 600 else sorted(rng.sample(range(len(text)), 600))
    parser = tooljson.Parser()
    fed = 0
    for cut in cuts:
        prefix = text[:cut]
        parser.feed(text[fed:cut])
        fed = cut
        expected = json_outcome(prefix)
        # A prefix json.loads accepts ends a complete value: a top-level number or a value
        # followed by whitespace. Anything else must wait for more text.
        assert parser.status.state == ("complete" if expected.accepted else "incomplete"), (
            prefix,
            parser.status,
        )
        ours = loads_outcome(prefix)
        assert_matches_json(prefix, ours, expected)
        if not expected.accepted:
            assert isinstance(ours.error, tooljson.IncompleteJSONError), repr(ours.error)
            assert ours.error.pos == cut
            assert parser.status.pos == cut


INSERTED_CHARACTERS = st.one_of(
    st.sampled_from(list('{}[],:"\\/ \t\n\r0123456789-+.eEtrufalsnNIy\x00\x1f\ud800\udc00\ufeffé\U0001f680')),
    st.characters(codec=None),
)


@settings(max_examples=800)
@given(data=st.data(), text=DOCUMENTS, where=st.floats(0, 1), char=INSERTED_CHARACTERS, delete=st.booleans())
def test_one_character_inserted_or_deleted(
    data: st.DataObject, text: str, where: float, char: str, delete: bool
) -> None:
    position = min(int(where * len(text)), len(text))
    if delete:
        assume(position < len(text))
        broken = text[:position] + text[position + 1 :]
    else:
        broken = text[:position] + char + text[position:]
    check_all_ways(broken, data.draw(fragmentations(broken)))


@settings(max_examples=200)
@given(
    data=st.data(),
    first=DOCUMENTS,
    separator=st.text(st.sampled_from(" \t\n\r"), min_size=1, max_size=3),
    second=DOCUMENTS,
)
def test_data_after_a_complete_value_is_malformed_at_its_first_character(
    data: st.DataObject, first: str, separator: str, second: str
) -> None:
    text = first + separator + second.lstrip(" \t\n\r")
    # The second value starts right after the whitespace, whatever the first value ended with.
    expected_pos = len(first + separator)
    expected = check_all_ways(text, data.draw(fragmentations(text)))
    assert isinstance(expected.error, json.JSONDecodeError)
    error = loads_outcome(text).error
    assert isinstance(error, tooljson.MalformedJSONError)
    assert error.pos == expected_pos
    assert parser_outcome(data.draw(fragmentations(text))).error.pos == expected_pos  # type: ignore[union-attr]


@settings(max_examples=100)
@given(data=st.data(), text=DOCUMENTS)
def test_errors_carry_json_fields_for_multi_line_text(data: st.DataObject, text: str) -> None:
    # Breaks the document at a random place after some lines, where lineno and colno matter.
    lines = text.split("\n")
    assume(len(lines) > 2)
    cut = data.draw(st.integers(1, len(lines) - 1))
    broken = "\n".join(lines[:cut]) + "\n@" + "\n".join(lines[cut:])
    error = loads_outcome(broken).error
    assert isinstance(error, tooljson.MalformedJSONError)
    assert_error_position(broken, error)
    assert error.lineno >= 2
    # A newline is always whitespace between tokens, so the "@" after it is the offending character.
    assert error.pos == len("\n".join(lines[:cut])) + 1


def test_surrogate_pair_split_between_fragments_combines() -> None:
    text = '"\\ud83d\\ude80"'
    expected = json.loads(text)
    assert expected == "\U0001f680"
    for cut in range(len(text) + 1):
        fragments = split_at(text, [cut])
        assert_same_json(parser_outcome(fragments).value, expected)
        assert_same_json(accumulator_outcome(fragments).value, expected)


@pytest.mark.parametrize(
    "text",
    [
        # An escaped high surrogate then a raw low one: json.loads keeps two separate code points.
        '["\\ud83d\ude80"]',
        # Raw surrogates, alone and as a "pair" of separate code points.
        '["\ud800", "\udfff\ud800", "\ud83d\ude80"]',
        # A high surrogate escape followed by escapes that are not a low surrogate.
        '["\\ud83d\\u0041", "\\ud83d\\n", "\\ud83d\\ud83d\\ude80", "\\udc00\\ud800"]',
        '{"\\ud800": 1, "\ud800": 2}',
    ],
)
def test_lone_surrogates_as_json_loads_keeps_them(text: str) -> None:
    expected = json.loads(text)
    assert_same_json(tooljson.loads(text), expected)
    for cut in range(len(text) + 1):
        assert_same_json(parser_outcome(split_at(text, [cut])).value, expected)


def test_same_json_tells_apart_what_equality_confuses() -> None:
    # The comparison helper is what makes every test above strict: it must see these differences.
    confusable: list[tuple[Any, Any]] = [
        (True, 1),
        (False, 0),
        (1, 1.0),
        (0.0, -0.0),
        (float("inf"), 1e308),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
        ([1, [True]], [1, [1]]),
        ("\ud83d\ude80", "\U0001f680"),
        (10**400, 10**400 + 1),
        (None, {}),
    ]
    for left, right in confusable:
        assert not same_json(left, right), (left, right)
        assert not same_json(right, left), (right, left)
    nan = float("nan")
    assert same_json([nan, -0.0, {"x": [10**400]}], [float("nan"), -0.0, {"x": [10**400]}])
    # Nesting far beyond the recursion limit is compared too, down to the innermost difference.
    deep: Any = []
    other: Any = []
    for _ in range(5000):
        deep, other = [deep], [other]
    assert same_json(deep, other)
    other_leaf: Any = [None]
    for _ in range(5000):
        other_leaf = [other_leaf]
    assert not same_json(deep, other_leaf)


@settings(max_examples=300)
@given(
    data=st.data(),
    text=DOCUMENTS,
    partial_strings=st.booleans(),
    string_limit=st.sampled_from([None, 0, 1, 5]),
    broken=st.booleans(),
)
def test_previews_and_events_leave_the_result_exact(
    data: st.DataObject, text: str, partial_strings: bool, string_limit: int | None, broken: bool
) -> None:
    # The preview is the value under construction itself: looking at it (and logging events) after
    # every fragment, open strings and pending surrogate halves included, must not change what
    # finish returns or raises.
    if broken:
        position = data.draw(st.integers(0, len(text)))
        text = text[:position] + data.draw(INSERTED_CHARACTERS) + text[position:]
    fragments = data.draw(fragmentations(text))
    parser = tooljson.Parser(events=True, partial_strings=partial_strings, preview_string_limit=string_limit)
    for fragment in fragments:
        try:
            parser.feed(fragment)
        except tooljson.MalformedJSONError:
            pass
        except ValueError as error:
            assert is_int_digits_error(error), repr(error)
        parser.preview()
        parser.events()
    try:
        ours = Outcome(value=parser.finish())
    except (ValueError, RecursionError) as error:
        ours = Outcome(error=error)
    assert_matches_json(text, ours, json_outcome(text))


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_many_distinct_short_keys(ensure_ascii: bool) -> None:
    # Short keys are the common case and the one worth caching: thousands of distinct ones, built
    # from few characters so that many share bytes and hashes, must each come out as themselves.
    rng = random.Random(1)
    alphabet = "ab\u00e9\ud800\U0001f680"
    keys = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4))) for _ in range(3000)]
    document = [
        {key: number for number, key in enumerate(keys[start : start + 300])} for start in range(0, 3000, 100)
    ]
    text = json.dumps(document, ensure_ascii=ensure_ascii)
    expected = json.loads(text)
    assert_same_json(tooljson.loads(text), expected)
    fragments = split_at(text, rng.sample(range(len(text)), 500))
    assert_same_json(parser_outcome(fragments).value, expected)
    assert_same_json(accumulator_outcome(fragments).value, expected)


def test_keys_spelt_differently_are_the_same_key() -> None:
    # An escaped and a raw spelling decode to one key: the later value wins, the first place stays.
    text = (
        '{"\\u00e9": 1, "\u00e9": 2, "\\ud83d\\ude80": 3, "\U0001f680": 4, "\\ud83d": 5, "\ud83d": 6, "x": 0}'
    )
    expected = json.loads(text)
    assert list(expected.items()) == [("é", 2), ("\U0001f680", 4), ("\ud83d", 6), ("x", 0)]
    for cut in range(len(text) + 1):
        assert_same_json(parser_outcome(split_at(text, [cut])).value, expected)


# Integers at the lengths where the conversion changes: a machine word (19 digits), 38 digits read
# by the extension itself, 39 and more read by CPython; each also negative, and in a document cut at
# every point.
EDGE_INTEGERS = [
    sign + digits
    for sign in ("", "-")
    for base in (2**63, 2**64, 2**127, 10**18, 10**19, 10**37, 10**38, 10**39)
    for digits in (str(base - 1), str(base), str(base + 1), "9" * len(str(base - 1)), "9" * len(str(base)))
] + ["0", "-0"]


def test_integers_at_the_conversion_edges_as_json_loads() -> None:
    text = json.dumps([json.loads(number) for number in EDGE_INTEGERS])
    assert_same_json(tooljson.loads(text), json.loads(text))
    for number in EDGE_INTEGERS:
        assert_same_json(tooljson.loads(number), json.loads(number))
        for cut in range(len(number) + 1):
            accumulator = tooljson.ToolCallAccumulator()
            accumulator.start(0, "tool", "toolu_01")
            accumulator.add_delta(0, f'{{"n": {number[:cut]}')
            accumulator.add_delta(0, f"{number[cut:]}}}")
            assert_same_json(accumulator.finish(0)["input"], {"n": json.loads(number)})


# Decimals around the limits of the extension's own float reading (`short_decimal` in convert.rs):
# digits up to 2^53 read as an integer, up to 22 fraction digits, no exponent; beyond, Rust's parser.
EDGE_DECIMALS = [
    sign + text
    for sign in ("", "-")
    for text in (
        "0.0",
        "0.1",
        "0.5",
        "1.0",
        "370.51599",
        "0.3",
        "2.675",
        "1.7976931348623157",
        f"{2**53}.0",
        f"{2**53 - 1}.0",
        f"{2**53 + 1}.0",
        f"{2**53 + 2}.0",
        f"{str(2**53)[:8]}.{str(2**53)[8:]}",
        f"{str(2**53 + 1)[:8]}.{str(2**53 + 1)[8:]}",
        "0." + "1" * 15,
        "0." + "0" * 21 + "1",
        "0." + "0" * 22 + "1",
        "0." + "9" * 22,
        "0." + "9" * 23,
        "123456789012345.6",
        "12345678901234567.8",
        "99999999999999999999.5",
        "1.0e5",
        "1.5E-3",
        # Past 2^53 these would round twice if read as an integer first.
        "9007199254740.995",
        "9007199254740.999",
        "9007199254741.001",
    )
]


def test_decimals_at_the_fast_path_edges_as_json_loads() -> None:
    text = json.dumps([json.loads(number) for number in EDGE_DECIMALS])
    assert_same_json(tooljson.loads(text), json.loads(text))
    raw = "[" + ", ".join(EDGE_DECIMALS) + "]"
    assert_same_json(tooljson.loads(raw), json.loads(raw))
    for number in EDGE_DECIMALS:
        assert_same_json(tooljson.loads(number), json.loads(number))
        accumulator = tooljson.ToolCallAccumulator()
        accumulator.start(0, "tool", "toolu_01")
        for piece in (f'{{"n": {number[:3]}', f"{number[3:]}}}"):
            accumulator.add_delta(0, piece)
        assert_same_json(accumulator.finish(0)["input"], {"n": json.loads(number)})
