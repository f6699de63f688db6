"""`tooljson.loads` of a text read in its own width, against json.loads.

With the full API, `loads` reads a `str` as it is stored (one, two or four bytes a character) and
looks for the end of each string sixteen characters a step (`src/python/direct.rs`, `units.rs`);
what it does not take (malformed text, nesting or size over the limits) the streaming parser reads
again. So every width of text is checked here with escapes and wide characters at every place
around a step, strings of every kind in texts of every width, and errors at their positions in
characters. The abi3 build reads every text through UTF-8: the same tests hold for it.
"""

from __future__ import annotations

import json
import sys

import pytest
import tooljson
from helpers import assert_matches_json, assert_same_json, json_outcome, loads_outcome
from hypothesis import given, settings
from hypothesis import strategies as st

# A character of each width a text can be stored in (ASCII, Latin-1, two bytes, four bytes), and a
# lone surrogate, which a two-byte text holds as a character of its own.
WIDTHS = ["a", "é", "ж", "\U0001f680", "\udc00"]

ESCAPES = [
    "\\n",
    '\\"',
    "\\\\",
    "\\/",
    "\\t",
    "\\u0041",
    "\\u00e9",
    "\\u4e2d",
    "\\ud83d\\ude80",
    "\\ud800",
    "\\udfff",
    "\\ud800\\u0041",
    "\\ud800\\ud800",
]


def _assert_same_strings(actual: object, expected: object) -> None:
    """Same value, and each string of the same size: a str of the wrong kind compares unequal or is
    larger."""
    assert_same_json(actual, expected)
    if isinstance(expected, str):
        assert sys.getsizeof(actual) == sys.getsizeof(expected)
    elif isinstance(expected, list):
        assert isinstance(actual, list)
        for left, right in zip(actual, expected, strict=True):
            _assert_same_strings(left, right)
    elif isinstance(expected, dict):
        assert isinstance(actual, dict)
        for (left_key, left), (right_key, right) in zip(actual.items(), expected.items(), strict=True):
            _assert_same_strings(left_key, right_key)
            _assert_same_strings(left, right)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("escape", ESCAPES)
def test_an_escape_at_every_place_around_a_step(width: str, escape: str) -> None:
    for offset in range(0, 36):
        for tail in (0, 1, 15, 16, 17):
            content = "a" * offset + escape + "b" * tail
            # The wide character in another string (the text's width only), at the string's start
            # and at its end.
            for text in (
                f'["{content}", "{width}"]',
                f'["{width}{content}"]',
                f'{{"{content}{width}": "{content}"}}',
            ):
                _assert_same_strings(tooljson.loads(text), json.loads(text))


@pytest.mark.parametrize("width", WIDTHS)
def test_a_wide_character_at_every_place_around_a_step(width: str) -> None:
    for offset in range(0, 40):
        for tail in (0, 1, 16, 70):
            content = "x" * offset + width + "y" * tail
            for other in ("", "é", "ж", "\U0001f680"):
                text = f'{{"k{other}": ["{content}", "{"z" * tail}"], "{content}": {offset}}}'
                _assert_same_strings(tooljson.loads(text), json.loads(text))


@pytest.mark.parametrize("width", WIDTHS)
def test_long_ascii_strings_and_keys_in_a_wide_text(width: str) -> None:
    for length in (15, 16, 17, 31, 32, 33, 63, 64, 65, 200):
        plain = "".join(
            chr(0x21 + (index * 7) % 90).replace('"', "q").replace("\\", "s") for index in range(length)
        )
        text = json.dumps({plain: [plain, width, {plain: plain}]}, ensure_ascii=False)
        _assert_same_strings(tooljson.loads(text), json.loads(text))


MALFORMED = [
    '["{wide}\x01"]',
    '["{wide}\\x"]',
    '["{wide}\\u12G4"]',
    '["{wide}\\u12"]',
    '["{wide}"',
    '["{wide}',
    '["{wide}",]',
    '{{"{wide}" 1}}',
    '{{"{wide}": 1,}}',
    '{{"{wide}": 1 "b": 2}}',
    '{{1: "{wide}"}}',
    '["{wide}", 01]',
    '["{wide}", 1.]',
    '["{wide}", -]',
    '["{wide}", 1e+]',
    '["{wide}", tru]',
    '["{wide}", nul',
    '["{wide}", -Inf]',
    '["{wide}"] x',
    '["{wide}"]\n\n  "{wide}"',
    '["{wide}" "{wide}"]',
    '\ufeff["{wide}"]',
    "",
    "   ",
]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("template", MALFORMED)
def test_errors_at_their_character_like_json_loads(width: str, template: str) -> None:
    for count in (1, 5, 17, 40):
        text = template.format(wide=("x" + width) * count)
        ours = loads_outcome(text)
        assert not ours.accepted
        assert_matches_json(text, ours, json_outcome(text))


@pytest.mark.parametrize("width", WIDTHS)
def test_limits_count_the_same_in_every_width(width: str) -> None:
    text = json.dumps({"k": [width * 10, [[[width]]]]}, ensure_ascii=False)
    size = len(text.encode("utf-8", "surrogatepass"))
    assert_same_json(tooljson.loads(text, max_size=size), json.loads(text))
    with pytest.raises(tooljson.JSONDecodeError):
        tooljson.loads(text, max_size=size - 1)
    assert_same_json(tooljson.loads(text, max_depth=5), json.loads(text))
    with pytest.raises(tooljson.NestingTooDeepError):
        tooljson.loads(text, max_depth=4)


@pytest.mark.parametrize("width", WIDTHS)
def test_numbers_literals_and_repeated_keys_in_every_width(width: str) -> None:
    text = (
        f'{{"{width}": [0, -0, 1.5, -2e-3, 1E400, 123456789012345678901234567890, '
        f"12345678901234567890123456789012345678901234567890, 370.51599, true, false, null, NaN, "
        f'Infinity, -Infinity], "a": 1, "{width}": {{}}, "a": [], "b": [{{}}, [], ""]}}'
    )
    _assert_same_strings(tooljson.loads(text), json.loads(text))
    digits = "7" * (sys.get_int_max_str_digits() + 1)
    text = f'["{width}", {digits}]'
    with pytest.raises(ValueError, match="integer string conversion") as error:
        tooljson.loads(text)
    assert type(error.value) is ValueError


VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(codec=None, exclude_categories=[])),
    lambda children: (
        st.lists(children, max_size=6)
        | st.dictionaries(st.text(st.characters(codec=None), max_size=20), children, max_size=6)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(VALUES, st.sampled_from(WIDTHS), st.booleans())
def test_any_document_in_any_width_like_json_loads(value: object, width: str, ensure_ascii: bool) -> None:
    text = json.dumps([value, width], ensure_ascii=ensure_ascii)
    _assert_same_strings(tooljson.loads(text), json.loads(text))
