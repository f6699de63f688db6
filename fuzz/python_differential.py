"""Differential fuzzing of the built extension against :func:`json.loads` (atheris).

Each input is a text and the places where it is cut: the last byte gives the number of cuts (0 to
8), the two bytes per cut in front of it their offsets, and everything before that the text, decoded
as UTF-8 with invalid bytes kept as lone surrogates (``surrogateescape``), so that fragments can hold
any ``str`` a stream could deliver.

For each input the joined text must give, through ``Parser`` fragment by fragment, through the
accumulator and through ``loads``, exactly what ``json.loads`` gives (the same value, or the same
rejection with the position rules of ``tests/helpers.py``), and ``preview()``, ``status`` and
``events()`` after every fragment must answer without raising.

Run: ``python fuzz/python_differential.py [libFuzzer options] [corpus directories]``, e.g.
``-max_total_time=60 -dict=fuzz/json.dict fuzz/corpus/python ../shared/JSONTestSuite/test_parsing``.
Only the Python side is instrumented for coverage: the Rust core is fuzzed with coverage by the
cargo-fuzz targets beside this file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris  # type: ignore[import-untyped]

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

with atheris.instrument_imports():
    import helpers  # noqa: E402  (the tests' oracle: json.loads and the error-position rules)
    import tooljson  # noqa: E402

MAX_CUTS = 8
# json.loads runs out of recursion a few levels short of 1,000, depending on how deep the caller's
# stack already is, where tooljson's max_depth is exact; a text shorter than that cannot nest so deep,
# so the two agree on every input. Deep nesting is fuzzed in the Rust targets with small limits.
MAX_TEXT_BYTES = 900


def split_input(data: bytes) -> list[str]:
    """The fragments an input stands for."""
    if not data:
        return [""]
    cut_count = data[-1] % (MAX_CUTS + 1)
    header = 1 + 2 * cut_count
    if len(data) < header:
        cut_count, header = 0, 1
    text = data[: min(len(data) - header, MAX_TEXT_BYTES)].decode("utf-8", "surrogateescape")
    raw = data[len(data) - header : -1]
    cuts = [int.from_bytes(raw[i : i + 2], "little") % (len(text) + 1) for i in range(0, len(raw), 2)]
    return helpers.split_at(text, cuts)


def check_previews(fragments: list[str], expected: helpers.Outcome) -> None:
    """Feeds the fragments with previews, status and events after each one; none of them may raise."""
    parser = tooljson.Parser(events=True, partial_strings=len(fragments) % 2 == 0, preview_string_limit=16)
    refused = False
    for fragment in fragments:
        try:
            parser.feed(fragment)
        except ValueError:
            refused = True
            break
        finally:
            parser.preview()
            parser.events()
            assert parser.status.state in ("complete", "incomplete", "malformed")
    if refused:
        assert not expected.accepted
        return
    try:
        value = parser.finish()
    except (ValueError, RecursionError):
        assert not expected.accepted
        return
    helpers.assert_same_json(value, expected.value)
    helpers.assert_same_json(parser.preview(), expected.value)


def test_one_input(data: bytes) -> None:
    fragments = split_input(data)
    text = "".join(fragments)
    expected = helpers.json_outcome(text)
    helpers.assert_matches_json(text, helpers.parser_outcome(fragments), expected)
    helpers.assert_matches_json(text, helpers.loads_outcome(text), expected)
    helpers.assert_matches_json(text, helpers.accumulator_outcome(fragments), helpers.expected_input(text))
    check_previews(fragments, expected)


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
