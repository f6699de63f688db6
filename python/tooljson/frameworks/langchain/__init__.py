"""LangChain message chunks to calls, and the message LangChain would have gathered from them.

Whatever model is behind it, a LangChain chat model streams ``AIMessageChunk`` s (``llm.stream()``,
``astream()``; LangGraph's ``stream_mode="messages"`` yields them in ``(chunk, metadata)`` pairs).
Each chunk's ``tool_call_chunks`` are pieces of tool calls: ``{"name", "args", "id", "index"}``,
with ``args`` the next piece of the call's JSON text. A call is keyed by its piece's ``index`` (the
content-block index for Anthropic models, the tool-call index for OpenAI's), or by its ``id`` when a
piece has no index; a piece with neither continues the latest call. Its first piece with a name or
an id gives them.

There is no per-call end: the calls end when the model's stop reason arrives in a chunk's
``response_metadata``, in the model's own word (``stop_reason`` for Anthropic, ``finish_reason``
for OpenAI and most others, ``stopReason`` for Bedrock Converse, ``done_reason`` for Ollama, the
Responses API's ``incomplete_details.reason``), or at the chunk LangChain marks
``chunk_position="last"``. The chunk after that one begins a new response (a LangGraph agent
streams one response per model call).

:meth:`LangChainAdapter.message` gives the message ``gathered = gathered + chunk`` would have
built, from one merge by LangChain's own ``add_ai_message_chunks``, except its ``tool_calls``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooljson.providers.adapter import Adapter, CallOperations
from tooljson.providers.content import ContentAssembler
from tooljson.providers.source import Source

if TYPE_CHECKING:
    from tooljson.calls import ToolBlock, ToolCall

__all__ = ["MESSAGE_TYPES", "SOURCE", "LangChainAdapter", "LangChainAssembler", "recognise", "stop_reason"]

MESSAGE_TYPES = frozenset({"AIMessageChunk", "ai", "tool", "human", "system", "ToolMessageChunk"})
"""The ``type`` of LangChain's messages (what a LangGraph ``stream_mode="messages"`` pair can hold):
only ``AIMessageChunk`` s carry tool-call pieces; the rest pass without effect."""

# Where a LangChain integration puts the model's stop reason in response_metadata, most common first.
_STOP_KEYS = ("stop_reason", "finish_reason", "stopReason", "done_reason")


def stop_reason(metadata: Any) -> str | None:
    """The model's stop reason in a chunk's ``response_metadata`` (``None`` when this chunk has none)."""
    if not metadata:
        return None
    for key in _STOP_KEYS:
        reason = metadata.get(key)
        if isinstance(reason, str) and reason:
            return reason
    details = metadata.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    return reason if isinstance(reason, str) and reason else None


def recognise(event: Any) -> bool:
    """Whether ``event`` is a LangChain message (not a dict), or a pair, as LangGraph's
    ``(message, metadata)`` are (no other source's events are pairs: the adapter refuses one that
    holds no message)."""
    if type(event) is tuple:
        return len(event) == 2
    return not isinstance(event, dict) and getattr(event, "type", None) in MESSAGE_TYPES


class LangChainAdapter(Adapter):
    """``AIMessageChunk`` s, read for one accumulator; keeps the chunks of the response being read
    (merged once, by :meth:`message`), the latest call, and whether the response ended."""

    provider = "langchain"

    def __init__(self, calls: CallOperations) -> None:
        super().__init__(calls)
        self.chunks: list[Any] = []
        self.ended = False
        self._latest: Any = None

    def reset(self) -> None:
        self.chunks = []
        self.ended = False
        self._latest = None

    def begins_response(self, event: Any) -> bool:
        if type(event) is tuple and len(event) == 2:
            event = event[0]
        return self.ended and getattr(event, "type", None) == "AIMessageChunk"

    def feed(self, event: Any) -> list[ToolCall]:
        """Apply one message (other messages than ``AIMessageChunk`` s carry no call pieces: they
        pass), alone or in LangGraph's ``(message, metadata)`` pair; return the calls it ended."""
        if type(event) is tuple:
            event = event[0]
        kind = getattr(event, "type", None)
        if kind != "AIMessageChunk":
            if not isinstance(kind, str):
                raise TypeError(f"expected a LangChain message, got {type(event).__name__}")
            return []
        if self.ended:
            self.calls.new_response()
        self.chunks.append(event)
        for piece in event.tool_call_chunks:
            self._piece(piece)
        finished: list[ToolCall] = []
        reason = stop_reason(event.response_metadata)
        if reason is not None:
            finished = self.calls.stop_response(reason)
        if event.chunk_position == "last":
            self.ended = True
            # A stream that never said why it stopped: its open calls end where they stand.
            finished += self.calls.stop_response(self.calls.stop_reason)
        return finished

    def _piece(self, piece: Any) -> None:
        index = piece.get("index")
        call_id = piece.get("id")
        key = index if index is not None else (call_id or self._latest)
        if key is None:
            self.calls.warnings.append("a tool_call_chunk without index or id, before any call: ignored")
            return
        block = self.calls.open_call(key)
        name = piece.get("name")
        if block is None:
            block = self.calls.begin_call(self.provider, key, call_id, name, "tool_call")
        else:
            if call_id and not block.id:
                block.id = call_id
            if name and not block.name:
                block.name = name
        self._latest = key
        arguments = piece.get("args")
        if arguments:
            self.calls.add_fragment(block, arguments)

    def message(self) -> Any:
        """The response's message as LangChain would have gathered it: an ``AIMessageChunk`` equal
        to merging every chunk with ``add_ai_message_chunks`` (the same content,
        ``response_metadata``, ``usage_metadata``, ``id``, ``tool_call_chunks``), except that
        ``tool_calls`` hold exactly the calls whose arguments parsed strictly as a JSON object, and
        every other call is in ``invalid_tool_calls`` with its raw text and an ``error`` saying why:
        cut off at the token limit, incomplete, malformed (with the position), or not an object.

        Raises :class:`~tooljson.MissingExtra` without ``langchain-core`` and :class:`ValueError`
        before the first chunk.
        """
        SOURCE.require("TurnReader.message()")
        from langchain_core.messages.ai import add_ai_message_chunks
        from langchain_core.messages.tool import invalid_tool_call, tool_call

        if not self.chunks:
            raise ValueError("no AIMessageChunk was read: there is no message yet")
        chunks = _joined_runs(self.chunks)
        merged = add_ai_message_chunks(chunks[0], *chunks[1:])
        by_key = {block.key: block for block in self.calls.blocks if block.provider == self.provider}
        valid: list[Any] = []
        invalid: list[Any] = []
        for entry in merged.tool_call_chunks:
            index = entry.get("index")
            block = by_key.pop(index if index is not None else entry.get("id"), None)
            if block is None:
                # A piece this reader took as part of another call (it had no index and no id).
                continue
            problem = self._problem(block)
            if problem is None:
                assert block.call is not None
                valid.append(
                    tool_call(name=entry.get("name") or "", args=block.call.input, id=entry.get("id"))
                )
            else:
                invalid.append(
                    invalid_tool_call(
                        name=entry.get("name"), args=entry.get("args"), id=entry.get("id"), error=problem
                    )
                )
        return merged.model_copy(update={"tool_calls": valid, "invalid_tool_calls": invalid})

    def _problem(self, block: ToolBlock) -> str | None:
        """Why a call is not a valid one (``None`` when it is)."""
        call = block.call
        if call is None:
            return "incomplete: the call was still streaming (no stop reason and no last chunk yet)"
        state = self.calls.state(call)
        if state == "complete":
            if isinstance(call.input, dict):
                return None
            return f"not a JSON object: the arguments are a {type(call.input).__name__}"
        if state == "malformed":
            return f"malformed: {call.error}"
        reason = self.calls.stop_reason
        if state == "truncated":
            return f"cut off at the token limit (stop reason {reason!r}): the arguments end before they are whole"
        return f"incomplete: the arguments end before they are whole (stop reason {reason!r})"


# --- One merge in linear time
#
# add_ai_message_chunks merges chunk after chunk: each piece of a call's arguments is appended to a
# new copy of the text so far (and so is the content block's partial_json), so one merge of a 100 KB
# call copies the text once per piece: on large_file_write (6,621 chunks) it took 15–19% of the CPU
# time of the whole stream (0.140 s). Runs of chunks that only carry the next piece of one call are
# therefore joined first, into one chunk that adds exactly what the run adds, and the merge is
# LangChain's own (0.038 s there).
# A run is joined only where merging its pieces one after another is, by add_ai_message_chunks'
# rules, the same as merging their concatenation: every field but the two texts equal along the run
# and neutral to merge (no name or id in the piece, no kwargs, no usage, no position, metadata that
# is at most the one model_provider every chunk agrees on). Any other chunk is passed as it is.

_PIECE_KEYS = frozenset({"name", "args", "id", "index", "type"})
_DELTA_KEYS = frozenset({"partial_json", "type", "index"})


def _run_key(chunk: Any, chunk_type: Any, provider: Any) -> tuple[Any, ...] | None:
    """What must stay equal along a run of argument pieces, or ``None`` when ``chunk`` is not one."""
    if type(chunk) is not chunk_type or chunk.additional_kwargs or chunk.usage_metadata is not None:
        return None
    if chunk.chunk_position is not None or chunk.response_metadata not in ({}, {"model_provider": provider}):
        return None
    pieces = chunk.tool_call_chunks
    if len(pieces) != 1:
        return None
    piece = pieces[0]
    if piece.keys() != _PIECE_KEYS or piece["type"] != "tool_call_chunk" or piece["name"] is not None:
        return None
    if piece["id"] is not None or type(piece["index"]) is not int or type(piece["args"]) is not str:
        return None
    content = chunk.content
    if content == "":
        block_index = None
    elif (
        type(content) is list
        and len(content) == 1
        and type(content[0]) is dict
        and content[0].keys() == _DELTA_KEYS
    ):
        block = content[0]
        if (
            block["type"] != "input_json_delta"
            or type(block["index"]) is not int
            or type(block["partial_json"]) is not str
        ):
            return None
        block_index = block["index"]
    else:
        return None
    return (chunk.id, piece["index"], block_index, len(chunk.response_metadata))


def _joined_runs(chunks: list[Any]) -> list[Any]:
    """``chunks`` with each run of two or more argument pieces of one call joined into one chunk, so
    that ``add_ai_message_chunks`` gives the same message from either list."""
    from langchain_core.messages.ai import AIMessageChunk

    providers = {chunk.response_metadata.get("model_provider") for chunk in chunks} - {None}
    if len(providers) > 1:
        return chunks
    provider = next(iter(providers), None)
    joined: list[Any] = [chunks[0]]
    run: list[Any] = []
    run_key: tuple[Any, ...] | None = None
    for chunk in chunks[1:]:
        key = _run_key(chunk, AIMessageChunk, provider)
        if key is not None and key == run_key:
            run.append(chunk)
            continue
        joined += _join(run)
        run, run_key = ([chunk], key) if key is not None else ([], None)
        if key is None:
            joined.append(chunk)
    joined += _join(run)
    return joined


def _join(run: list[Any]) -> list[Any]:
    """One chunk adding what the run of argument pieces adds (the run itself when it is one chunk)."""
    if len(run) < 2:
        return run
    first = run[0]
    piece = dict(first.tool_call_chunks[0], args="".join(chunk.tool_call_chunks[0]["args"] for chunk in run))
    content: Any = ""
    if first.content != "":
        content = [
            dict(first.content[0], partial_json="".join(chunk.content[0]["partial_json"] for chunk in run))
        ]
    return [first.model_copy(update={"content": content, "tool_call_chunks": [piece]})]


class LangChainAssembler(ContentAssembler):
    """LangChain message chunks: text content; ends at the chunk marked ``chunk_position="last"``, and
    the next one begins another response. ``content`` is LangChain's standard content blocks,
    ``{"type": "text", "text"}`` and ``{"type": "tool_call", "id", "name", "args"}`` (the message
    LangChain gathers is :meth:`LangChainAdapter.message`)."""

    def feed(self, event: Any) -> None:
        if type(event) is tuple and len(event) == 2:
            event = event[0]
        if getattr(event, "type", None) != "AIMessageChunk":
            return
        if self.stopped:
            self._text.clear()
            self._calls.clear()
            self.stopped = False
        content = event.content
        if isinstance(content, str):
            self._piece(0, content)
        else:
            for block in content:
                if isinstance(block, str):
                    self._piece(0, block)
                elif isinstance(block, dict) and block.get("type") == "text":
                    self._piece(block.get("index", 0), block.get("text"))
                elif isinstance(block, dict) and block.get("type") in ("thinking", "reasoning"):
                    self.thinking_chars += len(block.get("thinking") or block.get("reasoning") or "")
        self.stopped = event.chunk_position == "last"

    @property
    def content(self) -> list[dict[str, Any]]:
        return self.standard_content()


def answer(call: ToolCall, content: Any, is_error: bool, value: Any) -> dict[str, Any]:
    """A tool message as LangChain takes it in a message list (``convert_to_messages``)."""
    return {"role": "tool", "tool_call_id": call.id, "content": content}


SOURCE = Source(
    name="langchain",
    title="LangChain",
    recognise=recognise,
    adapter=LangChainAdapter,
    assembler=LangChainAssembler,
    # LangChain passes on the model's own word: Anthropic's and Bedrock's, OpenAI's (also Mistral's,
    # Ollama's), the Responses API's, Gemini's.
    cut_off=frozenset({"max_tokens", "length", "max_output_tokens", "MAX_TOKENS"}),
    end_event='the chunk with chunk_position="last"',
    answer=answer,
    streams="tooljson.frameworks.langchain.streams",
    extra="langchain",
    modules=("langchain_core",),
    distributions={"langchain_core": "langchain-core"},
)
