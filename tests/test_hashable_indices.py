"""The Python layers key blocks by any hashable index, as the pure accumulator does: other providers
key calls by item ids (strings) and (choice, index) tuples.

The native accumulator's side of it (start/add_delta/finish with any hashable index, the small-int
path kept fast) is tested where it is implemented. Until the native class takes any index, the
layers above it are tested here over a stand-in that maps each index to a small integer before
calling it: what these tests check is everything the Python side does with the index.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import tooljson.turn
from tooljson import _native
from tooljson.accumulator import ToolCallAccumulator
from tooljson.turn import TurnReader
from tooljson.ui.model import RunView


class _SmallIntKeys(ToolCallAccumulator):
    """The accumulator with every native method called with a small integer for the index given."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._keys: dict[Any, int] = {}

    def _key(self, index: Any) -> int:
        return self._keys.setdefault(index, len(self._keys))

    def start(self, index: Any, name: str, tool_id: str) -> None:
        super().start(self._key(index), name, tool_id)

    def add_delta(self, index: Any, fragment: str) -> None:
        super().add_delta(self._key(index), fragment)

    def finish(self, index: Any) -> dict[str, Any]:
        return super().finish(self._key(index))

    def text(self, index: Any) -> str:
        return super().text(self._key(index))

    def status(self, index: Any) -> Any:
        return super().status(self._key(index))

    def preview(self, index: Any) -> Any:
        return super().preview(self._key(index))

    def open_path(self, index: Any) -> Any:
        return super().open_path(self._key(index))

    def discard(self, index: Any) -> None:
        super().discard(self._key(index))


def _native_takes_any_index() -> bool:
    try:
        _native.ToolCallAccumulator().start(("choice", 0), "name", "id")
    except (TypeError, OverflowError):
        return False
    return True


@pytest.fixture(autouse=True)
def any_index_accumulator(monkeypatch: pytest.MonkeyPatch) -> None:
    if not _native_takes_any_index():
        monkeypatch.setattr(tooljson.turn, "ToolCallAccumulator", _SmallIntKeys)


START = {
    "type": "message_start",
    "message": {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "x",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 1},
    },
}


def _response(indices: list[Any]) -> list[dict[str, Any]]:
    """A text block then a tool call per index, the last one cut off by max_tokens."""
    events: list[dict[str, Any]] = [START]
    for n, index in enumerate(indices):
        events.append(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": f"toolu_{n}", "name": f"tool_{n}", "input": {}},
            }
        )
        text = json.dumps({"n": n, "index": repr(index)})
        if n == len(indices) - 1:
            text = text[:-4]
        for cut in range(0, len(text), 5):
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": text[cut : cut + 5]},
                }
            )
        if n < len(indices) - 1:
            events.append({"type": "content_block_stop", "index": index})
    events.append(
        {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 9}}
    )
    events.append({"type": "message_stop"})
    return events


INDICES = [
    pytest.param([0, 1, 2], id="positions"),
    pytest.param(["item_b", "item_a", "item_c"], id="item ids"),
    pytest.param([(0, 1), (0, 0), (1, 0)], id="(choice, index) tuples"),
    pytest.param([2**70, 5, "x"], id="mixed, one past 64 bits"),
]


@pytest.mark.parametrize("indices", INDICES)
def test_the_reader_and_the_views_take_any_hashable_index(indices: list[Any]) -> None:
    reader = TurnReader()
    view = RunView()
    view.add_turn(reader)
    for event in _response(indices):
        reader.feed(event)
        view.update()
    assert [call.index for call in reader.calls] == indices
    assert [reader.state(call) for call in reader.calls] == ["complete", "complete", "truncated"]
    assert [call.input for call in reader.calls[:2]] == [
        {"n": 0, "index": repr(indices[0])},
        {"n": 1, "index": repr(indices[1])},
    ]
    # The content comes in index order when the indices compare, else in the order they came.
    try:
        order = sorted(indices)
    except TypeError:
        order = indices
    assert [block["id"] for block in reader.content] == [f"toolu_{indices.index(index)}" for index in order]
    frame = view.frame()
    json.dumps(frame)
    assert [call["status"] for call in frame["calls"]] == ["complete", "complete", "truncated"]
    assert [call["index"] for call in frame["calls"]] == [
        i if isinstance(i, (int, str)) else repr(i) for i in indices
    ]


def test_the_accumulators_feed_keys_by_the_events_index() -> None:
    accumulator = tooljson.turn.ToolCallAccumulator()
    calls = [call for event in _response(["b", "a"]) for call in accumulator.feed(event)]
    assert [(call.index, call.status) for call in calls] == [("b", "complete"), ("a", "incomplete")]
    assert accumulator.state(calls[1]) == "truncated"
