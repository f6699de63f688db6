"""The stand-in's ``POST /v1/messages``: the Messages API's own endpoint, streamed or whole.

The server (:mod:`tooljson.standin.server`) reads, bounds and records every request and hands this
path's to :func:`serve` through the route of the anthropic wire (:mod:`tooljson.providers.anthropic.wire`).
A request on a server-held thread stands for the whole conversation (:mod:`tooljson.standin.threads`);
a streamed answer is the scenario's reply as server-sent events, a whole one the message built from
the same reply. Asked without ``stream``, a faulty scenario answers HTTP 529 ``overloaded_error``
(``stream_error``) or closes the connection before answering (``connection_drop``).
"""

from __future__ import annotations

import json
import random
import traceback
from typing import TYPE_CHECKING, Any

from tooljson.standin.conversation import RequestRejected, check_tool_pairing, turn_number
from tooljson.standin.intake import error_body
from tooljson.standin.render import UnrenderableReply, estimate_tokens, make_id, render_message, render_stream
from tooljson.standin.routes import request_rng, send_stream
from tooljson.standin.threads import ThreadNotFound

if TYPE_CHECKING:
    from tooljson.standin.wire import Route

__all__ = ["check_body", "serve"]

# HTTP status of an overloaded API, used when a faulty scenario is asked for a whole message.
_OVERLOADED_STATUS = 529


def check_body(body: Any) -> dict[str, Any]:
    """A Messages request body as the API checks it (model, ``max_tokens``, tool pairing); raises
    :class:`~tooljson.standin.conversation.RequestRejected`."""
    if not isinstance(body, dict):
        raise RequestRejected("the request body must be a JSON object")
    if not isinstance(body.get("model"), str):
        raise RequestRejected("model: field required")
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise RequestRejected("max_tokens: a positive integer is required")
    check_tool_pairing(body)
    return body


def serve(handler: Any, route: Route, body: Any) -> None:
    """``POST /v1/messages``: the scenario's reply, streamed or whole (``handler`` is the server's
    request handler, with the request already read and recorded)."""
    owner = handler.server.owner
    request_id = make_id(random.Random(), "req_")
    try:
        # A request on a server-held thread stands for the whole conversation (standin/threads.py).
        checked = check_body(owner.threads.expand(body) if isinstance(body, dict) else body)
        reply = owner.scenario.respond(checked, turn_number(checked))
    except RequestRejected as rejected:
        handler.send_json(400, error_body("invalid_request_error", str(rejected)), request_id)
        return
    except ThreadNotFound as unknown:
        handler.send_json(404, unknown.body(), request_id)
        return
    except Exception as error:  # noqa: BLE001 - a scenario bug: report it to the client and keep it for tests
        owner.record_failure(traceback.format_exc())
        handler.send_json(500, error_body("api_error", f"scenario failed: {error!r}"), request_id)
        return
    rng = request_rng(owner.seed, owner.scenario.name, checked)
    model = str(checked["model"])
    prompt = json.dumps(checked.get("messages")) + json.dumps(checked.get("tools", []))
    input_tokens = estimate_tokens(prompt)
    if body.get("thread") is not None and reply.fault is None:
        held_rng = request_rng(owner.seed, owner.scenario.name, checked)
        owner.threads.keep(
            checked, render_message(reply, rng=held_rng, model=model, input_tokens=0, held=True)
        )
    if checked.get("stream") is True:
        stream = render_stream(
            reply, rng=rng, model=model, input_tokens=input_tokens, fragment_sizes=owner.fragment_sizes
        )
        send_stream(handler, route, stream, request_id)
        return
    if reply.fault is not None and reply.fault.kind == "drop":
        handler.drop()
        return
    if reply.fault is not None:
        overloaded = error_body(reply.fault.error_type, reply.fault.error_message)
        handler.send_json(_OVERLOADED_STATUS, overloaded, request_id)
        return
    try:
        message = render_message(reply, rng=rng, model=model, input_tokens=input_tokens)
    except UnrenderableReply as error:
        handler.send_json(500, error_body("api_error", str(error)), request_id)
        return
    handler.send_json(200, message, request_id)
