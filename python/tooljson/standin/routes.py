"""The stand-in's endpoints besides ``POST /v1/messages``: the other APIs, over the same scenarios.

====================================================================  ====================================
``POST /v1/chat/completions``                                         OpenAI Chat Completions (SSE, or
                                                                      one JSON body without ``stream``)
``POST /v1/responses``                                                OpenAI Responses (SSE, or one
                                                                      JSON body without ``stream``)
``POST /model/{modelId}/converse-stream``                             Bedrock ConverseStream (eventstream)
``POST /model/{modelId}/invoke-with-response-stream``                 Messages via ``AnthropicBedrock``
``POST /projects/{p}/locations/{r}/publishers/anthropic/models/{m}``  Messages via ``AnthropicVertex``
``:streamRawPredict``                                                 (SSE)
====================================================================  ====================================

Each request is read into the Messages API's shape, answered by the server's scenario exactly as
``/v1/messages`` would be, and the reply written in the API's own wire shape (see
:mod:`~tooljson.standin.chat`, :mod:`~tooljson.standin.responses`, :mod:`~tooljson.standin.bedrock`),
streamed with chunked transfer encoding so that a dropped connection shows as an unfinished body.
A request the API would refuse gets a 4xx in the API's own error shape; a scenario that raises, a
500. The server calls :func:`serve` for every ``POST`` it does not answer itself.
"""

from __future__ import annotations

import json
import random
import re
import socket
import traceback
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tooljson.standin import bedrock, chat, responses
from tooljson.standin.conversation import RequestRejected, check_tool_pairing, turn_number
from tooljson.standin.render import RenderedStream, estimate_tokens, make_id, render_stream
from tooljson.standin.script import Reply

if TYPE_CHECKING:
    from http.server import BaseHTTPRequestHandler

__all__ = ["ROUTES", "Route", "serve"]


@dataclass(frozen=True)
class Route:
    """One endpoint: how its requests read as Messages bodies and how its answers are written."""

    name: str
    pattern: re.Pattern[str]
    content_type: str
    # (request body, the model named in the path or None) -> a Messages API body
    to_messages: Callable[[Any, str | None], dict[str, Any]]
    # (reply, rng, the request as sent, the Messages body, fragment sizes) -> the events
    render: Callable[[Reply, random.Random, dict[str, Any], dict[str, Any], tuple[int, int]], RenderedStream]
    frame: Callable[[dict[str, Any]], bytes]
    tail: Callable[[RenderedStream], bytes]
    error: Callable[[int, str], tuple[dict[str, str], bytes]]
    request_id_header: str
    # (the rendered stream, the request as sent) -> the one JSON answer to a request without
    # "stream": true; None for the endpoints that only stream.
    whole: Callable[[RenderedStream, dict[str, Any]], dict[str, Any]] | None = None


def _messages_body(body: Any, model: str | None) -> dict[str, Any]:
    """A Messages body whose model is in the path (Bedrock's InvokeModel, Vertex's rawPredict)."""
    from tooljson.standin.server import _check_body

    if not isinstance(body, dict):
        raise RequestRejected("the request body must be a JSON object")
    if not isinstance(body.get("anthropic_version"), str):
        raise RequestRejected("anthropic_version: field required")
    unstreamed = {key: value for key, value in body.items() if key not in ("anthropic_version", "stream")}
    return _check_body({**unstreamed, "model": model})


def _messages_stream(reply: Reply, rng: random.Random, body: dict[str, Any], request: dict[str, Any], sizes: tuple[int, int]) -> RenderedStream:
    prompt = json.dumps(request.get("messages")) + json.dumps(request.get("tools", []))
    return render_stream(reply, rng=rng, model=str(request["model"]), input_tokens=estimate_tokens(prompt), fragment_sizes=sizes)


def _sse(event: dict[str, Any]) -> bytes:
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


def _messages_error(status: int, message: str) -> tuple[dict[str, str], bytes]:
    kind = "invalid_request_error" if status < 500 else "api_error"
    payload = {"type": "error", "error": {"type": kind, "message": message}}
    return {"Content-Type": "application/json"}, json.dumps(payload).encode()


def _no_tail(stream: RenderedStream) -> bytes:
    return b""


def _own(render: Callable[..., RenderedStream]) -> Callable[[Reply, random.Random, dict[str, Any], dict[str, Any], tuple[int, int]], RenderedStream]:
    def rendered(reply: Reply, rng: random.Random, body: dict[str, Any], request: dict[str, Any], sizes: tuple[int, int]) -> RenderedStream:
        return render(reply, rng=rng, body=body, fragment_sizes=sizes)

    return rendered


ROUTES: tuple[Route, ...] = (
    Route("chat", re.compile(r"/v1/chat/completions"), chat.CONTENT_TYPE, lambda body, _: chat.to_messages(body),
          _own(chat.render), chat.frame, chat.tail, chat.error, "x-request-id", chat.whole),
    Route("responses", re.compile(r"/v1/responses"), responses.CONTENT_TYPE, lambda body, _: responses.to_messages(body),
          _own(responses.render), responses.frame, responses.tail, responses.error, "x-request-id", responses.whole),
    Route("converse", re.compile(r"/model/(?P<model>[^/]+)/converse-stream"), bedrock.CONTENT_TYPE,
          lambda body, model: bedrock.to_messages(body, str(model)), _own(bedrock.render), bedrock.frame, bedrock.tail,
          bedrock.error, "x-amzn-RequestId"),
    Route("bedrock-invoke", re.compile(r"/model/(?P<model>[^/]+)/invoke-with-response-stream"), bedrock.CONTENT_TYPE,
          _messages_body, _messages_stream, bedrock.chunk_frame, _no_tail, bedrock.error, "x-amzn-RequestId"),
    Route("vertex", re.compile(r"/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/(?P<model>[^/:]+):streamRawPredict"),
          "text/event-stream; charset=utf-8", _messages_body, _messages_stream, _sse, _no_tail, _messages_error, "request-id"),
)


def serve(handler: BaseHTTPRequestHandler, body: Any) -> bool:
    """Answer a ``POST`` whose path is one of :data:`ROUTES`; ``False`` when none matches."""
    path = handler.path.split("?", 1)[0]
    for route in ROUTES:
        match = route.pattern.fullmatch(path)
        if match is not None:
            model = match.groupdict().get("model")
            _answer(handler, route, body, urllib.parse.unquote(model) if model is not None else None)
            return True
    return False


def _answer(handler: BaseHTTPRequestHandler, route: Route, body: Any, model: str | None) -> None:
    from tooljson.standin.server import _request_rng

    # The server has already read, bounded and recorded the request.
    owner = handler.server.owner  # type: ignore[attr-defined]
    request_id = make_id(random.Random(), "req_")
    try:
        request = route.to_messages(body, model)
        # The pairing rule holds for every API: each call answered in the next message, nothing else.
        check_tool_pairing(request)
        reply = owner.scenario.respond(request, turn_number(request))
    except RequestRejected as rejected:
        _send_error(handler, route, 400, str(rejected), request_id)
        return
    except Exception as error:  # a scenario bug: report it to the client and keep it for tests
        owner.record_failure(traceback.format_exc())
        _send_error(handler, route, 500, f"scenario failed: {error!r}", request_id)
        return
    rng = _request_rng(owner.seed, owner.scenario.name, body)
    stream = route.render(reply, rng, body, request, owner.fragment_sizes)
    if route.whole is not None and body.get("stream") is not True:
        _answer_whole(handler, route, stream, body, request_id)
        return
    handler.send_response(200)
    handler.send_header("Content-Type", route.content_type)
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.send_header(route.request_id_header, request_id)
    handler.end_headers()
    try:
        for event in stream.events:
            _chunk(handler, route.frame(event))
        if stream.drop:
            # Leave the body unfinished: the client sees the connection end mid-stream.
            handler.close_connection = True
            handler.wfile.flush()
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        _chunk(handler, route.tail(stream))
        handler.wfile.write(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        handler.close_connection = True


def _answer_whole(handler: BaseHTTPRequestHandler, route: Route, stream: RenderedStream, body: dict[str, Any], request_id: str) -> None:
    """Answer a request without ``stream: true`` with one JSON body; a fault is an HTTP 500 in the
    API's error shape, or the connection closed before any answer."""
    assert route.whole is not None
    if stream.drop:
        handler.close_connection = True
        handler.connection.shutdown(socket.SHUT_RDWR)
        return
    last = stream.events[-1] if stream.events else {}
    if "error" in last and "choices" not in last:
        fault = last["error"]  # Chat Completions' error line
    elif last.get("type") == "error":
        fault = last  # the Responses error event
    else:
        fault = None
    if isinstance(fault, dict):
        _send_error(handler, route, 500, str(fault.get("message", "")), request_id)
        return
    data = json.dumps(route.whole(stream, body), ensure_ascii=False).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.send_header(route.request_id_header, request_id)
    handler.end_headers()
    handler.wfile.write(data)


def _chunk(handler: BaseHTTPRequestHandler, payload: bytes) -> None:
    if payload:
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))


def _send_error(handler: BaseHTTPRequestHandler, route: Route, status: int, message: str, request_id: str) -> None:
    headers, data = route.error(status, message)
    handler.send_response(status)
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(data)))
    handler.send_header(route.request_id_header, request_id)
    handler.end_headers()
    handler.wfile.write(data)
