"""Which adapter reads which source: the one table :class:`tooljson.ToolCallAccumulator` dispatches by."""

from __future__ import annotations

from tooljson.frameworks.langchain import LangChainAdapter
from tooljson.frameworks.openai_agents import AgentsAdapter
from tooljson.frameworks.pydantic_ai import PydanticAIAdapter
from tooljson.providers.adapter import Adapter
from tooljson.providers.bedrock import ConverseAdapter
from tooljson.providers.chat import ChatAdapter
from tooljson.providers.responses import ResponsesAdapter

__all__ = ["ADAPTERS"]

ADAPTERS: dict[str, type[Adapter]] = {
    "openai": ChatAdapter,
    "responses": ResponsesAdapter,
    "bedrock": ConverseAdapter,
    "langchain": LangChainAdapter,
    "pydantic-ai": PydanticAIAdapter,
    "openai-agents": AgentsAdapter,
}
"""The adapter class for each source whose events the accumulator hands on (the Messages API's
events it reads itself), by the name its calls carry as ``provider``: the providers' APIs and the
frameworks' streams (:mod:`tooljson.frameworks`)."""
