"""Debug views of streamed tool calls: a live terminal display, a line log, and a browser page.

Each view follows a :class:`~tooljson.ui.model.Session`, which feeds the raw stream events to a
:class:`~tooljson.ToolCallAccumulator` and keeps, per tool call, the parser's live preview, the
complete and growing parts, counters and the verdict (complete, invalid at a position, truncated,
interrupted). Runs come from the tool loop against the local stand-in or the real API, or from a
recording (:mod:`tooljson.ui.recording`).

From the command line (``python -m tooljson.ui``, and the same commands under ``python -m tooljson``)::

    watch --scenario max_tokens --speed 40     # the tool loop on a stand-in scenario, live
    watch --live --scenario parallel_calls     # the same against the Messages API (ANTHROPIC_API_KEY)
    record --scenario invalid_json -o run.jsonl
    replay run.jsonl --speed 0 --plain         # a recording through the same view, or as a line log
    web run.jsonl                              # the browser view on 127.0.0.1, a free port

``--speed`` is in stream events a second (0: full speed); the live view draws at most ``--fps``
frames a second and, when the output is not a terminal, prints only the final frame.
"""

from __future__ import annotations

from tooljson.ui.model import CallView, Session
from tooljson.ui.recording import RecordingError, load_events, parse_events, write_events

__all__ = ["CallView", "RecordingError", "Session", "load_events", "parse_events", "write_events"]
