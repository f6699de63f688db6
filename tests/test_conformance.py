"""JSONTestSuite conformance: every corpus file a ``str`` can carry, as json.loads takes it.

Each file is parsed whole, one character per fragment, cut in two at every offset (a sample of offsets
for the very large files) and cut at random offsets, through ``tooljson.loads``, ``tooljson.Parser``
and ``tooljson.ToolCallAccumulator``; each result must be json.loads's, value and error alike.
"""

from __future__ import annotations

import csv
import functools
import json
import random
import zlib

import pytest
import tooljson
from helpers import (
    CORPUS,
    JSON_TEST_SUITE,
    Outcome,
    accumulator_outcome,
    assert_matches_json,
    corpus_texts,
    expected_input,
    json_outcome,
    loads_outcome,
    parser_outcome,
    random_splits,
    split_at,
)

# Beyond this length a file is cut in two at a sample of offsets rather than at every one: the two
# files this concerns are 100,000 and 250,001 characters of openers, all alike.
EVERY_SPLIT_LIMIT = 2_000


FILES = [name for name, _ in corpus_texts()]


@functools.cache
def corpus_text(name: str) -> str:
    return (CORPUS / name).read_bytes().decode("utf-8")


@functools.cache
def expected_outcome(name: str) -> Outcome:
    return json_outcome(corpus_text(name))


def check_fragments(name: str, fragments: list[str]) -> None:
    """One fragmentation of one file, through the Parser and the accumulator."""
    text = corpus_text(name)
    assert "".join(fragments) == text
    assert_matches_json(text, parser_outcome(fragments), expected_outcome(name))
    assert_matches_json(text, accumulator_outcome(fragments), expected_input(text))


def two_way_split_points(text: str, seed: int) -> list[int]:
    if len(text) <= EVERY_SPLIT_LIMIT:
        return list(range(len(text) + 1))
    rng = random.Random(seed)
    edges = [*range(64), *range(len(text) - 64, len(text) + 1)]
    # The nesting limit is met around the thousandth opener: cut near it as well.
    return sorted({*edges, *range(900, 1100, 7), *range(2400, 2600, 7), *rng.sample(range(len(text)), 64)})


def file_seed(name: str) -> int:
    # A stable seed per file, so a failing split can be reproduced from the test's name alone.
    return zlib.crc32(name.encode())


def test_corpus_is_the_expected_one() -> None:
    # The tests below are only as good as the corpus they read: make sure it is all there and that
    # json.loads still gives the verdicts recorded beside it.
    with (JSON_TEST_SUITE / "json_loads_str_verdicts.tsv").open(newline="") as table:
        verdicts = {row["file"]: row for row in csv.DictReader(table, delimiter="\t")}
    assert len(FILES) == 293
    assert set(FILES) == {name for name, row in verdicts.items() if row["str_utf8_result"] != "undecodable"}
    for name in FILES:
        recorded = verdicts[name]["str_utf8_result"]
        assert ("accept" if expected_outcome(name).accepted else "reject") == recorded, name


@pytest.mark.parametrize("name", FILES)
def test_loads_whole_file(name: str) -> None:
    text = corpus_text(name)
    assert_matches_json(text, loads_outcome(text), expected_outcome(name))


@pytest.mark.parametrize("name", FILES)
def test_whole_file_and_one_character_per_fragment(name: str) -> None:
    text = corpus_text(name)
    check_fragments(name, [text])
    check_fragments(name, list(text))


@pytest.mark.parametrize("name", FILES)
def test_every_two_way_split(name: str) -> None:
    text = corpus_text(name)
    for cut in two_way_split_points(text, file_seed(name)):
        check_fragments(name, split_at(text, [cut]))


@pytest.mark.parametrize("name", FILES)
def test_random_multi_way_splits(name: str) -> None:
    text = corpus_text(name)
    rng = random.Random(file_seed(name))
    for pieces in (3, 4, 6, 10, 25):
        for _ in range(3):
            check_fragments(name, random_splits(text, rng, pieces))


@pytest.mark.parametrize(
    "name", ["n_structure_100000_opening_arrays.json", "n_structure_open_array_object.json"]
)
def test_nesting_json_cannot_parse_ends_in_nesting_too_deep(name: str) -> None:
    text = corpus_text(name)
    with pytest.raises(RecursionError):
        json.loads(text)
    # The default limit is 1000 open containers: the error names the opener of the 1001st.
    expected_pos = [offset for offset, char in enumerate(text) if char in "[{"][1000]

    with pytest.raises(tooljson.NestingTooDeepError) as from_loads:
        tooljson.loads(text)
    fragments = [text[i : i + 4096] for i in range(0, len(text), 4096)]
    from_parser = parser_outcome(fragments).error
    accumulator = tooljson.ToolCallAccumulator()
    accumulator.start(3, "deep", "toolu_deep")
    for fragment in fragments:
        accumulator.add_delta(3, fragment)
    assert accumulator.status(3).state == "malformed"
    with pytest.raises(tooljson.NestingTooDeepError) as from_accumulator:
        accumulator.finish(3)

    for error in (from_loads.value, from_parser, from_accumulator.value):
        assert isinstance(error, tooljson.NestingTooDeepError), repr(error)
        # Code written for json.loads catches it either way.
        assert isinstance(error, RecursionError)
        assert isinstance(error, json.JSONDecodeError)
        assert error.pos == expected_pos
