"""The stand-in's OpenAI Chat Completions: ``POST /v1/chat/completions`` (streamed; without
``stream: true``, the same chunks folded into one ``chat.completion`` by :func:`whole`).

A request is read into the Messages API's shape (:func:`to_messages`), so that every scenario
answers it unchanged; the :class:`~tooljson.standin.reply.Reply` is then written as Chat Completions
chunks (:func:`render`), one ``data:`` line each, ending with ``data: [DONE]``:

* the first chunk of a call carries ``index``, ``id``, ``type`` and ``function.name`` with
  ``arguments: ""``; later chunks carry only ``index`` and an ``arguments`` fragment. A ``whole``
  call has all its arguments in its first chunk (and consecutive whole calls share one chunk);
* each choice ends with an empty delta and its ``finish_reason``: ``tool_calls``, ``stop`` or
  ``length`` (the reply's ``max_tokens``); with ``stream_options.include_usage`` a last chunk with
  no choices carries the usage;
* with ``n > 1`` each choice plays the reply's alternatives in turn, one choice per chunk, their
  chunks interleaved in a seeded order;
* a fault ends the stream with ``data: {"error": {...}}`` (the client raises ``openai.APIError``) or
  a dropped connection.

Chat Completions results have no error flag: a ``role: "tool"`` message whose content is the JSON
text of an ``{"INVALID_JSON": ...}`` object is read as an error result, the convention
:func:`tooljson.invalid_json_result` sends; every other result is a success.
"""

from __future__ import annotations

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
from tooljson.standin.reply import Reply, Text, ToolUse
from tooljson.standin.wire import Route, Wire, own_render

if TYPE_CHECKING:
    from tooljson.standin.scenario import Scenario

__all__ = [
    "CONTENT_TYPE",
    "WIRE",
    "error",
    "frame",
    "is_error_text",
    "render",
    "tail",
    "text_of",
    "to_messages",
    "whole",
]

CONTENT_TYPE = "text/event-stream; charset=utf-8"
MAX_CHOICES = 8
_FINISH = {"tool_use": "tool_calls", "max_tokens": "length", "refusal": "content_filter"}
# A fixed creation time: the same request always gets the same bytes.
_CREATED = 1_767_225_600


def is_error_text(text: str) -> bool:
    """Whether a result text follows the INVALID_JSON convention (the only error an OpenAI result
    can state: its shapes have no error flag)."""
    return invalid_json_of(text) is not None


def text_of(content: Any) -> str:
    """A message content as text: a string, or the ``text`` of its parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _positive(body: dict[str, Any], *names: str) -> int | None:
    for name in names:
        value = body.get(name)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise RequestRejected(f"{name}: a positive integer is required")
        return value
    return None


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


def _tool_use(call: Any, position: int) -> dict[str, Any]:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(call.get("id"), str):
        raise RequestRejected(f"tool_calls[{position}]: an id and a function are required")
    value = parse_json_or_none(str(function.get("arguments") or "{}"))
    return {
        "type": "tool_use",
        "id": call["id"],
        "name": str(function.get("name")),
        "input": value if isinstance(value, dict) else {},
    }


def to_messages(body: Any) -> dict[str, Any]:
    """The request as a Messages API body (``model``, ``max_tokens``, ``tools``, ``messages``,
    ``n``); raises :class:`RequestRejected` for one the API refuses."""
    if not isinstance(body, dict):
        raise RequestRejected("the request body must be a JSON object")
    if not isinstance(body.get("model"), str):
        raise RequestRejected("model: a string is required")
    n = _positive(body, "n") or 1
    if n > MAX_CHOICES:
        raise RequestRejected(f"n: at most {MAX_CHOICES}")
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise RequestRejected("messages: a non-empty array is required")
    messages: list[dict[str, Any]] = []
    for position, message in enumerate(raw):
        role = message.get("role") if isinstance(message, dict) else None
        if role in ("system", "developer"):
            continue
        if role == "user":
            messages.append({"role": "user", "content": text_of(message.get("content"))})
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            if text_of(message.get("content")):
                blocks.append({"type": "text", "text": text_of(message.get("content"))})
            calls = message.get("tool_calls") or []
            blocks += [
                _tool_use(call, number)
                for number, call in enumerate(calls if isinstance(calls, list) else [])
            ]
            messages.append({"role": "assistant", "content": blocks})
        elif role == "tool":
            text = text_of(message.get("content"))
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": str(message.get("tool_call_id")),
                "content": text,
            }
            if is_error_text(text):
                result["is_error"] = True
            if messages and messages[-1]["role"] == "user" and isinstance(messages[-1]["content"], list):
                messages[-1]["content"].append(result)
            else:
                messages.append({"role": "user", "content": [result]})
        else:
            raise RequestRejected(
                f"messages[{position}].role: one of system, developer, user, assistant, tool"
            )
    return {
        "model": body["model"],
        "max_tokens": _positive(body, "max_completion_tokens", "max_tokens") or 4096,
        "tools": _tools(body.get("tools")),
        "messages": messages,
        "n": n,
    }


def _choice_deltas(
    reply: Reply, rng: random.Random, sizes: tuple[int, int]
) -> tuple[list[dict[str, Any]], bool]:
    """The deltas of one choice, in order, and whether a fault ends it after them."""
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    # Whole calls arriving together share one chunk: the index of that chunk's delta, while open.
    shared: int | None = None
    calls = 0
    for position, block in enumerate(assign_ids(reply.blocks, rng)):
        if isinstance(block, Text):
            deltas += [{"content": piece} for piece in cut_text(block.text, rng, sizes)]
        if not isinstance(block, ToolUse) or block.server:
            shared = None
            continue
        fault = reply.fault is not None and reply.fault.block == position
        text = (
            block.input_text[: reply.fault.after_chars]
            if fault and reply.fault is not None
            else block.input_text
        )
        pieces = fragments_of(block, text, rng, sizes)
        first = {
            "index": calls,
            "id": "call_" + str(block.id).partition("_")[2],
            "type": "function",
            "function": {"name": block.name, "arguments": pieces[0] if block.whole and pieces else ""},
        }
        if block.whole and shared is not None:
            deltas[shared]["tool_calls"].append(first)
        else:
            deltas.append({"tool_calls": [first]})
        shared = len(deltas) - 1 if block.whole else None
        if not block.whole:
            deltas += [
                {"tool_calls": [{"index": calls, "function": {"arguments": piece}}]} for piece in pieces
            ]
        calls += 1
        if fault:
            return deltas, True
    return deltas, False


def render(
    reply: Reply, *, rng: random.Random, body: dict[str, Any], fragment_sizes: tuple[int, int]
) -> RenderedStream:
    """The chunks answering ``body`` (the Chat Completions request as sent)."""
    completion_id = make_id(rng, "chatcmpl-")
    model = str(body.get("model"))
    n: int = body["n"] if isinstance(body.get("n"), int) else 1
    replies = [reply, *reply.alternatives]
    queues: list[list[dict[str, Any]]] = []
    faulty: int | None = None
    for number in range(n):
        choice_reply = replies[min(number, len(replies) - 1)]
        deltas, broken = _choice_deltas(choice_reply, rng, fragment_sizes)
        choices: list[dict[str, Any]] = [
            {"index": number, "delta": delta, "finish_reason": None} for delta in deltas
        ]
        if broken:
            faulty = number if faulty is None else faulty
        else:
            choices.append(
                {"index": number, "delta": {}, "finish_reason": _FINISH.get(choice_reply.stop_reason, "stop")}
            )
        queues.append(choices)

    def chunk(choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": _CREATED,
            "model": model,
            "system_fingerprint": "fp_stand_in",
            "choices": choices,
            **extra,
        }

    events: list[dict[str, Any]] = []
    # The choices' chunks interleave, one choice per chunk; a fault ends the whole stream where it falls.
    while any(queues) and (faulty is None or queues[faulty]):
        queue = rng.choice([queue for queue in queues if queue])
        events.append(chunk([queue.pop(0)]))
    if faulty is not None and reply.fault is not None:
        fault = reply.fault
        if fault.kind == "drop":
            return RenderedStream(events, drop=True)
        events.append(
            {"error": {"message": fault.error_message, "type": fault.error_type, "param": None, "code": None}}
        )
        return RenderedStream(events, drop=False)
    options = body.get("stream_options")
    if isinstance(options, dict) and options.get("include_usage"):
        output = sum(estimate_tokens(json.dumps(event["choices"])) for event in events)
        prompt = estimate_tokens(json.dumps(body.get("messages")))
        events.append(
            chunk(
                [],
                usage={"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output},
            )
        )
    return RenderedStream(events, drop=False)


def whole(stream: RenderedStream, body: dict[str, Any]) -> dict[str, Any]:
    """The ``chat.completion`` the chunks of an unbroken ``stream`` add up to (the answer to a
    request without ``stream: true``)."""
    choices: dict[int, dict[str, Any]] = {}
    texts: dict[int, list[str]] = {}
    calls: dict[int, dict[int, dict[str, Any]]] = {}
    for event in stream.events:
        for choice in event["choices"]:
            number = choice["index"]
            entry = choices.setdefault(number, {"index": number, "finish_reason": None, "logprobs": None})
            delta = choice["delta"]
            texts.setdefault(number, []).append(delta.get("content") or "")
            for piece in delta.get("tool_calls") or ():
                call = calls.setdefault(number, {}).setdefault(
                    piece["index"],
                    {"id": piece.get("id"), "type": "function", "function": {"name": "", "arguments": ""}},
                )
                function = piece.get("function") or {}
                call["function"]["name"] += function.get("name") or ""
                call["function"]["arguments"] += function.get("arguments") or ""
            if choice["finish_reason"] is not None:
                entry["finish_reason"] = choice["finish_reason"]
    for number, entry in choices.items():
        message: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(texts[number]) or None,
            "refusal": None,
        }
        if number in calls:
            message["tool_calls"] = [calls[number][index] for index in sorted(calls[number])]
        entry["message"] = message
    first = stream.events[0]
    output = sum(estimate_tokens(json.dumps(event["choices"])) for event in stream.events)
    prompt = estimate_tokens(json.dumps(body.get("messages")))
    return {
        "id": first["id"],
        "object": "chat.completion",
        "created": first["created"],
        "model": first["model"],
        "system_fingerprint": first["system_fingerprint"],
        "choices": [choices[number] for number in sorted(choices)],
        "usage": {"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output},
    }


def frame(event: dict[str, Any]) -> bytes:
    """One chunk as its ``data:`` line."""
    return b"data: " + json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


def tail(stream: RenderedStream) -> bytes:
    """What ends a stream that was not broken: ``data: [DONE]``."""
    if stream.events and "error" in stream.events[-1]:
        return b""
    return b"data: [DONE]\n\n"


def error(status: int, message: str) -> tuple[dict[str, str], bytes]:
    """An error answer's headers and body, as the API shapes them."""
    kind = "invalid_request_error" if status < 500 else "server_error"
    payload = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return {"Content-Type": "application/json"}, json.dumps(payload).encode()


def open_client(base_url: str) -> Any:
    """The openai client pointed at the stand-in (Chat Completions and Responses alike)."""
    import openai

    return openai.OpenAI(base_url=base_url + "/v1", api_key="stand-in", max_retries=0)


def _first_request(scenario: Scenario, model: str) -> dict[str, Any]:
    request: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": scenario.prompt}],
        "max_completion_tokens": scenario.first_max_tokens,
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t["description"],
                    "parameters": t["input_schema"],
                },
            }
            for t in scenario.function_tools()
        ],
    }
    if scenario.choices > 1:
        request["n"] = scenario.choices
    return request


def _error_event(error: BaseException) -> dict[str, Any] | None:
    # The {"error": ...} line makes the client raise openai.APIError, its body the error object.
    body = getattr(error, "body", None)
    return {"error": body} if isinstance(body, dict) and "message" in body else None


WIRE = Wire(
    name="openai",
    default_model="gpt-4.1",
    modules=("openai",),
    open_client=open_client,
    first_request=_first_request,
    stream=lambda client, request: client.chat.completions.create(**request, stream=True),
    error_event=_error_event,
    routes=(
        Route(
            "chat",
            re.compile(r"/v1/chat/completions"),
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
    features=frozenset({"choices"}),
)
