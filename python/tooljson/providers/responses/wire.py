"""The stand-in's OpenAI Responses: ``POST /v1/responses`` (streamed; without ``stream: true``, the
response the last event carries, by :func:`whole`).

A request is read into the Messages API's shape (:func:`to_messages`) for the scenarios; the
reply is written as Responses stream events (:func:`render`), each as ``event: <type>`` and
``data: <json>`` lines with a growing ``sequence_number``:

``response.created``, ``response.in_progress``; per text block an assistant ``message`` item
(``output_item.added``, ``content_part.added``, ``output_text.delta`` ..., ``output_text.done``,
``content_part.done``, ``output_item.done``); per call a ``function_call`` item with ``id``
(``fc_...``), ``call_id`` (``call_...``) and ``name`` (``output_item.added``,
``function_call_arguments.delta`` ..., ``function_call_arguments.done`` with the whole arguments,
``output_item.done``), or for a ``custom`` call a ``custom_tool_call`` item whose free-text input
streams as ``custom_tool_call_input.delta``; then ``response.completed``, or for the reply's
``max_tokens`` ``response.incomplete`` with ``incomplete_details.reason == "max_output_tokens"``
(the call cut off there ends with its item ``incomplete``, without a ``.done`` of its arguments).

A fault sends an ``error`` event and ends the stream (the openai client yields it as a
``ResponseErrorEvent``), or drops the connection.

Results come back as ``function_call_output`` / ``custom_tool_call_output`` items; like Chat
Completions results they have no error flag, so an output following the INVALID_JSON convention is
read as an error result.
"""

from __future__ import annotations

import json
import random
import re
from typing import TYPE_CHECKING, Any

from tooljson.providers.chat.wire import _error_event, error, is_error_text, open_client, text_of
from tooljson.standin.conversation import RequestRejected, parse_json_or_none
from tooljson.standin.render import (
    RenderedStream,
    assign_ids,
    cut_text,
    estimate_tokens,
    fragments_of,
    make_id,
)
from tooljson.standin.reply import Reply, Text, ToolUse
from tooljson.standin.wire import Route, Wire, own_render

if TYPE_CHECKING:
    from tooljson.standin.scenario import Scenario

__all__ = ["CONTENT_TYPE", "WIRE", "error", "frame", "render", "tail", "to_messages", "whole"]

CONTENT_TYPE = "text/event-stream; charset=utf-8"
_CREATED = 1_767_225_600
_CALL_TYPES = {"function_call": "arguments", "custom_tool_call": "input"}
_OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")


def _tools(tools: Any) -> list[dict[str, Any]]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise RequestRejected("tools: an array is required")
    out = []
    for position, tool in enumerate(tools):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise RequestRejected(f"tools[{position}]: a named function or custom tool is required")
        schema = tool.get("parameters") or {"type": "object", "properties": {}}
        out.append({"name": tool["name"], "description": tool.get("description", ""), "input_schema": schema})
    return out


def _history(items: list[Any]) -> list[dict[str, Any]]:
    """Input items as Messages: an assistant turn gathers its message and call items, the outputs
    that answer them make one user message."""
    messages: list[dict[str, Any]] = []

    def open_turn(role: str) -> list[dict[str, Any]]:
        if not messages or messages[-1]["role"] != role or not isinstance(messages[-1]["content"], list):
            messages.append({"role": role, "content": []})
        content: list[dict[str, Any]] = messages[-1]["content"]
        return content

    for position, item in enumerate(items):
        if not isinstance(item, dict):
            raise RequestRejected(f"input[{position}]: an object is required")
        kind = item.get("type", "message")
        if kind in _CALL_TYPES:
            if not isinstance(item.get("call_id"), str):
                raise RequestRejected(f"input[{position}].call_id: a string is required")
            value = parse_json_or_none(str(item.get(_CALL_TYPES[kind]) or "{}"))
            call = {
                "type": "tool_use",
                "id": item["call_id"],
                "name": str(item.get("name")),
                "input": value if isinstance(value, dict) and kind == "function_call" else {},
            }
            open_turn("assistant").append(call)
        elif kind in _OUTPUT_TYPES:
            text = text_of(item.get("output"))
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": str(item.get("call_id")),
                "content": text,
            }
            if is_error_text(text):
                result["is_error"] = True
            open_turn("user").append(result)
        elif kind == "message":
            role = item.get("role")
            if role in ("system", "developer"):
                continue
            if role not in ("user", "assistant"):
                raise RequestRejected(f"input[{position}].role: one of user, assistant, system, developer")
            text = text_of(item.get("content"))
            if role == "assistant":
                open_turn("assistant").append({"type": "text", "text": text})
            else:
                messages.append({"role": "user", "content": text})
        else:
            raise RequestRejected(f"input[{position}].type: {kind!r} is not taken by the stand-in")
    return messages


def to_messages(body: Any) -> dict[str, Any]:
    """The request as a Messages API body; raises :class:`RequestRejected` for one the API refuses."""
    if not isinstance(body, dict):
        raise RequestRejected("the request body must be a JSON object")
    if not isinstance(body.get("model"), str):
        raise RequestRejected("model: a string is required")
    limit = body.get("max_output_tokens", 4096)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise RequestRejected("max_output_tokens: a positive integer is required")
    raw = body.get("input")
    if isinstance(raw, str):
        messages: list[dict[str, Any]] = [{"role": "user", "content": raw}]
    elif isinstance(raw, list) and raw:
        messages = _history(raw)
    else:
        raise RequestRejected("input: a string or a non-empty array is required")
    return {
        "model": body["model"],
        "max_tokens": limit,
        "tools": _tools(body.get("tools")),
        "messages": messages,
    }


class _Events:
    """Numbers the events as they are added."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, **fields: Any) -> None:
        self.events.append({"type": kind, "sequence_number": len(self.events), **fields})


def _response(
    response_id: str, model: str, status: str, output: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "created_at": _CREATED,
        "status": status,
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": None,
        "usage": None,
        **extra,
    }


def _text_item(
    out: _Events, index: int, text: str, rng: random.Random, sizes: tuple[int, int]
) -> dict[str, Any]:
    item_id = make_id(rng, "msg_")
    place = {"item_id": item_id, "output_index": index, "content_index": 0}
    out.add(
        "response.output_item.added",
        output_index=index,
        item={"type": "message", "id": item_id, "status": "in_progress", "role": "assistant", "content": []},
    )
    out.add(
        "response.content_part.added", **place, part={"type": "output_text", "text": "", "annotations": []}
    )
    for piece in cut_text(text, rng, sizes):
        out.add("response.output_text.delta", **place, delta=piece, logprobs=[])
    part = {"type": "output_text", "text": text, "annotations": []}
    out.add("response.output_text.done", **place, text=text, logprobs=[])
    out.add("response.content_part.done", **place, part=part)
    item = {"type": "message", "id": item_id, "status": "completed", "role": "assistant", "content": [part]}
    out.add("response.output_item.done", output_index=index, item=item)
    return item


def render(
    reply: Reply, *, rng: random.Random, body: dict[str, Any], fragment_sizes: tuple[int, int]
) -> RenderedStream:
    """The events answering ``body`` (the Responses request as sent)."""
    response_id = make_id(rng, "resp_")
    model = str(body.get("model"))
    out = _Events()
    out.add("response.created", response=_response(response_id, model, "in_progress", []))
    out.add("response.in_progress", response=_response(response_id, model, "in_progress", []))
    output: list[dict[str, Any]] = []
    cut_off = reply.stop_reason == "max_tokens"
    calls = [position for position, block in enumerate(reply.blocks) if isinstance(block, ToolUse)]
    for position, block in enumerate(assign_ids(reply.blocks, rng)):
        index = len(output)
        if isinstance(block, Text):
            output.append(_text_item(out, index, block.text, rng, fragment_sizes))
            continue
        if not isinstance(block, ToolUse) or block.server:
            continue
        fault = reply.fault if reply.fault is not None and reply.fault.block == position else None
        text = block.input_text if fault is None else block.input_text[: fault.after_chars]
        kind, field = ("custom_tool_call", "input") if block.custom else ("function_call", "arguments")
        item = {
            "type": kind,
            "id": make_id(rng, "fc_" if kind == "function_call" else "ctc_"),
            "call_id": "call_" + str(block.id).partition("_")[2],
            "name": block.name,
            field: "",
            "status": "in_progress",
        }
        out.add("response.output_item.added", output_index=index, item=dict(item))
        delta = (
            "response.function_call_arguments.delta"
            if kind == "function_call"
            else "response.custom_tool_call_input.delta"
        )
        for piece in fragments_of(block, text, rng, fragment_sizes):
            out.add(delta, item_id=item["id"], output_index=index, delta=piece)
        if fault is not None:
            if fault.kind == "drop":
                return RenderedStream(out.events, drop=True)
            out.add("error", code=fault.error_type, message=fault.error_message, param=None)
            return RenderedStream(out.events, drop=False)
        item[field] = text
        # Under the token limit the last call is where the output stopped: its item ends incomplete.
        if cut_off and position == calls[-1]:
            item["status"] = "incomplete"
        else:
            item["status"] = "completed"
            done = (
                "response.function_call_arguments.done"
                if kind == "function_call"
                else "response.custom_tool_call_input.done"
            )
            out.add(done, item_id=item["id"], output_index=index, **{field: text})
        out.add("response.output_item.done", output_index=index, item=item)
        output.append(item)
    tokens = sum(estimate_tokens(json.dumps(item)) for item in output)
    prompt = estimate_tokens(json.dumps(body.get("input")))
    usage = {
        "input_tokens": prompt,
        "output_tokens": tokens,
        "total_tokens": prompt + tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    if cut_off:
        final = _response(
            response_id,
            model,
            "incomplete",
            output,
            usage=usage,
            incomplete_details={"reason": "max_output_tokens"},
        )
        out.add("response.incomplete", response=final)
    else:
        out.add(
            "response.completed", response=_response(response_id, model, "completed", output, usage=usage)
        )
    return RenderedStream(out.events, drop=False)


def whole(stream: RenderedStream, body: dict[str, Any]) -> dict[str, Any]:
    """The response an unbroken ``stream`` ends with (the answer to a request without ``stream: true``)."""
    response: dict[str, Any] = stream.events[-1]["response"]
    return response


def frame(event: dict[str, Any]) -> bytes:
    """One event as its ``event:`` and ``data:`` lines."""
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


def tail(stream: RenderedStream) -> bytes:
    """The Responses API sends nothing after its last event."""
    return b""


def _first_request(scenario: Scenario, model: str) -> dict[str, Any]:
    custom = [
        {"type": "custom", "name": t["name"], "description": t["description"]}
        for t in scenario.tools
        if t.get("type") == "custom"
    ]
    return {
        "model": model,
        "input": scenario.prompt,
        "max_output_tokens": scenario.first_max_tokens,
        "tools": [
            {
                "type": "function",
                "name": t["name"],
                "description": t["description"],
                "parameters": t["input_schema"],
            }
            for t in scenario.function_tools()
        ]
        + custom,
    }


WIRE = Wire(
    name="responses",
    default_model="gpt-4.1",
    modules=("openai",),
    open_client=open_client,
    first_request=_first_request,
    stream=lambda client, request: client.responses.create(**request, stream=True),
    # The error event is yielded as an event: only a dropped connection raises.
    error_event=_error_event,
    routes=(
        Route(
            "responses",
            re.compile(r"/v1/responses"),
            CONTENT_TYPE,
            lambda body, _: to_messages(body),
            own_render(render),
            frame,
            tail,
            error,
            "x-request-id",
            whole,
        ),
    ),
    features=frozenset({"custom tools"}),
)
