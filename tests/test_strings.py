"""The `str`s the extension makes, against json.loads: every width, every length around the limits.

With the full API (the per-interpreter build) a `str` is allocated with its final kind and written
in place (`src/python/strings.rs`): text up to 64 bytes one character at a time, longer text sixteen
bytes at a time where they are ASCII and one character at a time where they are not. A `str` of the wrong kind would still print the same but
compare unequal to json.loads's, so every value is compared as json.loads gives it, also as a dict
key (hashing and lookup) and through the key cache (a second record with the same strings). The
abi3 build takes CPython's decoder for all of them: the same tests hold for it.
"""

from __future__ import annotations

import ctypes
import json

import pytest
import tooljson
from helpers import assert_same_json, split_at
from hypothesis import given, settings
from hypothesis import strategies as st

# Mostly ASCII, as text is, with characters of each wider kind and lone surrogates among them.
CHARACTERS = st.one_of(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.characters(min_codepoint=0x80, max_codepoint=0xFF),
    st.characters(min_codepoint=0x100, max_codepoint=0xFFFF, categories=["L", "N", "P", "S", "Z"]),
    st.characters(min_codepoint=0x10000),
    st.characters(codec=None, categories=["Cs"]),
)
STRINGS = st.lists(CHARACTERS, max_size=140).map("".join)

# One string per width at the lengths where the writing changes: under and over eight and sixteen
# bytes (the ASCII steps), around 64 bytes (where long text is measured differently), and long text
# whose wide characters fall at every place in a sixteen-byte step (written) and an eight-character
# step (read: `loads` encodes a text of more than 64 characters eight characters at a time).
EDGES = [
    prefix * count + last
    for prefix in (
        "a",
        "é",
        "ж",
        "\U0001f680",
        "\ud800",
        "abcdefghijklmnoé",
        "abcdefgh\U0001f680",
        "abcdé",
        "abcdefж",
    )
    for count in (0, 1, 6, 7, 8, 15, 16, 20, 21, 31, 32, 63, 64, 65, 100, 129)
    for last in ("", "a", "ÿ", "\u0100", "\uffff", "\U00010000", "\udfff")
]


def _document(strings: list[str], ensure_ascii: bool) -> str:
    records = [{text: text, "text": text} for text in strings]
    return json.dumps({"records": records + records}, ensure_ascii=ensure_ascii)


def _assert_same_strings(actual: object, text: str) -> None:
    expected = json.loads(text)
    assert_same_json(actual, expected)
    assert isinstance(actual, dict)
    for record, wanted in zip(actual["records"], expected["records"], strict=True):
        for key, value in wanted.items():
            # The same hash and the same kind: found as a key, equal as a value (a str of another
            # kind compares unequal), flagged ASCII alike (ASCII and Latin-1 share a kind).
            assert record[key] == value
            assert record[key].isascii() == value.isascii()
            assert next(iter(record)).isascii() == next(iter(wanted)).isascii()
            assert hash(next(iter(record))) == hash(next(iter(wanted)))


@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_strings_of_every_width_at_the_edges(ensure_ascii: bool) -> None:
    text = _document(EDGES, ensure_ascii)
    _assert_same_strings(tooljson.loads(text), text)


@settings(max_examples=150, deadline=None)
@given(strings=st.lists(STRINGS, min_size=1, max_size=4), ensure_ascii=st.booleans(), cuts=st.data())
def test_strings_like_json_loads_whole_and_in_fragments(
    strings: list[str], ensure_ascii: bool, cuts: st.DataObject
) -> None:
    text = _document(strings, ensure_ascii)
    _assert_same_strings(tooljson.loads(text), text)
    points = cuts.draw(st.lists(st.integers(0, len(text)), max_size=8).map(sorted))
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "tool", "toolu_01")
    for fragment in split_at(text, points):
        accumulator.add_delta(0, fragment)
    _assert_same_strings(accumulator.finish(0)["input"], text)


# Keys that differ in one byte, in length by one around the 24 bytes a key is remembered per
# position (`key_cache.rs`), in kind, or are lone surrogates; objects with more members than the 16
# positions told apart, nested deeper than the 8 depths told apart.
SIMILAR_KEYS = st.sampled_from(
    [
        "a",
        "b",
        "ab",
        "ba",
        "abcd",
        "abce",
        "k" * 7,
        "k" * 8,
        "k" * 9,
        "k" * 23,
        "k" * 23 + "x",
        "k" * 24,
        "k" * 24 + "x",
        "k" * 25,
        "é",
        "e",
        "ж",
        "\U0001f680",
        "\ud800",
        "\udc00",
        "",
    ]
)
SIMILAR_RECORDS = st.lists(
    st.dictionaries(SIMILAR_KEYS, st.integers(0, 9), max_size=20), min_size=2, max_size=6
)


@settings(max_examples=150, deadline=None)
@given(records=SIMILAR_RECORDS, depth=st.integers(0, 11), ensure_ascii=st.booleans(), cuts=st.data())
def test_keys_at_the_same_positions_like_json_loads(
    records: list[dict[str, int]], depth: int, ensure_ascii: bool, cuts: st.DataObject
) -> None:
    value: object = records
    for level in range(depth):
        value = {"k" * (level % 3): value, "level": level}
    text = json.dumps([value, value], ensure_ascii=ensure_ascii)
    assert_same_json(tooljson.loads(text), json.loads(text))
    points = cuts.draw(st.lists(st.integers(0, len(text)), max_size=8).map(sorted))
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(0, "tool", "toolu_01")
    for fragment in split_at(text, points):
        accumulator.add_delta(0, fragment)
    assert_same_json(accumulator.finish(0)["input"], json.loads(text))


def _with_kept_utf8(text: str) -> str:
    """A new ``str`` equal to ``text`` whose UTF-8 CPython has made and keeps with it."""
    copy = (text + "x")[:-1]
    size = ctypes.c_ssize_t()
    as_utf8 = ctypes.pythonapi.PyUnicode_AsUTF8AndSize
    as_utf8.argtypes = [ctypes.py_object, ctypes.POINTER(ctypes.c_ssize_t)]
    as_utf8.restype = ctypes.c_void_p
    assert as_utf8(copy, ctypes.byref(size))
    assert size.value == len(copy.encode("utf-8"))
    return copy


@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_loads_reads_every_form_of_str(ensure_ascii: bool) -> None:
    """A text is read from its own storage, from the UTF-8 CPython keeps for it, or (a subclass,
    not compact) through CPython: the same value each way."""
    text = _document([text for text in EDGES if "\ud800" not in text and "\udfff" not in text], ensure_ascii)
    expected = json.loads(text)
    assert_same_json(tooljson.loads(text), expected)
    assert_same_json(tooljson.loads(_with_kept_utf8(text)), expected)
    assert_same_json(tooljson.loads(_Subclass(text)), expected)


class _Subclass(str):
    """A str subclass: its characters live apart from its header (not compact), read another way."""


def _encoded_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("text", EDGES + ["", "a" * 5000 + "\U0001f680", "ж" * 9000, "é" * 300])
def test_utf8_size_is_the_encoded_length(text: str) -> None:
    assert tooljson._native.utf8_size(text) == _encoded_size(text)
    assert tooljson._native.utf8_size(_Subclass(text)) == _encoded_size(text)


@settings(max_examples=200, deadline=None)
@given(text=STRINGS)
def test_utf8_size_like_encode_on_any_text(text: str) -> None:
    assert tooljson._native.utf8_size(text) == _encoded_size(text)


def test_utf8_size_takes_only_a_str() -> None:
    with pytest.raises(TypeError):
        tooljson._native.utf8_size(b"bytes")  # type: ignore[arg-type]
