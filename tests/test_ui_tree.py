"""The argument tree as rows: marks, string tails, bounded rows, deep nesting."""

from __future__ import annotations

import json

from tooljson import Parser
from tooljson.ui.tree import Row, tree_rows


def test_complete_value_is_marked_done_with_closing_brackets() -> None:
    value = {"city": "Paris", "days": [1, 2], "extra": {}}
    tree = tree_rows(value, open_path=None)
    assert tree.hidden == 0
    assert tree.rows == [
        Row(0, None, "{", "done"),
        Row(1, "city", '"Paris"', "done", 5),
        Row(1, "days", "[", "done"),
        Row(2, 0, "1", "done"),
        Row(2, 1, "2", "done"),
        Row(1, None, "]", "done"),
        Row(1, "extra", "{}", "done"),
        Row(0, None, "}", "done"),
    ]


def test_partial_value_from_the_parser_marks_its_open_path() -> None:
    parser = Parser()
    parser.feed('{"title": "Notes", "tags": ["a", "b"], "body": "It was a dark')
    assert parser.open_path() == ("body",)
    tree = tree_rows(parser.preview(), open_path=parser.open_path())
    states = {row.key: row.state for row in tree.rows if row.key is not None}
    assert states == {"title": "done", "tags": "done", 0: "done", 1: "done", "body": "open"}
    assert tree.rows[0] == Row(0, None, "{", "partial")
    body = next(row for row in tree.rows if row.key == "body")
    # An open string has no closing quote yet.
    assert body.text == '"It was a dark'
    # Containers still open have no closing row.
    assert [row.text for row in tree.rows if row.key is None] == ["{", "]"]


def test_long_string_shows_its_length_and_tail_only() -> None:
    text = "x" * 50_000 + "the end\n"
    row = tree_rows({"content": text}, open_path=("content",), tail=12).rows[1]
    assert row.text == '(50,008 chars) "…xxxxthe end\\n'
    assert row.length == len(text)
    assert row.state == "open"


def test_rows_are_bounded_and_the_tail_is_kept() -> None:
    value = {"items": list(range(1000))}
    tree = tree_rows(value, open_path=None, max_rows=10)
    assert len(tree.rows) == 10
    assert tree.hidden == 1004 - 10
    assert tree.rows[-1] == Row(0, None, "}", "done")
    assert tree.rows[-3] == Row(2, 999, "999", "done")


def test_deep_nesting_needs_no_recursion() -> None:
    depth = 20_000
    value: object = "leaf"
    for _ in range(depth):
        value = [value]
    tree = tree_rows(value, open_path=None, max_rows=5)
    assert tree.hidden + len(tree.rows) == 2 * depth + 1
    assert all(row.text == "]" for row in tree.rows)


def test_scalars_are_shown_as_json() -> None:
    value = {"n": None, "t": True, "f": 1.5, "big": 10**30, "inf": float("inf"), "s": 'q"\u00e9\n'}
    texts = {row.key: row.text for row in tree_rows(value, open_path=None).rows}
    assert texts["n"] == "null" and texts["t"] == "true" and texts["f"] == "1.5"
    assert texts["big"] == str(10**30)
    assert texts["inf"] == "Infinity"
    assert texts["s"] == json.dumps('q"\u00e9\n', ensure_ascii=False)


def test_a_string_frozen_by_a_break_is_partial_not_open() -> None:
    rows = tree_rows({"body": "It was"}, open_path=("body",), growing=False).rows
    assert [row.state for row in rows] == ["partial", "partial"]
