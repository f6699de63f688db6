"""A local stand-in for the Messages API, for tests and demos without a key or a network.

``StandInServer`` answers ``POST /v1/messages`` on loopback from a named :class:`Scenario`: streamed
as real server-sent events (tool input cut into ``input_json_delta`` fragments of seeded random
sizes, pings included) or, without ``stream``, as one JSON message built from the same reply::

    with StandInServer(scenario="parallel_calls", fragment_sizes=(1, 32), seed=0) as server:
        client = anthropic.Anthropic(base_url=server.base_url, api_key="stand-in", max_retries=0)
        ...
        server.requests  # every RecordedRequest: .method, .path, .headers, .body

How the ``anthropic`` client (2.x) reports the two broken streams:

* ``stream_error``: the ``error`` event arrives inside an HTTP 200 stream, and iterating the stream
  raises :class:`anthropic.APIStatusError` (the subclass is chosen from the HTTP status, 200, so it
  is the base class itself); its ``body`` is the event, ``{"type": "error", "error": {...}}``.
* ``connection_drop``: the chunked body ends before its last chunk. Iterating raises
  :class:`anthropic.APIConnectionError` (its cause the :class:`httpx2.RemoteProtocolError`) from
  anthropic 2.16 on, which wraps a failure to read the body as it wraps one to send the request; up
  to 2.15 the :class:`httpx2.RemoteProtocolError` came straight from the HTTP layer.

Asked without ``stream``, ``stream_error`` answers HTTP 529 ``overloaded_error`` (the client raises
:class:`anthropic.OverloadedError`) and ``connection_drop`` closes the connection before answering
(:class:`anthropic.APIConnectionError`). A whole message cannot carry text that is not JSON: there
``invalid_json`` answers HTTP 500 ``api_error`` (ask for it streamed), and a tool input cut off at
``max_tokens`` shows as the parsed prefix, as the SDK's stream helper shows it.

The SDK's stream helper, ``client.messages.stream``, cannot follow ``invalid_json``: it re-parses
the input on every delta and raises :class:`ValueError` at the broken escape. Read the raw events of
``client.messages.create(..., stream=True)`` instead.
"""

from __future__ import annotations

from tooljson.standin.clients import scenarios_for
from tooljson.standin.conversation import RequestRejected, ToolResult
from tooljson.standin.reply import Fault, Reply, Text, Thinking, ToolUse, WebSearchResult
from tooljson.standin.scenario import DEFAULT_MODEL, Scenario
from tooljson.standin.scenarios import SCENARIOS, get_scenario
from tooljson.standin.server import RecordedRequest, StandInServer

__all__ = [
    "DEFAULT_MODEL",
    "SCENARIOS",
    "Fault",
    "RecordedRequest",
    "Reply",
    "RequestRejected",
    "Scenario",
    "StandInServer",
    "Text",
    "Thinking",
    "ToolUse",
    "ToolResult",
    "WebSearchResult",
    "get_scenario",
    "scenarios_for",
]
