"""``python -m tooljson proxy``: a pass-through proxy that shows any application's tool calls live.

Point an application at it (``ANTHROPIC_BASE_URL=http://127.0.0.1:PORT``): requests and responses pass
unchanged (:mod:`tooljson.proxy.app`), each streamed Messages response is read on the side by one
turn reader (:mod:`tooljson.proxy.observe`) and shown by the terminal or browser view
(:mod:`tooljson.proxy.serve`). Credentials are forwarded untouched and never printed, logged or
recorded.
"""

from __future__ import annotations

from tooljson.providers.anthropic import message_events
from tooljson.proxy.app import DEFAULT_UPSTREAM, ProxyApp, ResponseCut
from tooljson.proxy.observe import Recorder

__all__ = ["DEFAULT_UPSTREAM", "ProxyApp", "Recorder", "ResponseCut", "message_events"]
