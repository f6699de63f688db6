"""The stand-in's Bedrock runtime: ConverseStream, and Anthropic's Messages through InvokeModel.

``POST /model/{modelId}/converse-stream`` takes a Converse request (``messages`` of content blocks,
``toolConfig``, ``inferenceConfig.maxTokens``), read into the Messages API's shape for the
scenarios (:func:`to_messages`), and answers with ``application/vnd.amazon.eventstream`` frames
(:mod:`tooljson.providers.bedrock.eventstream`), one event each, as boto3's ``converse_stream`` reads them:
``messageStart``; per text block ``contentBlockDelta`` with ``delta.text`` pieces then
``contentBlockStop``; per call ``contentBlockStart`` with ``start.toolUse`` (``toolUseId``,
``name``), ``contentBlockDelta`` with ``delta.toolUse.input`` fragments, ``contentBlockStop``; per
thinking block ``reasoningContent`` deltas; then ``messageStop`` with the reply's ``stopReason``
(Bedrock's words are the Messages API's) and ``metadata`` with the usage. A fault sends a
``modelStreamErrorException`` frame (botocore raises ``EventStreamError``) or drops the connection.

``POST /model/{modelId}/invoke-with-response-stream`` is what ``anthropic.AnthropicBedrock`` sends:
a Messages body without ``model`` and ``stream``; the answer is the same Messages events as
``/v1/messages`` streams, each JSON event base64-encoded in the ``bytes`` of a ``chunk`` frame.

Errors are answered as Bedrock does: the status, an ``x-amzn-ErrorType`` header naming the
exception (``ValidationException``, ``InternalServerException``) and ``{"message": ...}``.
"""

from __future__ import annotations

import base64
import json
import random
import re
from typing import TYPE_CHECKING, Any

from tooljson.providers.anthropic.wire import messages_body, messages_stream
from tooljson.providers.bedrock.eventstream import event_message, exception_message
from tooljson.standin.conversation import RequestRejected
from tooljson.standin.render import RenderedStream, assign_ids, cut_text, estimate_tokens, fragments_of
from tooljson.standin.reply import Reply, Text, Thinking, ToolUse
from tooljson.standin.wire import Route, Wire, own_render

if TYPE_CHECKING:
    from tooljson.standin.scenario import Scenario

__all__ = ["CONTENT_TYPE", "WIRE", "chunk_frame", "error", "frame", "render", "tail", "to_messages"]

CONTENT_TYPE = "application/vnd.amazon.eventstream"


def _text(blocks: list[Any]) -> str:
    parts = []
    for block in blocks:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and "json" in block:
            parts.append(json.dumps(block["json"]))
    return "".join(parts)


def _block(block: Any, where: str) -> dict[str, Any]:
    if not isinstance(block, dict) or len(block) != 1:
        raise RequestRejected(f"{where}: a content block is an object with exactly one member")
    ((kind, value),) = block.items()
    if kind == "text" and isinstance(value, str):
        return {"type": "text", "text": value}
    if kind == "toolUse" and isinstance(value, dict) and isinstance(value.get("toolUseId"), str):
        tool_input = value.get("input")
        return {
            "type": "tool_use",
            "id": value["toolUseId"],
            "name": str(value.get("name")),
            "input": tool_input if isinstance(tool_input, dict) else {},
        }
    if kind == "toolResult" and isinstance(value, dict) and isinstance(value.get("toolUseId"), str):
        content = value.get("content")
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": value["toolUseId"],
            "content": _text(content if isinstance(content, list) else []),
        }
        if value.get("status") == "error":
            result["is_error"] = True
        return result
    if kind == "reasoningContent":
        text = value.get("reasoningText") if isinstance(value, dict) else None
        text = text if isinstance(text, dict) else {}
        return {
            "type": "thinking",
            "thinking": str(text.get("text", "")),
            "signature": str(text.get("signature", "")),
        }
    raise RequestRejected(f"{where}: a {kind!r} block is not taken by the stand-in")


def to_messages(body: Any, model: str) -> dict[str, Any]:
    """A Converse request for ``model`` as a Messages API body; raises :class:`RequestRejected`."""
    if not isinstance(body, dict):
        raise RequestRejected("the request body must be a JSON object")
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise RequestRejected("messages: a non-empty list is required")
    messages = []
    for position, message in enumerate(raw):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise RequestRejected(f"messages.{position}.role: 'user' or 'assistant' is required")
        content = message.get("content")
        if not isinstance(content, list):
            raise RequestRejected(f"messages.{position}.content: a list is required")
        blocks = [
            _block(block, f"messages.{position}.content.{number}") for number, block in enumerate(content)
        ]
        messages.append({"role": message["role"], "content": blocks})
    config = body.get("inferenceConfig") or {}
    limit = config.get("maxTokens", 4096) if isinstance(config, dict) else None
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise RequestRejected("inferenceConfig.maxTokens: a positive integer is required")
    tools = []
    tool_config = body.get("toolConfig") or {}
    listed = tool_config.get("tools", []) if isinstance(tool_config, dict) else []
    if not isinstance(listed, list):
        raise RequestRejected("toolConfig.tools: a list is required")
    for position, tool in enumerate(listed):
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            raise RequestRejected(f"toolConfig.tools.{position}: a toolSpec with a name is required")
        schema = (
            spec.get("inputSchema", {}).get("json") if isinstance(spec.get("inputSchema"), dict) else None
        )
        tools.append(
            {
                "name": spec["name"],
                "description": spec.get("description", ""),
                "input_schema": schema or {"type": "object", "properties": {}},
            }
        )
    return {"model": model, "max_tokens": limit, "tools": tools, "messages": messages}


def render(
    reply: Reply, *, rng: random.Random, body: dict[str, Any], fragment_sizes: tuple[int, int]
) -> RenderedStream:
    """The ConverseStream events answering ``body``, each ``{event name: members}`` as boto3 yields it."""
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    for index, block in enumerate(assign_ids(reply.blocks, rng)):
        if isinstance(block, Text):
            events += [
                {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"text": piece}}}
                for piece in cut_text(block.text, rng, fragment_sizes)
            ]
        elif isinstance(block, Thinking):
            events += [
                {
                    "contentBlockDelta": {
                        "contentBlockIndex": index,
                        "delta": {"reasoningContent": {"text": piece}},
                    }
                }
                for piece in cut_text(block.thinking, rng, fragment_sizes)
            ]
            events.append(
                {
                    "contentBlockDelta": {
                        "contentBlockIndex": index,
                        "delta": {"reasoningContent": {"signature": block.signature}},
                    }
                }
            )
        elif isinstance(block, ToolUse) and not block.server:
            start = {
                "toolUse": {"toolUseId": "tooluse_" + str(block.id).partition("_")[2], "name": block.name}
            }
            events.append({"contentBlockStart": {"contentBlockIndex": index, "start": start}})
            fault = reply.fault if reply.fault is not None and reply.fault.block == index else None
            text = block.input_text if fault is None else block.input_text[: fault.after_chars]
            events += [
                {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"toolUse": {"input": piece}}}}
                for piece in fragments_of(block, text, rng, fragment_sizes)
            ]
            if fault is not None:
                if fault.kind == "drop":
                    return RenderedStream(events, drop=True)
                members = {
                    "message": fault.error_message,
                    "originalStatusCode": 529,
                    "originalMessage": fault.error_message,
                }
                events.append({"modelStreamErrorException": members})
                return RenderedStream(events, drop=False)
        else:
            continue
        events.append({"contentBlockStop": {"contentBlockIndex": index}})
    events.append({"messageStop": {"stopReason": reply.stop_reason}})
    output = sum(estimate_tokens(json.dumps(event)) for event in events)
    prompt = estimate_tokens(json.dumps(body.get("messages")))
    usage = {"inputTokens": prompt, "outputTokens": output, "totalTokens": prompt + output}
    events.append({"metadata": {"usage": usage, "metrics": {"latencyMs": 1}}})
    return RenderedStream(events, drop=False)


def frame(event: dict[str, Any]) -> bytes:
    """One event (``{name: members}``) as an eventstream message; exceptions as exception messages."""
    ((name, members),) = event.items()
    if name.endswith("Exception"):
        return exception_message(name, members)
    return event_message(name, members)


def chunk_frame(event: dict[str, Any]) -> bytes:
    """One Messages API event as InvokeModelWithResponseStream carries it: a ``chunk`` whose
    ``bytes`` are the event's JSON."""
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return event_message("chunk", {"bytes": base64.b64encode(data).decode("ascii")})


def tail(stream: RenderedStream) -> bytes:
    """Bedrock sends nothing after its last frame."""
    return b""


def error(status: int, message: str) -> tuple[dict[str, str], bytes]:
    """An error answer's headers and body, as Bedrock shapes them."""
    kind = "ValidationException" if status < 500 else "InternalServerException"
    return {"Content-Type": "application/json", "x-amzn-ErrorType": f"{kind}:"}, json.dumps(
        {"message": message}
    ).encode()


def _no_tail(stream: RenderedStream) -> bytes:
    return b""


def open_client(base_url: str) -> Any:
    """boto3's bedrock-runtime client pointed at the stand-in."""
    import boto3  # type: ignore[import-untyped]  # boto3 and botocore ship no type hints
    from botocore.config import Config  # type: ignore[import-untyped]

    session = boto3.session.Session(
        aws_access_key_id="stand-in", aws_secret_access_key="stand-in", region_name="us-east-1"
    )
    return session.client(
        "bedrock-runtime", endpoint_url=base_url, config=Config(retries={"max_attempts": 1})
    )


def _first_request(scenario: Scenario, model: str) -> dict[str, Any]:
    specs = [
        {
            "toolSpec": {
                "name": t["name"],
                "description": t["description"],
                "inputSchema": {"json": t["input_schema"]},
            }
        }
        for t in scenario.function_tools()
    ]
    request: dict[str, Any] = {
        "modelId": model,
        "messages": [{"role": "user", "content": [{"text": scenario.prompt}]}],
        "inferenceConfig": {"maxTokens": scenario.first_max_tokens},
    }
    if specs:
        request["toolConfig"] = {"tools": specs}
    return request


def _error_event(error: BaseException) -> dict[str, Any] | None:
    # botocore raises EventStreamError for an exception frame, its response["Error"] the details; a
    # dropped connection raises urllib3's ProtocolError straight from the HTTP layer.
    response = getattr(error, "response", None)
    if isinstance(response, dict) and isinstance(response.get("Error"), dict):
        details = response["Error"]
        return {str(details.get("Code")): {"message": str(details.get("Message", ""))}}
    return None


WIRE = Wire(
    name="bedrock",
    default_model="anthropic.claude-sonnet-4-6-v1:0",
    modules=("boto3",),
    open_client=open_client,
    first_request=_first_request,
    stream=lambda client, request: client.converse_stream(**request)["stream"],
    error_event=_error_event,
    routes=(
        Route(
            "converse",
            re.compile(r"/model/(?P<model>[^/]+)/converse-stream"),
            CONTENT_TYPE,
            lambda body, model: to_messages(body, str(model)),
            own_render(render),
            frame,
            tail,
            error,
            "x-amzn-RequestId",
        ),
        Route(
            "bedrock-invoke",
            re.compile(r"/model/(?P<model>[^/]+)/invoke-with-response-stream"),
            CONTENT_TYPE,
            messages_body,
            messages_stream,
            chunk_frame,
            _no_tail,
            error,
            "x-amzn-RequestId",
        ),
    ),
)
