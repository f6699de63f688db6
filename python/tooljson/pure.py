"""The pure-Python accumulator: one buffer of fragments per block index, joined and parsed at the end.

This is the reference behaviour :class:`tooljson.ToolCallAccumulator` reproduces, and the baseline of
the benchmarks. It does no work per delta beyond keeping the fragment, and all of it at ``finish``.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["ToolCallAccumulator"]


class ToolCallAccumulator:
    """Collects ``input_json_delta`` fragments per content-block index."""

    def __init__(self) -> None:
        self._calls: dict[int, tuple[str, str]] = {}
        self._buffers: dict[int, list[str]] = {}

    def start(self, index: int, name: str, tool_id: str) -> None:
        """Remember the tool's name and id from ``content_block_start``."""
        self._calls[index] = (name, tool_id)

    def add_delta(self, index: int, fragment: str) -> None:
        """Keep one ``partial_json`` fragment (even for an index not started yet)."""
        self._buffers.setdefault(index, []).append(fragment)

    def finish(self, index: int) -> dict[str, Any]:
        """Parse the joined fragments strictly and forget the index.

        Raises ``KeyError`` for an index never started and :class:`json.JSONDecodeError` for text
        that is not JSON. A call that streamed no text has the input ``{}``.
        """
        name, tool_id = self._calls.pop(index)
        text = "".join(self._buffers.pop(index, ()))
        return {"name": name, "id": tool_id, "input": json.loads(text) if text else {}}
