"""Debug views of streamed tool calls: a live terminal display, a line log, and a browser page.

Each view follows a :class:`~tooljson.ui.model.RunView`, which reads the
:class:`~tooljson.turn.TurnReader` of every response of a run (fed by the tool loop or by a replay,
never by the view) and shows, per tool call, the live preview, the complete and growing parts,
counters and the verdict (complete, malformed at a position, truncated, interrupted, and once the
loop answered the call, rejected, repaired with each repaired field, or failed). The views play
what they are given: a recording (:mod:`tooljson.ui.recording`, replayed by
:mod:`tooljson.ui.playback`), the proxy's traffic, or a run their caller drives; they never import
the stand-in. The commands are ``python -m tooljson watch | replay | web``.
"""

from __future__ import annotations

from tooljson.ui.model import CallView, RunView
from tooljson.ui.recording import RecordingError, load_events, parse_events, write_events

__all__ = ["CallView", "RecordingError", "RunView", "load_events", "parse_events", "write_events"]
