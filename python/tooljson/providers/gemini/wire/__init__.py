"""The stand-in's Gemini: ``streamGenerateContent`` of the Gemini API and of Vertex AI, and their client.

Two paths, one wire: ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse`` (the Gemini API;
``v1`` and ``v1alpha`` too) and ``POST /v1beta1/publishers/google/models/{model}:streamGenerateContent``
(Vertex AI with an API key; ``v1`` and the ``projects/{p}/locations/{l}/`` form too). The answer is
always server-sent events, whatever ``alt`` says.

The request (:func:`to_messages`) is read into the Messages API's shape, so every scenario
answers it unchanged: ``contents`` (role ``user`` or ``model``; consecutive contents of one role are
one message) of ``text``, ``functionCall`` and ``functionResponse`` parts; ``tools`` of
``functionDeclarations`` (``parameters``, an OpenAPI schema with upper-case types, or
``parametersJsonSchema``); ``generationConfig.maxOutputTokens``;
``toolConfig.functionCallingConfig.streamFunctionCallArguments``. Field names are taken in
lowerCamelCase or snake_case, as the API's JSON reader takes them (the SDK writes
``parameters_json_schema`` and, on Vertex, ``stream_function_call_arguments``). A
``functionResponse`` answers the ``functionCall`` of the model turn just before it with its ``id``;
where the response carries none (or one no call has), it answers the first unanswered call of its
name. The turn with the responses must follow the call turn and answer every call, as the API
requires; ``{"output": ...}`` is a result, ``{"error": ...}`` an error result, and a result whose text
follows the INVALID_JSON convention is an error result too.

The reply (:func:`render`) is written as ``data: <GenerateContentResponse JSON>`` lines, camelCase,
each chunk with ``responseId`` and ``modelVersion`` (and ``createTime`` on Vertex):

* text is cut into pieces, one ``text`` part per chunk;
* a call arrives whole, ``functionCall: {name, args}`` in one part of its own. The Gemini API leaves
  out its ``id`` (results are then paired by name and order); Vertex sends one;
* streamed arguments, honoured on Vertex only (the Gemini API refuses the field, as the real one
  does): the call opens with ``{id, name, willContinue: true}``; chunks of ``partialArgs`` follow,
  one entry per scalar in document order, at its RFC 9535 path (``$.items[0].sku``,
  ``$['gift wrap']`` for a name that is not a shorthand), strings cut into pieces with
  ``willContinue: true`` on all but the last piece of each string; the call ends with an empty
  ``functionCall: {}`` or, chosen by the seed, with a last chunk without ``willContinue``. An empty
  object or array inside the arguments cannot be stated this way: a reply with one is refused;
* the last chunk has ``finishReason`` (``STOP``; ``MAX_TOKENS`` for a reply cut off at the token
  limit, whose last call is then not sent at all, or with streamed arguments is left open) and
  ``usageMetadata``. A reply with a call whose text is not a JSON object sends no call part at all
  and ends with ``MALFORMED_FUNCTION_CALL``, the broken calls' text in ``finishMessage``;
* a fault ends the stream with ``data: {"error": {"code": 503, "message": ..., "status":
  "UNAVAILABLE"}}`` (the client raises ``google.genai.errors.ServerError``) or a dropped connection
  (httpx's ``RemoteProtocolError``; aiohttp's ``ClientPayloadError`` in the async client).

A refused request gets the API's error shape, ``{"error": {"code": 400, "message": ..., "status":
"INVALID_ARGUMENT"}}``, which the client raises as ``google.genai.errors.ClientError``.

The client side (:func:`open_client`, :func:`first_request`, :func:`stream_events`,
:func:`error_event`) is google-genai's ``Client``, imported only when asked for.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from tooljson.providers.gemini.wire.client import (
    DEFAULT_MODEL,
    as_dict,
    error_event,
    first_request,
    open_client,
    stream_events,
)
from tooljson.providers.gemini.wire.replies import (
    UnstreamableArguments,
    error,
    frame,
    json_path,
    partial_args,
    render,
    tail,
)
from tooljson.providers.gemini.wire.requests import streams_arguments, to_messages
from tooljson.standin.render import RenderedStream
from tooljson.standin.reply import Reply
from tooljson.standin.wire import Route, Wire

__all__ = [
    "WIRE",
    "CONTENT_TYPE",
    "DEFAULT_MODEL",
    "UnstreamableArguments",
    "as_dict",
    "error",
    "error_event",
    "first_request",
    "frame",
    "json_path",
    "open_client",
    "partial_args",
    "render",
    "stream_events",
    "streams_arguments",
    "tail",
    "to_messages",
]

CONTENT_TYPE = "text/event-stream"


def _rendered(
    vertex: bool,
) -> Callable[[Reply, random.Random, dict[str, Any], dict[str, Any], tuple[int, int]], RenderedStream]:
    def rendered(
        reply: Reply,
        rng: random.Random,
        body: dict[str, Any],
        request: dict[str, Any],
        sizes: tuple[int, int],
    ) -> RenderedStream:
        return render(
            reply, rng=rng, body=body, model=str(request["model"]), vertex=vertex, fragment_sizes=sizes
        )

    return rendered


WIRE = Wire(
    name="gemini",
    default_model=DEFAULT_MODEL,
    modules=("google.genai",),
    open_client=open_client,
    first_request=lambda scenario, model: first_request(scenario, model=model),
    stream=lambda client, request: client.models.generate_content_stream(**request),
    error_event=error_event,
    as_dict=as_dict,
    routes=(
        Route(
            "gemini",
            re.compile(r"/v1(?:beta|alpha)?/models/(?P<model>[^/:]+):streamGenerateContent"),
            CONTENT_TYPE,
            lambda body, model: to_messages(body, str(model), vertex=False),
            _rendered(False),
            frame,
            tail,
            error,
            "x-goog-request-id",
        ),
        Route(
            "gemini-vertex",
            re.compile(
                r"/v1(?:beta1)?/(?:projects/[^/]+/locations/[^/]+/)?publishers/google/models/(?P<model>[^/:]+)"
                r":streamGenerateContent"
            ),
            CONTENT_TYPE,
            lambda body, model: to_messages(body, str(model), vertex=True),
            _rendered(True),
            frame,
            tail,
            error,
            "x-goog-request-id",
        ),
    ),
    features=frozenset({"streamed arguments"}),
)
