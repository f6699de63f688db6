"""AWS Bedrock ConverseStream events, as boto3's ``converse_stream(...)["stream"]`` yields them, to calls.

Each event is a dict with one key, the event's name. ``contentBlockStart`` with ``start.toolUse``
begins a call (``toolUseId``, ``name``), ``contentBlockDelta`` with ``delta.toolUse.input`` brings a
fragment, ``contentBlockStop`` ends it, all keyed by ``contentBlockIndex``; ``messageStop`` carries
the ``stopReason`` (``"max_tokens"``: cut off at the token limit); ``messageStart`` begins a
response. Text, reasoning, ``metadata`` and the exception events are not tool calls.

Everything else tooljson knows of ConverseStream is here too: its content (the assistant message's
``text`` and ``toolUse`` blocks), its tool results (``toolResult`` blocks), the check of a recorded
event, the eventstream framing the proxy reads it through (botocore's decoder), and how botocore
reports a broken stream.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tooljson.providers import event_field
from tooljson.providers.adapter import Adapter
from tooljson.providers.content import ContentAssembler, error_event
from tooljson.providers.field_checks import check, fields
from tooljson.providers.source import Source

if TYPE_CHECKING:
    from tooljson.calls import ToolCall

__all__ = ["EVENTS", "SOURCE", "ConverseAdapter", "ConverseAssembler", "EventStreamFraming", "check_event"]

EVENTS = frozenset(
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
"""The ConverseStream event names: each event is a dict with exactly one of them as its key."""


def recognise(event: Any) -> bool:
    """Whether ``event`` is a ConverseStream event (a dict with one key, an event name)."""
    return isinstance(event, dict) and len(event) == 1 and next(iter(event)) in EVENTS


class ConverseAdapter(Adapter):
    """ConverseStream events, read for one accumulator (every event says all it needs: no state)."""

    provider = "bedrock"

    def begins_response(self, event: Any) -> bool:
        return isinstance(event, dict) and "messageStart" in event

    def feed(self, event: Any) -> list[ToolCall]:
        """Apply one event; return the calls it ended."""
        body = event.get("contentBlockDelta")
        if body is not None:
            block = self.calls.open_call(event_field(body, "contentBlockIndex"))
            if block is not None:
                fragment = event_field(event_field(event_field(body, "delta"), "toolUse"), "input")
                if fragment is not None:
                    self.calls.add_fragment(block, fragment)
            return []
        body = event.get("contentBlockStart")
        if body is not None:
            tool = event_field(event_field(body, "start"), "toolUse")
            if tool is not None:
                index = event_field(body, "contentBlockIndex")
                self.calls.begin_call(
                    self.provider, index, event_field(tool, "toolUseId"), event_field(tool, "name"), "toolUse"
                )
            return []
        body = event.get("contentBlockStop")
        if body is not None:
            call = self.calls.end_call(event_field(body, "contentBlockIndex"))
            return [] if call is None else [call]
        body = event.get("messageStop")
        if body is not None:
            return self.calls.stop_response(event_field(body, "stopReason"))
        if "messageStart" in event:
            self.calls.new_response()
        return []


class ConverseAssembler(ContentAssembler):
    """Bedrock ConverseStream events: text deltas per content block; ends at ``messageStop``."""

    def feed(self, event: Any) -> None:
        if not isinstance(event, dict) or len(event) != 1:
            return
        ((name, body),) = event.items()
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
            self.error = error_event(name, event_field(body, "message"))

    @property
    def content(self) -> list[dict[str, Any]]:
        blocks: list[tuple[Any, dict[str, Any]]] = [
            (index, {"text": self._joined(index)}) for index in self._text
        ]
        for key, call in self._calls.items():
            value = call.input if isinstance(call.input, dict) else {}
            blocks.append((key, {"toolUse": {"toolUseId": call.id, "name": call.name, "input": value}}))
        return [block for _, block in sorted(blocks, key=lambda pair: pair[0])]


def check_event(event: dict[str, Any]) -> str | None:
    """What is wrong with a recorded ConverseStream event (``None``: nothing)."""
    if len(event) != 1 or next(iter(event)) not in EVENTS:
        return "not a Bedrock ConverseStream event"
    ((name, body),) = event.items()
    problem = check(body, name, (dict,), optional=False) or fields(
        body,
        name,
        contentBlockIndex=(int,),
        delta=(dict,),
        start=(dict,),
        stopReason=(str,),
        usage=(dict,),
        message=(str,),
    )
    if problem is not None:
        return problem
    delta = body.get("delta") or {}
    problem = fields(delta, f"{name}.delta", text=(str,), toolUse=(dict,), reasoningContent=(dict,))
    if problem is not None:
        return problem
    problem = fields(delta.get("toolUse") or {}, f"{name}.delta.toolUse", input=(str,)) or fields(
        delta.get("reasoningContent") or {}, f"{name}.delta.reasoningContent", text=(str,)
    )
    if problem is not None:
        return problem
    start = body.get("start") or {}
    problem = fields(start, f"{name}.start", toolUse=(dict,))
    if problem is not None:
        return problem
    return fields(start.get("toolUse") or {}, f"{name}.start.toolUse", toolUseId=(str,), name=(str,))


def answer(call: ToolCall, content: Any, is_error: bool, value: Any) -> dict[str, Any]:
    """A ``toolResult`` content block: the value as a ``json`` block when it is an object, else text."""
    block = {"json": value} if isinstance(value, dict) else {"text": content}
    return {
        "toolResult": {"toolUseId": call.id, "content": [block], "status": "error" if is_error else "success"}
    }


def describe_error(error: BaseException) -> str | None:
    """botocore's error for an exception event (``response["Error"]``), in a line."""
    response = getattr(error, "response", None)
    details = response.get("Error") if isinstance(response, dict) else None
    if isinstance(details, dict):
        return f"{details.get('Code', 'error')}: {details.get('Message', '')}"
    return None


class EventStreamFraming:
    """A ConverseStream body's eventstream frames to events, by botocore's decoder."""

    def __init__(self) -> None:
        try:
            from botocore.eventstream import EventStreamBuffer  # type: ignore[import-untyped]
        except ImportError:
            raise ImportError(
                "showing Bedrock streams needs botocore: pip install 'tooljson[providers]'"
            ) from None
        self._frames = EventStreamBuffer()

    def feed(self, data: bytes) -> tuple[list[Any], list[str]]:
        """The events and the errors the bytes completed."""
        self._frames.add_data(data)
        events: list[Any] = []
        errors: list[str] = []
        for frame in self._frames:
            headers = frame.headers
            if headers.get(":message-type") == "event":
                events.append({headers.get(":event-type"): json.loads(frame.payload or b"{}")})
            else:
                message = json.loads(frame.payload or b"{}").get("message", "")
                errors.append(f"{headers.get(':exception-type', 'error')}: {message}")
        return events, errors


SOURCE = Source(
    name="bedrock",
    title="Bedrock ConverseStream",
    recognise=recognise,
    marks=EVENTS,
    adapter=ConverseAdapter,
    assembler=lambda warnings: ConverseAssembler(warnings),
    cut_off=frozenset({"max_tokens"}),
    end_event="messageStop",
    answer=answer,
    check=check_event,
    stream_paths=(r"/model/(?P<model>[^/]+)/converse-stream$",),
    media_type="application/vnd.amazon.eventstream",
    framing=EventStreamFraming,
    describe_error=describe_error,
    telemetry_name="aws.bedrock",
    wire="tooljson.providers.bedrock.wire",
    streams="tooljson.providers.bedrock.streams",
    extra="providers",
    modules=("boto3",),
)
