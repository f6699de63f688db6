"""The SDK stream helper's message snapshot, with every tool input parsed once by a turn reader.

The ``anthropic`` helper stream keeps a message snapshot and, for each raw event, updates it
(``accumulate_event``) and derives the events it yields (``build_events``). :class:`SnapshotBuilder`
keeps that division and calls the SDK's own two functions for every event but one kind: an
``input_json_delta`` of a ``tool_use`` or ``server_tool_use`` block. The SDK re-parses the whole
input there; here the delta goes to a :class:`~tooljson.TurnReader` (one scan of the fragment) and
the block's ``input`` becomes the reader's preview, the value under construction itself.

At the block's ``content_block_stop`` the input becomes the strict parse (what :func:`json.loads`
returns). A text that does not parse leaves the last preview in place and the stream goes on; the
verdict is the reader's (``truncated`` when ``message_delta`` says ``max_tokens``), and a warning on
the ``"tooljson"`` logger says what happened once the verdict is known.

Blocks tooljson does not track (a beta ``mcp_tool_use`` block) keep the SDK's own accumulation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tooljson.acceleration.reporting import UnparsedReport
from tooljson.turn import TurnReader, describe_break

__all__ = ["HelperFunctions", "SnapshotBuilder"]


@dataclass(frozen=True)
class HelperFunctions:
    """The SDK helper's own functions for one family of streams (``messages`` or ``beta.messages``)."""

    accumulate_event: Callable[..., Any]
    build_events: Callable[..., list[Any]]
    # make(partial_json, snapshot): the input_json event, equal to what build_events makes.
    input_json_event: Callable[[str, Any], Any]
    # Hides the snapshot from the tracing span when accumulation failed, as the SDK's stream does.
    withhold_snapshot: Callable[[Any], None]


class SnapshotBuilder:
    """Turns raw events into the helper stream's events, keeping its message snapshot.

    ``events(raw_event)`` returns, in order, the events the SDK's helper stream yields for that raw
    event: the SDK's own classes, built by its own ``build_events``. ``snapshot`` is the message
    snapshot (``None`` before ``message_start``), ``reader`` the :class:`~tooljson.TurnReader` that
    parsed every tool input and holds the verdicts. ``on_accumulated(kind)`` is called after the
    snapshot took an event other than a tool-input delta (the beta stream counts blocks with it).
    """

    def __init__(
        self,
        helper: HelperFunctions,
        raw_stream: Any,
        reader: TurnReader,
        *,
        output_format: Any,
        accumulate_options: dict[str, Any] | None = None,
        on_accumulated: Callable[[str], None] | None = None,
    ) -> None:
        self.reader = reader
        self.snapshot: Any = None
        self._helper = helper
        self._raw_stream = raw_stream
        self._accumulator = reader.accumulator
        self._output_format = output_format
        self._accumulate_options = accumulate_options or {}
        self._on_accumulated = on_accumulated
        # Tool blocks whose input the reader parses, by index: their deltas never reach the SDK.
        self._owned: set[int] = set()
        # The SDK's buffers, used only for tool blocks the reader does not parse.
        self._json_bufs: dict[int, bytes] = {}
        self._report = UnparsedReport(
            reader,
            "tool input of %s %r (id %s, block %s) is %s; the stream goes on and the block keeps "
            "its last preview as input",
        )

    def events(self, event: Any) -> list[Any]:
        """The helper stream's events for one raw event, after the snapshot and the reader took it."""
        calls = self.reader.feed(event)
        kind = event.type
        snapshot = self.snapshot
        if snapshot is None and kind != "message_start":
            # The SDK passes anything before message_start through untouched.
            return [event]
        if kind == "content_block_delta" and event.index in self._owned:
            delta = event.delta
            if delta.type == "input_json_delta":
                # The bulk of a long tool input: one scan of the fragment, no re-parse, and the two
                # events build_events makes here (the raw delta, then input_json) made directly.
                index = event.index
                content = snapshot.content[index]
                if index in self._accumulator:
                    value = self._accumulator.preview(index)
                    # The preview is filled in place: once shown, the same object until the block stops
                    # (a pydantic attribute assignment per delta is worth skipping).
                    if value is not None and value is not content.input:
                        content.input = value
                return [event, self._helper.input_json_event(delta.partial_json, content.input)]
        try:
            snapshot = self._helper.accumulate_event(
                event=event,
                current_snapshot=snapshot,
                json_bufs=self._json_bufs,
                output_format=self._output_format,
                **self._accumulate_options,
            )
        except Exception:
            self._helper.withhold_snapshot(self._raw_stream)
            raise
        self.snapshot = snapshot
        if kind == "content_block_start":
            if event.index in self._accumulator:
                self._owned.add(event.index)
        elif kind == "message_start":
            self._owned.clear()
            self._json_bufs.clear()
            self._report.clear()
        for call in calls:
            if call.ok and 0 <= call.index < len(snapshot.content):
                # The strict parse; a text that did not parse keeps its last preview as input.
                snapshot.content[call.index].input = call.input
        if kind == "message_delta":
            self.report()
        if self._on_accumulated is not None:
            self._on_accumulated(kind)
        return self._helper.build_events(event=event, message_snapshot=snapshot)

    def report(self) -> None:
        """Log a warning for each call whose input did not parse, once its verdict is known."""
        self._report.report()

    def reword_report(self, template: str) -> None:
        """The words of that warning, for a caller that handles such calls itself (see :meth:`UnparsedReport.reword`)."""
        self._report.reword(template)

    def ended(self) -> None:
        """The raw stream ran out: report calls a stream without ``message_delta`` left unreported."""
        self.report()

    def broke(self, error: BaseException) -> None:
        """The raw stream raised: blocks still open are ``interrupted`` in the reader."""
        self.reader.interrupt(describe_break(error), error)
