"""The agent frameworks whose streams tooljson reads: adapters on the accumulator's operations.

A framework normalises every model it supports into its own stream items, so one adapter per
framework covers them all:

* :mod:`tooljson.frameworks.langchain`: LangChain ``AIMessageChunk`` s (``llm.stream()`` /
  ``astream()``, LangGraph's ``stream_mode="messages"`` pairs), and the message LangChain would have
  gathered from them (:meth:`~tooljson.frameworks.langchain.LangChainAdapter.message`, which
  :meth:`tooljson.TurnReader.message` gives);
* :mod:`tooljson.frameworks.pydantic_ai`: pydantic-ai's stream events (``run_stream_events()``,
  ``event_stream_handler``);
* :mod:`tooljson.frameworks.openai_agents`: the OpenAI Agents SDK's run stream
  (``Runner.run_streamed(...).stream_events()``), and ``guard(agent)``, the tool input guardrail that
  answers malformed arguments with ``INVALID_JSON`` and never runs a cut-off call.

No module imports its framework to read its stream (items are read by attribute), so feeding
them costs no import; only building LangChain's message class needs ``langchain-core`` (the
``langchain`` extra) and ``guard`` the SDK (the ``agents`` extra), and nothing is patched on import.
LiteLLM's chunks need no module here: they are Chat Completions chunks
(:mod:`tooljson.providers.chat`).
"""
