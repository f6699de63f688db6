"""OpenAI Responses stream events (``responses.create(..., stream=True)``) to calls.

``response.output_item.added`` with a ``function_call`` item begins a call (the item's ``call_id``
is what the result refers to, its ``id`` is kept as ``item_id``);
``response.function_call_arguments.delta`` brings fragments and ``.done`` ends the call, both keyed
by ``output_index`` (by ``item_id`` when a server leaves the index out, unless two calls of the
response share that id: it then identifies neither). ``.done`` and
``response.output_item.done`` also carry the whole arguments: a call that received fewer fragments
than that (none, from a server that sends the arguments whole) gets the rest from there.

A custom tool's input (``custom_tool_call`` items, ``response.custom_tool_call_input.delta``) is
free text: it is kept as text and never parsed as JSON.

The response stops with ``response.completed``, ``response.incomplete`` or ``response.failed``; the
stop reason is the provider's own word: ``incomplete_details.reason`` for an incomplete response
(``"max_output_tokens"``: cut off at the token limit), else the response's ``status``.

Everything else tooljson knows of the Responses API is here too: its content (the output items),
its tool results (``function_call_output`` items, no error flag: the text alone says it), the check of
a recorded event; the openai SDK reports a broken stream as for Chat Completions.

A source whose stream carries Responses events for several responses in a row (the OpenAI Agents
SDK's run, :mod:`tooljson.frameworks.openai_agents`) subclasses :class:`ResponsesAdapter` and
:class:`ResponsesAssembler` and overrides what differs there: the provider its calls carry, the key
of a call (:meth:`~ResponsesAdapter.key`, :meth:`~ResponsesAssembler.position`), what
``response.created`` does (:meth:`~ResponsesAdapter.created`) and how the response stops
(:meth:`~ResponsesAdapter.stopped`); the events are read here, once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooljson.providers import Provider, event_field
from tooljson.providers.adapter import Adapter, CallOperations
from tooljson.providers.chat import describe_error
from tooljson.providers.content import ContentAssembler, error_event, plain
from tooljson.providers.field_checks import fields
from tooljson.providers.source import Source

if TYPE_CHECKING:
    from tooljson.calls import ToolBlock, ToolCall

__all__ = [
    "CALL_ITEM_TYPES",
    "SOURCE",
    "ResponsesAdapter",
    "ResponsesAssembler",
    "answer",
    "check_event",
    "recognise",
    "stop_reason",
]

CALL_ITEM_TYPES = frozenset({"function_call", "custom_tool_call"})
"""Output item types that are tool calls the client runs."""

_DELTAS = frozenset({"response.function_call_arguments.delta", "response.custom_tool_call_input.delta"})
_DONE = {
    "response.function_call_arguments.done": "arguments",
    "response.custom_tool_call_input.done": "input",
}
_STOPS = frozenset({"response.completed", "response.incomplete", "response.failed"})


def recognise(event: Any) -> bool:
    """Whether ``event`` is a Responses stream event: its ``type`` starts with ``response.``, or it is
    the Responses ``error`` event (its message at the top, where the Messages API nests it in ``error``)."""
    kind = event.get("type") if isinstance(event, dict) else getattr(event, "type", None)
    if type(kind) is not str:
        return False
    if kind.startswith("response."):
        return True
    return (
        kind == "error" and event_field(event, "error") is None and event_field(event, "message") is not None
    )


class ResponsesAdapter(Adapter):
    """Responses stream events, read for one accumulator; keeps this response's calls by item id."""

    provider: Provider = "responses"

    def __init__(self, calls: CallOperations) -> None:
        super().__init__(calls)
        self._by_item: dict[Any, ToolBlock | None] = {}

    def reset(self) -> None:
        self._by_item.clear()

    def begins_response(self, event: Any) -> bool:
        return bool(event_field(event, "type") == "response.created")

    def feed(self, event: Any) -> list[ToolCall]:
        """Apply one event; return the calls it ended."""
        kind = event_field(event, "type")
        if kind in _DELTAS:
            block = self._block(event)
            fragment = event_field(event, "delta")
            if block is not None and fragment is not None:
                self.calls.add_fragment(block, fragment)
            return []
        if kind == "response.output_item.added":
            item = event_field(event, "item")
            item_type = event_field(item, "type")
            if item_type in CALL_ITEM_TYPES:
                block = self.calls.begin_call(
                    self.provider,
                    self.key(event_field(event, "output_index")),
                    event_field(item, "call_id"),
                    event_field(item, "name"),
                    item_type,
                    item_id=event_field(item, "id"),
                    free_text=item_type == "custom_tool_call",
                )
                if block.item_id is not None:
                    # An id two calls share (the Agents SDK's Chat Completions model gives every
                    # item "__fake_id__") identifies neither of them.
                    self._by_item[block.item_id] = None if block.item_id in self._by_item else block
            return []
        field = _DONE.get(kind)
        if field is not None:
            return self._end(self._block(event), event_field(event, field))
        if kind == "response.output_item.done":
            item = event_field(event, "item")
            block = self.calls.open_call(self.key(event_field(event, "output_index")))
            whole = event_field(
                item, "input" if event_field(item, "type") == "custom_tool_call" else "arguments"
            )
            return self._end(block, whole)
        if kind in _STOPS:
            return self.stopped(stop_reason(event_field(event, "response"), kind))
        if kind == "response.created":
            return self.created()
        return []

    def key(self, output_index: Any) -> Any:
        """The accumulator's key for the call at ``output_index`` of the response being read."""
        return output_index

    def created(self) -> list[ToolCall]:
        """``response.created``: a new response begins (what the last one left open is dropped)."""
        self.calls.new_response()
        return []

    def stopped(self, reason: str) -> list[ToolCall]:
        """The response stopped with ``reason``: its open calls end where they stand."""
        return self.calls.stop_response(reason)

    def _block(self, event: Any) -> ToolBlock | None:
        block = self.calls.open_call(self.key(event_field(event, "output_index")))
        if block is not None:
            return block
        block = self._by_item.get(event_field(event, "item_id"))
        return block if block is not None and self.calls.open_call(block.key) is block else None

    def _end(self, block: ToolBlock | None, whole: Any) -> list[ToolCall]:
        if block is None:
            return []
        if isinstance(whole, str) and len(whole) > block.chars:
            received = self.calls.received(block)
            if whole.startswith(received):
                self.calls.add_fragment(block, whole[len(received) :])
        call = self.calls.end_call(block.key)
        return [] if call is None else [call]


def stop_reason(response: Any, kind: str) -> str:
    """The provider's own word for how a response stopped."""
    details = event_field(response, "incomplete_details")
    reason = event_field(details, "reason") if details is not None else None
    if isinstance(reason, str):
        return reason
    status = event_field(response, "status")
    return status if isinstance(status, str) else kind.rpartition(".")[2]


class ResponsesAssembler(ContentAssembler):
    """Responses events: ``response.output_text.delta`` per output item; ends at the response's end."""

    def feed(self, event: Any) -> None:
        kind = event_field(event, "type")
        if kind == "response.output_text.delta":
            self._piece(self.position(event), event_field(event, "delta"))
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            response = event_field(event, "response")
            usage = event_field(response, "usage")
            if usage is not None:
                self.usage = dict(plain(usage))
            if kind == "response.failed":
                failure = event_field(response, "error")
                self.error = error_event(event_field(failure, "code"), event_field(failure, "message"))
            else:
                self.stopped = True
        elif kind == "error":
            self.error = error_event(event_field(event, "code"), event_field(event, "message"))

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
                item = {
                    "type": "custom_tool_call",
                    "call_id": call.id,
                    "name": call.name,
                    "input": call.raw_json,
                }
            else:
                item = {
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": call.raw_json,
                }
            if call.item_id:
                item["id"] = call.item_id
            items.append((key, item))
        return [item for _, item in sorted(items, key=lambda pair: pair[0])]


def check_event(event: dict[str, Any]) -> str | None:
    """What is wrong with a recorded Responses event (``None``: nothing)."""
    kind = event.get("type")
    problem = fields(
        event,
        str(kind),
        output_index=(int,),
        item_id=(str,),
        delta=(str,),
        arguments=(str,),
        input=(str,),
        item=(dict,),
        response=(dict,),
        code=(str,),
        message=(str,),
    )
    if problem is not None:
        return problem
    item = event.get("item") or {}
    problem = fields(
        item,
        f"{kind}.item",
        type=(str,),
        id=(str,),
        call_id=(str,),
        name=(str,),
        arguments=(str,),
        input=(str,),
    )
    if problem is not None:
        return problem
    response = event.get("response") or {}
    problem = fields(
        response, f"{kind}.response", status=(str,), incomplete_details=(dict,), usage=(dict,), error=(dict,)
    )
    if problem is not None:
        return problem
    return fields(
        response.get("incomplete_details") or {}, f"{kind}.response.incomplete_details", reason=(str,)
    )


def answer(call: ToolCall, content: Any, is_error: bool, value: Any) -> dict[str, Any]:
    """A ``function_call_output`` item (a custom tool call's: ``custom_tool_call_output``)."""
    kind = "custom_tool_call_output" if call.block_type == "custom_tool_call" else "function_call_output"
    return {"type": kind, "call_id": call.id, "output": content}


SOURCE = Source(
    name="responses",
    title="OpenAI Responses",
    recognise=recognise,
    type_prefix="response.",
    adapter=ResponsesAdapter,
    assembler=ResponsesAssembler,
    cut_off=frozenset({"max_output_tokens"}),
    end_event="response.completed",
    answer=answer,
    check=check_event,
    stream_paths=(r"/responses$",),
    describe_error=describe_error,
    telemetry_name="openai",
    wire="tooljson.providers.responses.wire",
    streams="tooljson.providers.responses.streams",
    extra="providers",
    modules=("openai",),
)
