"""A run's stream as the AI SDK UI message stream the browser view's page reads.

Each response of a run is read by :class:`tooljson.protocols.steps.StreamSteps` and written out by
:class:`tooljson.protocols.ai_sdk.PartWriter`, the same code :func:`tooljson.protocols.ai_sdk.parts`
runs for an application's own front end: the page gets ``start-step``, ``text-*``,
``tool-input-start`` / ``-delta``, ``data-tool-input-preview``, ``tool-input-available`` or
``tool-input-error`` and ``finish-step`` for each response.

A replay reads each response with the reader of its steps (:meth:`RunParts.begin`, then
:meth:`RunParts.feed`): the view shows that reader, and each fragment is parsed once. A run whose
events another reader reads first (the tool loop's) hands each raw event to :meth:`RunParts.tee`,
which reads it again for the parts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tooljson.protocols.ai_sdk import PartWriter
from tooljson.protocols.steps import Step, StreamSteps
from tooljson.turn import TurnReader

__all__ = ["RunParts"]

Publish = Callable[[dict[str, Any]], None]


class RunParts:
    """The parts of one run's responses, published as they come; ``interval`` is the least time in
    seconds between two ``tool-input-delta`` (and two previews) of a call."""

    def __init__(self, publish: Publish, *, interval: float) -> None:
        self._publish = publish
        self._interval = interval
        self._writer = PartWriter()
        self._steps: StreamSteps | None = None
        # A response whose event could not be read here ended there: the rest of it is not read.
        self._broken = False

    @property
    def finish(self) -> str:
        """The finish reason of the last response, in the protocol's words."""
        return self._writer.finish

    def begin(self, number: int) -> TurnReader:
        """A new response: its steps' reader, numbered ``number`` (the one that reads its events)."""
        self._end()
        self._broken = False
        self._steps = StreamSteps(interval=self._interval)
        self._steps.reader.number = number
        return self._steps.reader

    def feed(self, event: Any) -> None:
        """The next event of the response :meth:`begin` opened, read by its reader; raises what
        :meth:`~tooljson.TurnReader.feed` raises for an event of the wrong shape."""
        if self._steps is None:
            raise RuntimeError("feed before begin")
        self._write(self._steps.feed(event))

    def tee(self, event: Any) -> None:
        """An event another reader read: read here too, a new response where one begins."""
        if self._steps is None or self._steps.reader.begins_another(event):
            self.begin(1 if self._steps is None else self._steps.reader.number + 1)
        elif self._broken:
            return
        assert self._steps is not None
        try:
            self._write(self._steps.feed(event))
        except Exception as error:  # noqa: BLE001 - an event the run's own reader took, this one not: said in a part
            self._broken = True
            self._write(self._steps.close(error, bad_event=event))

    def close(self, error: BaseException | None = None) -> None:
        """The run ended (``error``: it broke off with that): the last response's last parts."""
        if self._steps is not None:
            self._write(self._steps.close(error))

    def _end(self) -> None:
        if self._steps is not None:
            self._write(self._steps.close())

    def _write(self, steps: Sequence[Step]) -> None:
        for step in steps:
            self._publish(self._writer.part(step))
