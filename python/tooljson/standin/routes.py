"""The stand-in's endpoints: every API it speaks, over the same scenarios.

Each wire (:func:`tooljson.standin.wire.wires`, one per source the registry lists with a wire) brings
its routes. Each request is read into the Messages API's shape, answered by the server's scenario,
and the reply written in the API's own wire shape, streamed with chunked transfer encoding so that a
dropped connection shows as an unfinished body (a route with a ``whole`` answers a request without
``stream: true`` with one JSON body instead; a route with its own ``serve``, the Messages API's
``POST /v1/messages``, answers its requests itself). A request the API would refuse gets a 4xx in the
API's own error shape; a scenario that raises, a 500. The server (:mod:`tooljson.standin.server`)
calls :func:`serve` for every ``POST``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import socket
import traceback
import urllib.parse
from typing import TYPE_CHECKING, Any

from tooljson.standin.conversation import RequestRejected, check_tool_pairing, turn_number
from tooljson.standin.render import RenderedStream, make_id
from tooljson.standin.wire import Route, wires

if TYPE_CHECKING:
    from http.server import BaseHTTPRequestHandler

__all__ = ["Route", "request_rng", "routes", "send_stream", "serve"]


@functools.cache
def routes() -> tuple[Route, ...]:
    """Every endpoint, from each wire (imported the first time a request asks)."""
    return tuple(route for each in wires() for route in each.routes)


def request_rng(seed: int, scenario: str, body: dict[str, Any]) -> random.Random:
    """The random generator an answer is drawn from: seeded by the server's seed, the scenario and
    the request body without ``stream``, so the same request always gets the same ids and cuts, and
    a streamed and a whole answer to it agree."""
    unstreamed = {key: value for key, value in body.items() if key != "stream"}
    canonical = json.dumps(unstreamed, sort_keys=True, ensure_ascii=False)
    digest = hashlib.sha256(f"{seed}\0{scenario}\0{canonical}".encode("utf-8", "surrogatepass")).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def serve(handler: BaseHTTPRequestHandler, body: Any) -> bool:
    """Answer a ``POST`` whose path is one of :func:`routes`; ``False`` when none matches."""
    path = handler.path.split("?", 1)[0]
    for route in routes():
        match = route.pattern.fullmatch(path)
        if match is not None:
            if route.serve is not None:
                route.serve(handler, route, body)
                return True
            model = match.groupdict().get("model")
            _answer(handler, route, body, urllib.parse.unquote(model) if model is not None else None)
            return True
    return False


def _answer(handler: BaseHTTPRequestHandler, route: Route, body: Any, model: str | None) -> None:
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
    except Exception as error:  # noqa: BLE001 - a scenario bug: report it to the client and keep it for tests
        owner.record_failure(traceback.format_exc())
        _send_error(handler, route, 500, f"scenario failed: {error!r}", request_id)
        return
    rng = request_rng(owner.seed, owner.scenario.name, body)
    stream = route.render(reply, rng, body, request, owner.fragment_sizes)
    if route.whole is not None and body.get("stream") is not True:
        _answer_whole(handler, route, stream, body, request_id)
        return
    send_stream(handler, route, stream, request_id)


def send_stream(
    handler: BaseHTTPRequestHandler, route: Route, stream: RenderedStream, request_id: str
) -> None:
    """Stream ``stream``'s events in ``route``'s frames, chunked; a dropped stream leaves the body
    unfinished (the client sees the connection end mid-stream)."""
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


def _answer_whole(
    handler: BaseHTTPRequestHandler,
    route: Route,
    stream: RenderedStream,
    body: dict[str, Any],
    request_id: str,
) -> None:
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


def _send_error(
    handler: BaseHTTPRequestHandler, route: Route, status: int, message: str, request_id: str
) -> None:
    headers, data = route.error(status, message)
    handler.send_response(status)
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(data)))
    handler.send_header(route.request_id_header, request_id)
    handler.end_headers()
    handler.wfile.write(data)
