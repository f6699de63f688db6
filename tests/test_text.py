"""The text helpers shared by the views: an excerpt of a value's JSON text is that of the whole text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from tooljson.text import json_excerpt, json_text, shorten

SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(alphabet=st.characters(), max_size=30)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(st.text(max_size=8), inner, max_size=6)
        # Keys that are not strings: json writes them as strings, the excerpt as the whole text does.
        | st.dictionaries(st.integers() | st.booleans() | st.none(), inner, max_size=3)
    ),
    max_leaves=60,
)


@given(VALUES, st.integers(0, 300))
def test_an_excerpt_is_the_shortened_whole_text(value: Any, limit: int) -> None:
    assert json_excerpt(value, limit) == shorten(json_text(value), limit)


def test_an_excerpt_of_a_long_input_and_of_what_json_cannot_write() -> None:
    records = {
        "records": [{"id": n, "name": "line\nbreak", "path": Path("/tmp") / str(n)} for n in range(5000)]
    }
    for limit in (0, 1, 2, 72, 160):
        assert json_excerpt(records, limit) == shorten(json_text(records), limit)
    assert json_excerpt({"a": [], "b": {}, "c": ()}) == '{"a": [], "b": {}, "c": []}'
