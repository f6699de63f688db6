"""The providers whose tool-call streams tooljson reads, and how their events are told apart.

Every provider streams a tool call's arguments the same way, as JSON text cut anywhere and keyed by
some index; only the event shapes differ. :meth:`tooljson.ToolCallAccumulator.feed` recognises the
shape of each event and hands it to that provider's adapter (:class:`~tooljson.providers.adapter.Adapter`,
listed in :mod:`tooljson.providers.registry`), an object bound to the accumulator that keeps its own
per-response state and drives the accumulator's public operations (a call begins, a fragment
arrives, a call ends, the response stops, a new response begins):

========================  ===========================================================================
``"anthropic"``           the Messages API (also through ``AnthropicBedrock`` and ``AnthropicVertex``),
                          read by :mod:`tooljson.accumulator` itself
``"openai"``              OpenAI Chat Completions chunks (:class:`tooljson.providers.chat.ChatAdapter`)
``"responses"``           OpenAI Responses stream events
                          (:class:`tooljson.providers.responses.ResponsesAdapter`)
``"bedrock"``             AWS Bedrock ConverseStream events as boto3 yields them
                          (:class:`tooljson.providers.bedrock.ConverseAdapter`)
``"langchain"``           LangChain ``AIMessageChunk`` s, alone or in LangGraph's ``(chunk, metadata)``
                          pairs, whatever model made them (:class:`tooljson.frameworks.langchain.LangChainAdapter`)
``"pydantic-ai"``         pydantic-ai's stream events (:class:`tooljson.frameworks.pydantic_ai.PydanticAIAdapter`)
``"openai-agents"``       the OpenAI Agents SDK's run stream events
                          (:class:`tooljson.frameworks.openai_agents.AgentsAdapter`)
========================  ===========================================================================

Nothing here imports a provider's SDK: events are read by attribute or by key, so an SDK object and
the same event as a plain dict take the same path. No adapter imports the accumulator: they know it
through :class:`~tooljson.providers.adapter.CallOperations`.
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = [
    "CUT_OFF_STOP_REASONS",
    "PROVIDERS",
    "Provider",
    "begins_response",
    "LANGCHAIN_MESSAGE_TYPES",
    "detect",
    "event_field",
    "is_cut_off",
]

Provider = Literal["anthropic", "openai", "responses", "bedrock", "langchain", "pydantic-ai", "openai-agents"]
"""Whose stream an event or a call comes from (``"openai"`` is Chat Completions, ``"bedrock"`` the
Converse API; Anthropic models reached through Bedrock or Vertex speak ``"anthropic"``; the
frameworks' streams, whatever model is behind them, are ``"langchain"``, ``"pydantic-ai"`` and
``"openai-agents"``; LiteLLM's chunks are Chat Completions chunks, ``"openai"``)."""

PROVIDERS: tuple[Provider, ...] = ("anthropic", "openai", "responses", "bedrock", "langchain", "pydantic-ai", "openai-agents")

CUT_OFF_STOP_REASONS: dict[str, frozenset[str]] = {
    "anthropic": frozenset({"max_tokens"}),
    "openai": frozenset({"length"}),
    "responses": frozenset({"max_output_tokens"}),
    "bedrock": frozenset({"max_tokens"}),
    # LangChain passes on the model's own word: Anthropic's and Bedrock's, OpenAI's (also Mistral's,
    # Ollama's), the Responses API's, Gemini's.
    "langchain": frozenset({"max_tokens", "length", "max_output_tokens", "MAX_TOKENS"}),
    # pydantic-ai's stream events carry no stop reason: nothing there says a call was cut off.
    "pydantic-ai": frozenset(),
    # The Agents SDK passes the Responses model's word on; its Chat Completions model passes none.
    "openai-agents": frozenset({"max_output_tokens"}),
}
"""Each provider's own words for "the output hit the token limit": a call whose text ended early
under one is *truncated* (a valid prefix, to be asked again with a larger limit), never invalid."""


def is_cut_off(provider: str, stop_reason: str | None) -> bool:
    """Whether ``stop_reason`` is ``provider``'s word for the token limit."""
    return stop_reason in CUT_OFF_STOP_REASONS.get(provider, ())

# The Bedrock ConverseStream event names (each event is a dict with exactly one of them as its key).
BEDROCK_EVENTS = frozenset(
    {
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    }
)


LANGCHAIN_MESSAGE_TYPES = frozenset({"AIMessageChunk", "ai", "tool", "human", "system", "ToolMessageChunk"})
"""The ``type`` of LangChain's messages (what a LangGraph ``stream_mode="messages"`` pair can hold):
only ``AIMessageChunk`` s carry tool-call pieces; the rest pass without effect."""


def event_field(obj: Any, name: str) -> Any:
    """Read ``name`` from an SDK object or a dict alike (``None`` when absent)."""
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def detect(event: Any) -> Provider | None:
    """Whose stream ``event`` belongs to, by its shape; ``None`` when no provider's shape fits."""
    if isinstance(event, tuple) and len(event) == 2:
        # LangGraph's stream_mode="messages" yields (message, metadata) pairs.
        return "langchain" if event_field(event[0], "type") in LANGCHAIN_MESSAGE_TYPES else None
    kind = event_field(event, "type")
    if isinstance(kind, str):
        if kind in LANGCHAIN_MESSAGE_TYPES and not isinstance(event, dict):
            return "langchain"
        from tooljson.frameworks.openai_agents import AGENT_EVENT_TYPES

        if kind in AGENT_EVENT_TYPES:
            return "openai-agents"
        if kind.startswith("response."):
            return "responses"
        if kind == "error" and event_field(event, "error") is None and event_field(event, "message") is not None:
            # Responses' error event has its message at the top; the Messages API nests it in "error".
            return "responses"
        return "anthropic"
    if isinstance(event, dict):
        if "choices" in event or event.get("object") == "chat.completion.chunk":
            return "openai"
        if len(event) == 1 and next(iter(event)) in BEDROCK_EVENTS:
            return "bedrock"
        if set(event) == {"error"}:
            # A Chat Completions stream that failed: its last data line is {"error": {...}}.
            return "openai"
        return None
    if getattr(event, "choices", None) is not None:
        return "openai"
    if isinstance(getattr(event, "event_kind", None), str):
        return "pydantic-ai"
    return None


def begins_response(event: Any, response_id: str | None) -> bool:
    """Whether ``event`` opens a new response, after one whose Chat Completions chunk id was
    ``response_id`` (``None`` for the other providers or when nothing was read yet).

    Messages: ``message_start``; Responses: ``response.created``; Bedrock: ``messageStart``; Chat
    Completions has no opening event, and every chunk of one response carries the same ``id``: a
    chunk with another (non-empty) id starts the next response.
    """
    kind = event_field(event, "type")
    if kind is not None:
        return kind in ("message_start", "response.created")
    if isinstance(event, dict) and "messageStart" in event:
        return True
    chunk_id = event_field(event, "id")
    return bool(chunk_id) and response_id is not None and chunk_id != response_id
