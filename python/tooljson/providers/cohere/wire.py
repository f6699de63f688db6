"""The stand-in's Cohere v2 chat: ``POST /v2/chat`` with ``"stream": true``, and the cohere client against it.

A request is read into the Messages API's shape (:func:`to_messages`), so that every scenario
answers it unchanged: ``messages`` of roles ``system``, ``user``, ``assistant`` (``tool_plan``,
``tool_calls`` with their arguments as text, ``content``) and ``tool`` (``tool_call_id``, ``content``
as a string or a list of ``text`` and ``document`` items); ``tools`` of ``{"type": "function",
"function": {name, description, parameters}}``; ``max_tokens``. Results have no error flag: a result
whose text follows the INVALID_JSON convention is an error result. The stand-in streams only, as
the client's ``chat_stream`` asks: a request without ``"stream": true`` is refused.

The reply (:func:`render`) is written as server-sent events, ``event: <type>`` and ``data: <JSON>``:

* ``message-start`` with the message id;
* the text: ``tool-plan-delta`` pieces when the reply calls tools (Cohere's plan before its calls),
  else one ``content-start`` / ``content-delta`` × N / ``content-end`` item; thinking as a
  ``thinking`` content item;
* each call: ``tool-call-start`` (``index``, ``id``, ``function.name``, ``arguments: ""``; a whole
  call's arguments in it), ``tool-call-delta`` × N with an ``arguments`` fragment, ``tool-call-end``;
  a call cut off at the token limit gets no ``tool-call-end``;
* ``message-end`` with ``finish_reason`` (``TOOL_CALL``, ``COMPLETE``, ``MAX_TOKENS``,
  ``STOP_SEQUENCE``) and ``usage``;
* a fault ends the stream inside a call's arguments with ``message-end`` whose ``finish_reason``
  is ``ERROR`` and ``delta.error`` the message, or with a dropped connection.

A refused request gets ``{"message": ...}`` with a 4xx, which the client raises as the
:class:`cohere.core.api_error.ApiError` of that status.

The client side (:func:`open_client`, :func:`first_request`, the ``WIRE``'s ``stream``,
:func:`as_dict`) is the cohere SDK's ``ClientV2``, imported only when asked for.
"""

from __future__ import annotations

import functools
import json
import random
import re
from typing import TYPE_CHECKING, Any

from tooljson.standin.conversation import RequestRejected, invalid_json_of, parse_json_or_none
from tooljson.standin.render import (
    RenderedStream,
    assign_ids,
    cut_text,
    estimate_tokens,
    fragments_of,
    make_id,
)
from tooljson.standin.reply import Reply, Text, Thinking, ToolUse
from tooljson.standin.wire import Route, Wire, own_render

if TYPE_CHECKING:
    from tooljson.standin.scenario import Scenario

__all__ = [
    "CONTENT_TYPE",
    "DEFAULT_MODEL",
    "WIRE",
    "as_dict",
    "error",
    "frame",
    "render",
    "tail",
    "to_messages",
]

CONTENT_TYPE = "text/event-stream"
DEFAULT_MODEL = "command-a-03-2025"
NO_RETRIES = {"max_retries": 0}
"""The ``request_options`` of a request sent once (the client's constructor takes ``max_retries``
only in its newer versions)."""
_FINISH = {"tool_use": "TOOL_CALL", "max_tokens": "MAX_TOKENS", "stop_sequence": "STOP_SEQUENCE"}


def _text_of(content: Any, where: str) -> str:
    """A message content as text: a string, or its ``text`` items and ``document`` data."""
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        raise RequestRejected(f"{where}: a string or an array is required")
    out = []
    for item in content:
        if not isinstance(item, dict):
            raise RequestRejected(f"{where}: every item must be an object")
        if item.get("type") == "document":
            data = (item.get("document") or {}).get("data")
            out.append(data if isinstance(data, str) else json.dumps(data))
        else:
            out.append(str(item.get("text", "")))
    return "".join(out)


def _tools(tools: Any) -> list[dict[str, Any]]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise RequestRejected("tools: an array is required")
    out = []
    for position, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise RequestRejected(f"tools[{position}]: a function tool with a name is required")
        schema = function.get("parameters") or {"type": "object", "properties": {}}
        out.append(
            {"name": function["name"], "description": function.get("description", ""), "input_schema": schema}
        )
    return out


def _tool_use(call: Any, where: str) -> dict[str, Any]:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(call.get("id"), str):
        raise RequestRejected(f"{where}: an id and a function are required")
    value = parse_json_or_none(str(function.get("arguments") or "{}"))
    return {
        "type": "tool_use",
        "id": call["id"],
        "name": str(function.get("name")),
        "input": value if isinstance(value, dict) else {},
    }


def to_messages(body: Any) -> dict[str, Any]:
    """The request as a Messages API body (``model``, ``max_tokens``, ``tools``, ``messages``);
    raises :class:`RequestRejected` for one the API refuses."""
    if not isinstance(body, dict):
        raise RequestRejected("the request body must be a JSON object")
    if body.get("stream") is not True:
        raise RequestRejected("stream: this endpoint answers streamed requests only")
    if not isinstance(body.get("model"), str):
        raise RequestRejected("model: a string is required")
    limit = body.get("max_tokens")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise RequestRejected("max_tokens: a positive integer is required")
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise RequestRejected("messages: a non-empty array is required")
    messages: list[dict[str, Any]] = []
    for position, message in enumerate(raw):
        where = f"messages[{position}]"
        role = message.get("role") if isinstance(message, dict) else None
        if role == "system":
            continue
        if role == "user":
            messages.append({"role": "user", "content": _text_of(message.get("content"), f"{where}.content")})
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            text = _text_of(message.get("content"), f"{where}.content") or str(message.get("tool_plan") or "")
            if text:
                blocks.append({"type": "text", "text": text})
            calls = message.get("tool_calls") or []
            if not isinstance(calls, list):
                raise RequestRejected(f"{where}.tool_calls: an array is required")
            blocks += [_tool_use(call, f"{where}.tool_calls[{number}]") for number, call in enumerate(calls)]
            messages.append({"role": "assistant", "content": blocks})
        elif role == "tool":
            text = _text_of(message.get("content"), f"{where}.content")
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": str(message.get("tool_call_id")),
                "content": text,
            }
            if invalid_json_of(text) is not None:
                result["is_error"] = True
            if messages and messages[-1]["role"] == "user" and isinstance(messages[-1]["content"], list):
                messages[-1]["content"].append(result)
            else:
                messages.append({"role": "user", "content": [result]})
        else:
            raise RequestRejected(f"{where}.role: one of system, user, assistant, tool")
    return {
        "model": body["model"],
        "max_tokens": limit or 4096,
        "tools": _tools(body.get("tools")),
        "messages": messages,
    }


def _text_item(index: int, kind: str, pieces: list[str]) -> list[dict[str, Any]]:
    """One content item: its start, a delta per piece, its end."""
    events: list[dict[str, Any]] = [
        {"type": "content-start", "index": index, "delta": {"message": {"content": {"type": kind, kind: ""}}}}
    ]
    events += [
        {"type": "content-delta", "index": index, "delta": {"message": {"content": {kind: piece}}}}
        for piece in pieces
    ]
    events.append({"type": "content-end", "index": index})
    return events


def render(
    reply: Reply, *, rng: random.Random, body: dict[str, Any], fragment_sizes: tuple[int, int]
) -> RenderedStream:
    """The events answering ``body`` (the request as sent)."""
    sizes = fragment_sizes
    message_id = make_id(rng, "msg_")
    events: list[dict[str, Any]] = [
        {
            "type": "message-start",
            "id": message_id,
            "delta": {
                "message": {
                    "role": "assistant",
                    "content": [],
                    "tool_plan": "",
                    "tool_calls": [],
                    "citations": [],
                }
            },
        }
    ]
    blocks = assign_ids(reply.blocks, rng)
    calls_follow = any(isinstance(block, ToolUse) and not block.server for block in blocks)
    items = calls = 0
    last_call = max(
        (position for position, block in enumerate(blocks) if isinstance(block, ToolUse)), default=-1
    )
    for position, block in enumerate(blocks):
        if isinstance(block, Thinking):
            events += _text_item(items, "thinking", cut_text(block.thinking, rng, sizes))
            items += 1
        elif isinstance(block, Text) and calls_follow:
            events += [
                {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": piece}}}
                for piece in cut_text(block.text, rng, sizes)
            ]
        elif isinstance(block, Text):
            events += _text_item(items, "text", cut_text(block.text, rng, sizes))
            items += 1
        elif isinstance(block, ToolUse) and not block.server:
            fault = reply.fault if reply.fault is not None and reply.fault.block == position else None
            text = block.input_text[: fault.after_chars] if fault is not None else block.input_text
            pieces = fragments_of(block, text, rng, sizes)
            whole = block.whole and bool(pieces)
            events.append(
                {
                    "type": "tool-call-start",
                    "index": calls,
                    "delta": {
                        "message": {
                            "tool_calls": {
                                "id": "call_" + str(block.id).partition("_")[2],
                                "type": "function",
                                "function": {"name": block.name, "arguments": pieces[0] if whole else ""},
                            }
                        }
                    },
                }
            )
            events += [
                {
                    "type": "tool-call-delta",
                    "index": calls,
                    "delta": {"message": {"tool_calls": {"function": {"arguments": piece}}}},
                }
                for piece in (pieces[1:] if whole else pieces)
            ]
            if fault is not None:
                if fault.kind == "drop":
                    return RenderedStream(events, drop=True)
                events.append(
                    {
                        "type": "message-end",
                        "delta": {
                            "finish_reason": "ERROR",
                            "error": f"{fault.error_type}: {fault.error_message}",
                        },
                    }
                )
                return RenderedStream(events, drop=False)
            if not (reply.stop_reason == "max_tokens" and position == last_call):
                events.append({"type": "tool-call-end", "index": calls})
            calls += 1
    prompt = estimate_tokens(json.dumps(body.get("messages")))
    output = reply.output_tokens or sum(estimate_tokens(json.dumps(event)) for event in events[1:])
    counts = {"input_tokens": prompt, "output_tokens": output}
    events.append(
        {
            "type": "message-end",
            "delta": {
                "finish_reason": _FINISH.get(reply.stop_reason, "COMPLETE"),
                "usage": {"billed_units": dict(counts), "tokens": dict(counts)},
            },
        }
    )
    return RenderedStream(events, drop=False)


def frame(event: dict[str, Any]) -> bytes:
    """One event as its ``event:`` and ``data:`` lines."""
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


def tail(stream: RenderedStream) -> bytes:
    """Nothing: ``message-end`` ends the stream."""
    return b""


def error(status: int, message: str) -> tuple[dict[str, str], bytes]:
    """An error answer's headers and body, as the API shapes them (``{"message": ...}``)."""
    return {"Content-Type": "application/json"}, json.dumps({"message": message}).encode()


@functools.cache
def _client_class() -> Any:
    import cohere

    class StandInClient(cohere.ClientV2):
        """cohere's ``ClientV2`` with ``close()``, which closes its HTTP client (the SDK's own client
        does so only on leaving a ``with`` block)."""

        def close(self) -> None:
            leave: Any = self.__exit__
            leave(None, None, None)

    return StandInClient


def open_client(base_url: str) -> Any:
    """cohere's ``ClientV2`` pointed at the stand-in, with a dummy key and ``close()`` (each request
    is sent once: :data:`WIRE`'s ``stream`` asks for no retries)."""
    return _client_class()(api_key="stand-in", base_url=base_url)


def first_request(scenario: Scenario, model: str) -> dict[str, Any]:
    """Keyword arguments for ``client.chat_stream`` that start ``scenario``."""
    return {
        "model": model,
        "messages": [{"role": "user", "content": scenario.prompt}],
        "max_tokens": scenario.first_max_tokens,
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": tool["name"],
                    "description": tool["description"],
                    "parameters": tool["input_schema"],
                },
            }
            for tool in scenario.function_tools()
        ],
    }


def as_dict(event: Any) -> dict[str, Any]:
    """An event as the dict its ``data:`` line carried (the fields the SDK was sent, by their
    wire names)."""
    if isinstance(event, dict):
        return event
    result: dict[str, Any] = event.dict()
    return result


class _Stream:
    """The events ``client.chat_stream`` yields for ``request``, sent once (no retries), and
    ``close()``, which ends the response."""

    def __init__(self, client: Any, request: dict[str, Any]) -> None:
        self._events = client.chat_stream(**request, request_options=NO_RETRIES)

    def __iter__(self) -> Any:
        return iter(self._events)

    def close(self) -> None:
        self._events.close()


WIRE = Wire(
    name="cohere",
    default_model=DEFAULT_MODEL,
    modules=("cohere",),
    open_client=open_client,
    first_request=first_request,
    stream=_Stream,
    as_dict=as_dict,
    routes=(
        Route(
            "cohere",
            re.compile(r"/v2/chat"),
            CONTENT_TYPE,
            lambda body, _: to_messages(body),
            own_render(render),
            frame,
            tail,
            error,
            "x-request-id",
        ),
    ),
)
"""The stand-in's Cohere v2 chat (see :mod:`tooljson.providers.cohere.wire`)."""
