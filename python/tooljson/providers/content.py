"""The assistant content of one response, for the providers other than the Messages API.

A :class:`~tooljson.TurnReader` keeps, beside its accumulator, the content of the response it reads:
for the Messages API that is :class:`tooljson.turn.MessageAssembler`; for the others, one of these
assemblers. They are deliberately small: the text, the tool calls (handed over parsed by the
reader, never parsed again), the usage, whether the response ended and the error that broke it.
Their ``content`` is the assistant side of the exchange in the provider's own history shape, ready
to be sent back before the tool results:

* Chat Completions: one ``{"role": "assistant", "content", "tool_calls"}`` message per choice;
* Responses: the output items, an assistant message and ``function_call`` / ``custom_tool_call``
  items (with their raw ``arguments``);
* Bedrock Converse: the content blocks of the assistant message, ``text`` and ``toolUse``;
* LangChain and pydantic-ai: LangChain's standard content blocks, ``{"type": "text", "text"}`` and
  ``{"type": "tool_call", "id", "name", "args"}`` (the message LangChain gathers is
  :meth:`tooljson.TurnReader.message`).

Their ``error`` has the Messages API's shape (``{"type": "error", "error": {"type", "message"}}``)
so that a reader states every provider's break in the same words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooljson.providers import Provider, event_field

if TYPE_CHECKING:
    from tooljson.calls import ToolCall

__all__ = ["ChatAssembler", "ConverseAssembler", "FrameworkAssembler", "ResponsesAssembler", "assembler_for"]


def _error(kind: Any, message: Any) -> dict[str, Any]:
    return {"type": "error", "error": {"type": str(kind or "error"), "message": str(message or "")}}


def _plain(value: Any) -> Any:
    """An SDK object as plain data (dicts pass as they are)."""
    if value is None or isinstance(value, (dict, list, str, int, float, bool)):
        return value
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if to_dict is not None else value


class _Assembler:
    """What every assembler keeps: text pieces by position, finished calls by key, the ending."""

    def __init__(self) -> None:
        self._text: dict[Any, list[str]] = {}
        self._calls: dict[Any, ToolCall] = {}
        self.usage: dict[str, Any] = {}
        self.stopped = False
        self.error: dict[str, Any] | None = None
        self.thinking_chars = 0

    def set_call(self, call: ToolCall) -> None:
        """Put a finished call in place (parsed by the reader's accumulator)."""
        self._calls[call.key] = call

    def _piece(self, position: Any, text: Any) -> None:
        if isinstance(text, str) and text:
            self._text.setdefault(position, []).append(text)

    def _joined(self, position: Any) -> str:
        return "".join(self._text.get(position, ()))

    @property
    def text(self) -> str:
        """The text so far (every choice's, in order, for Chat Completions with ``n > 1``)."""
        return "\n\n".join(text for position in sorted(self._text) if (text := self._joined(position)))


class ChatAssembler(_Assembler):
    """Chat Completions chunks: ``delta.content`` per choice; ends when every choice finished."""

    def __init__(self) -> None:
        super().__init__()
        self._finished: dict[int, str] = {}

    def feed(self, chunk: Any) -> None:
        # Only a recording holds the error line as an event (the client raises it instead).
        error = chunk.get("error") if isinstance(chunk, dict) else None
        if error is not None:
            self.error = _error(event_field(error, "type"), event_field(error, "message"))
            return
        usage = event_field(chunk, "usage")
        if usage is not None:
            self.usage = dict(_plain(usage))
        for choice in event_field(chunk, "choices") or ():
            number = event_field(choice, "index") or 0
            delta = event_field(choice, "delta")
            if delta is not None:
                self._piece(number, event_field(delta, "content"))
            self._text.setdefault(number, [])
            reason = event_field(choice, "finish_reason")
            if reason is not None:
                self._finished[number] = reason
        # Ended when every choice seen has finished (counted, not scanned: a chunk costs the same late).
        self.stopped = bool(self._text) and len(self._finished) == len(self._text)

    @property
    def content(self) -> list[dict[str, Any]]:
        messages = []
        for number in sorted(self._text):
            text = self._joined(number)
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            calls = sorted((key[1], call) for key, call in self._calls.items() if key[0] == number)
            if calls:
                message["tool_calls"] = [
                    {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.raw_json}}
                    for _, call in calls
                ]
            messages.append(message)
        return messages


class ResponsesAssembler(_Assembler):
    """Responses events: ``response.output_text.delta`` per output item; ends at the response's end."""

    def feed(self, event: Any) -> None:
        kind = event_field(event, "type")
        if kind == "response.output_text.delta":
            self._piece(self.position(event), event_field(event, "delta"))
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            response = event_field(event, "response")
            usage = event_field(response, "usage")
            if usage is not None:
                self.usage = dict(_plain(usage))
            if kind == "response.failed":
                failure = event_field(response, "error")
                self.error = _error(event_field(failure, "code"), event_field(failure, "message"))
            else:
                self.stopped = True
        elif kind == "error":
            self.error = _error(event_field(event, "code"), event_field(event, "message"))

    def position(self, event: Any) -> Any:
        """Where an event's output item stands (its ``output_index``; the key its call has)."""
        return event_field(event, "output_index")

    @property
    def content(self) -> list[dict[str, Any]]:
        items: list[tuple[Any, dict[str, Any]]] = []
        for position in self._text:
            items.append((position, {"role": "assistant", "content": self._joined(position)}))
        for key, call in self._calls.items():
            if call.block_type == "custom_tool_call":
                item = {"type": "custom_tool_call", "call_id": call.id, "name": call.name, "input": call.raw_json}
            else:
                item = {"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.raw_json}
            if call.item_id:
                item["id"] = call.item_id
            items.append((key, item))
        return [item for _, item in sorted(items, key=lambda pair: pair[0])]


class ConverseAssembler(_Assembler):
    """Bedrock ConverseStream events: text deltas per content block; ends at ``messageStop``."""

    def feed(self, event: Any) -> None:
        if not isinstance(event, dict) or len(event) != 1:
            return
        (name, body), = event.items()
        if name == "contentBlockDelta":
            delta = event_field(body, "delta")
            self._piece(event_field(body, "contentBlockIndex"), event_field(delta, "text"))
            reasoning = event_field(event_field(delta, "reasoningContent"), "text")
            if isinstance(reasoning, str):
                self.thinking_chars += len(reasoning)
        elif name == "messageStop":
            self.stopped = True
        elif name == "metadata":
            usage = event_field(body, "usage")
            if isinstance(usage, dict):
                self.usage = dict(usage)
        elif name.endswith("Exception"):
            self.error = _error(name, event_field(body, "message"))

    @property
    def content(self) -> list[dict[str, Any]]:
        blocks: list[tuple[Any, dict[str, Any]]] = [(index, {"text": self._joined(index)}) for index in self._text]
        for key, call in self._calls.items():
            value = call.input if isinstance(call.input, dict) else {}
            blocks.append((key, {"toolUse": {"toolUseId": call.id, "name": call.name, "input": value}}))
        return [block for _, block in sorted(blocks, key=lambda pair: pair[0])]


class FrameworkAssembler(_Assembler):
    """LangChain message chunks (text content; ends at the chunk marked ``chunk_position="last"``,
    and the next one begins another response) or pydantic-ai events (text parts; they never say the
    response ended)."""

    def feed(self, event: Any) -> None:
        if isinstance(event, tuple) and len(event) == 2:
            event = event[0]
        if getattr(event, "type", None) == "AIMessageChunk":
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
        elif getattr(event, "event_kind", None) in ("part_start", "part_delta"):
            part = event.part if event.event_kind == "part_start" else event.delta
            kind = getattr(part, "part_kind", None) or getattr(part, "part_delta_kind", None)
            if kind == "text":
                self._piece(event.index, getattr(part, "content", None) or getattr(part, "content_delta", None))

    @property
    def content(self) -> list[dict[str, Any]]:
        blocks: list[tuple[Any, dict[str, Any]]] = [
            (position, {"type": "text", "text": self._joined(position)}) for position in self._text
        ]
        for key, call in self._calls.items():
            blocks.append((key, {"type": "tool_call", "id": call.id, "name": call.name, "args": call.input}))
        return [block for _, block in blocks]


def assembler_for(
    provider: Provider,
) -> ChatAssembler | ResponsesAssembler | ConverseAssembler | FrameworkAssembler:
    """A new assembler for a response of ``provider`` (not the Messages API's)."""
    if provider == "openai":
        return ChatAssembler()
    if provider == "responses":
        return ResponsesAssembler()
    if provider == "bedrock":
        return ConverseAssembler()
    if provider in ("langchain", "pydantic-ai"):
        return FrameworkAssembler()
    if provider == "openai-agents":
        from tooljson.frameworks.openai_agents import AgentsAssembler

        return AgentsAssembler()
    raise ValueError(f"the Messages API's content is assembled by tooljson.turn.MessageAssembler, not for {provider!r}")
