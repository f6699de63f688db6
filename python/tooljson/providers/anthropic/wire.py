"""The stand-in's Messages API: its routes, and the anthropic client against the stand-in.

``POST /v1/messages`` is answered by :mod:`tooljson.providers.anthropic.endpoint`. Here: its route, the
route of ``AnthropicVertex`` (``/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:streamRawPredict``,
server-sent events), whose body names the model in its path, and the anthropic client's side.
``AnthropicBedrock``'s route is Bedrock's (:mod:`tooljson.providers.bedrock.wire`), which writes the same
events in its own frames.
"""

from __future__ import annotations

import json
import random
import re
from typing import TYPE_CHECKING, Any

from tooljson.providers.anthropic.endpoint import check_body, serve
from tooljson.standin.conversation import RequestRejected
from tooljson.standin.intake import json_bytes
from tooljson.standin.render import RenderedStream, estimate_tokens, render_stream
from tooljson.standin.wire import Route, Wire

if TYPE_CHECKING:
    from tooljson.standin.reply import Reply
    from tooljson.standin.scenario import Scenario

__all__ = ["WIRE", "messages_body", "messages_stream"]


def messages_body(body: Any, model: str | None) -> dict[str, Any]:
    """A Messages body whose model is in the path (Bedrock's InvokeModel, Vertex's rawPredict)."""
    if not isinstance(body, dict):
        raise RequestRejected("the request body must be a JSON object")
    if not isinstance(body.get("anthropic_version"), str):
        raise RequestRejected("anthropic_version: field required")
    unstreamed = {key: value for key, value in body.items() if key not in ("anthropic_version", "stream")}
    return check_body({**unstreamed, "model": model})


def messages_stream(
    reply: Reply, rng: random.Random, body: dict[str, Any], request: dict[str, Any], sizes: tuple[int, int]
) -> RenderedStream:
    prompt = json.dumps(request.get("messages")) + json.dumps(request.get("tools", []))
    return render_stream(
        reply,
        rng=rng,
        model=str(request["model"]),
        input_tokens=estimate_tokens(prompt),
        fragment_sizes=sizes,
    )


def _sse(event: dict[str, Any]) -> bytes:
    # Lone surrogates (a "raw surrogates" scenario) go out as their JSON escapes.
    data = json_bytes(event, separators=(",", ":"))
    return b"event: %s\ndata: %s\n\n" % (event["type"].encode(), data)


def _messages_error(status: int, message: str) -> tuple[dict[str, str], bytes]:
    kind = "invalid_request_error" if status < 500 else "api_error"
    payload = {"type": "error", "error": {"type": kind, "message": message}}
    return {"Content-Type": "application/json"}, json.dumps(payload).encode()


def _no_tail(stream: RenderedStream) -> bytes:
    return b""


def open_client(base_url: str) -> Any:
    """The anthropic client pointed at the stand-in."""
    import anthropic

    return anthropic.Anthropic(base_url=base_url, api_key="stand-in", max_retries=0)


def _first_request(scenario: Scenario, model: str) -> dict[str, Any]:
    return scenario.first_request(model=model)


def _error_event(error: BaseException) -> dict[str, Any] | None:
    # The anthropic SDK raises an error event with the event as its body.
    body = getattr(error, "body", None)
    return body if isinstance(body, dict) and body.get("type") == "error" else None


WIRE = Wire(
    name="anthropic",
    default_model="claude-sonnet-4-6",
    modules=("anthropic",),
    open_client=open_client,
    first_request=_first_request,
    stream=lambda client, request: client.messages.create(**request, stream=True),
    error_event=_error_event,
    routes=(
        Route(
            "messages",
            re.compile(r"/v1/messages"),
            "text/event-stream; charset=utf-8",
            lambda body, _: check_body(body),
            messages_stream,
            _sse,
            _no_tail,
            _messages_error,
            "request-id",
            serve=serve,
        ),
        Route(
            "vertex",
            re.compile(
                r"/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/(?P<model>[^/:]+):streamRawPredict"
            ),
            "text/event-stream; charset=utf-8",
            messages_body,
            messages_stream,
            _sse,
            _no_tail,
            _messages_error,
            "request-id",
        ),
    ),
    features=frozenset({"server tools", "thinking", "raw surrogates"}),
)
