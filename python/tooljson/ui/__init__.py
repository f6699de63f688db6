"""Debug views of streamed tool calls: a live terminal display, a line log, and a browser page.

Each view follows a :class:`~tooljson.ui.model.Session`, which feeds the raw stream events to a
:class:`~tooljson.ToolCallAccumulator` and keeps, per tool call, the parser's live preview, the
complete and growing parts, counters and the verdict (complete, invalid at a position, truncated,
interrupted). Runs come from the tool loop against the local stand-in or the real API, or from a
recording (:mod:`tooljson.ui.recording`).
"""

from __future__ import annotations

from tooljson.ui.model import CallView, Session
from tooljson.ui.recording import RecordingError, load_events, parse_events, write_events

__all__ = ["CallView", "RecordingError", "Session", "load_events", "parse_events", "write_events"]
