"""Tool input, live, in the user's own web UI: any source's stream in the UI protocols front ends read.

* :mod:`tooljson.protocols.ai_sdk`: the Vercel AI SDK's UI message stream (``useChat``,
  assistant-ui), as parts or server-sent events; needs nothing.
* :mod:`tooljson.protocols.ag_ui`: AG-UI events (CopilotKit and others), as the ``ag-ui-protocol``
  package's own models (the ``ag-ui`` extra).

Both are views over one reading of the stream (:mod:`tooljson.protocols.steps`): a
:class:`~tooljson.TurnReader` decides every verdict, and each protocol only writes its steps out.
"""
