"""The stand-in's Gemini: ``streamGenerateContent`` of the Gemini API and of Vertex AI, and their client.

Two paths, one wire: ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse`` (the Gemini API;
``v1`` and ``v1alpha`` too) and ``POST /v1beta1/publishers/google/models/{model}:streamGenerateContent``
(Vertex AI with an API key; ``v1`` and the ``projects/{p}/locations/{l}/`` form too). The answer is
always server-sent events, whatever ``alt`` says.

The request (:func:`to_messages`) is read into the Messages API's shape, so every scenario script
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
  object or array inside the arguments cannot be stated this way: a script with one is refused;
* the last chunk has ``finishReason`` (``STOP``; ``MAX_TOKENS`` for a script cut off at the token
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

import json
import random
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from tooljson.errors import MalformedJSONError
from tooljson.parser import Parser
from tooljson.standin.chat import is_error_text
from tooljson.standin.conversation import RequestRejected, parse_json_or_none
from tooljson.standin.intake import json_bytes
from tooljson.standin.render import RenderedStream, assign_ids, cut_text, estimate_tokens, make_id
from tooljson.standin.script import Reply, ScriptedToolCall, Text, Thinking
from tooljson.standin.wire import Route, Wire

if TYPE_CHECKING:
    from tooljson.standin.scenario import Scenario

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
    "streams_arguments",
    "tail",
    "to_messages",
]

CONTENT_TYPE = "text/event-stream"
DEFAULT_MODEL = "gemini-3-pro-preview"
# What a request without generationConfig.maxOutputTokens may use (the Gemini 3 models' limit).
_DEFAULT_MAX_OUTPUT_TOKENS = 65_536
# A fixed creation time: the same request always gets the same bytes.
_CREATE_TIME = "2026-01-01T00:00:00.000000Z"
_STATUS_WORDS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                 413: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}
# An RFC 9535 member-name-shorthand: what may follow a "." in a path.
_SHORTHAND = re.compile(r"[A-Za-z_\u0080-\ud7ff\ue000-\U0010ffff][A-Za-z0-9_\u0080-\ud7ff\ue000-\U0010ffff]*")
_PATH_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "'": "\\'", "\\": "\\\\"}


class UnstreamableArguments(ValueError):
    """Arguments that ``partialArgs`` cannot carry: an empty object or array inside them."""


# ---------------------------------------------------------------------------------------------------
# Reading the request


def _snake(name: str) -> str:
    return re.sub(r"[A-Z]", lambda match: "_" + match.group(0).lower(), name)


def _member(value: Any, name: str) -> Any:
    """``value[name]`` by its lowerCamelCase or its snake_case name (``None`` when absent)."""
    if not isinstance(value, dict):
        return None
    return value[name] if name in value else value.get(_snake(name))


def streams_arguments(body: Any) -> bool:
    """Whether the request asks for streamed arguments (``toolConfig.functionCallingConfig.
    streamFunctionCallArguments``)."""
    config = _member(_member(body, "toolConfig"), "functionCallingConfig")
    return _member(config, "streamFunctionCallArguments") is True


def _lower_types(schema: Any) -> Any:
    """An OpenAPI ``parameters`` schema as JSON Schema: its upper-case type names in lower case."""
    if isinstance(schema, list):
        return [_lower_types(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {key: value.lower() if key == "type" and isinstance(value, str) else _lower_types(value)
            for key, value in schema.items()}


def _tools(tools: Any) -> list[dict[str, Any]]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise RequestRejected("tools: a list is required")
    out = []
    for position, tool in enumerate(tools):
        declarations = _member(tool, "functionDeclarations")
        if not isinstance(declarations, list):
            raise RequestRejected(f"tools[{position}]: the stand-in takes functionDeclarations tools only")
        for number, declaration in enumerate(declarations):
            if not isinstance(_member(declaration, "name"), str):
                raise RequestRejected(f"tools[{position}].function_declarations[{number}].name: a string is required")
            schema = _member(declaration, "parametersJsonSchema")
            if schema is None:
                schema = _lower_types(_member(declaration, "parameters"))
            out.append({"name": declaration["name"], "description": str(_member(declaration, "description") or ""),
                        "input_schema": schema or {"type": "object", "properties": {}}})
    return out


def _result(response: Any) -> tuple[str, bool]:
    """A ``functionResponse.response`` as a result's text and error flag."""
    if isinstance(response, dict) and set(response) == {"error"}:
        value, failed = response["error"], True
    elif isinstance(response, dict) and set(response) == {"output"}:
        value, failed = response["output"], False
    else:
        value, failed = response, False
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text, failed or is_error_text(text)


def _content_blocks(content: Any, where: str) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """One content's role, its text and call blocks, and its ``functionResponse`` members (with
    where each sits, for messages)."""
    if not isinstance(content, dict):
        raise RequestRejected(f"{where}: an object is required")
    role = content.get("role", "user")
    if role not in ("user", "model"):
        raise RequestRejected(f"{where}.role: please use a valid role: user, model")
    parts = content.get("parts")
    if not isinstance(parts, list) or not parts:
        raise RequestRejected(f"{where}.parts: must not be empty")
    blocks: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    for number, part in enumerate(parts):
        at = f"{where}.parts[{number}]"
        call, response = _member(part, "functionCall"), _member(part, "functionResponse")
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            if not part.get("thought"):
                blocks.append({"type": "text", "text": part["text"]})
        elif isinstance(call, dict) and isinstance(call.get("name"), str):
            if role != "model":
                raise RequestRejected(f"{at}.function_call: function calls belong in a model turn")
            arguments = call.get("args", {})
            blocks.append({"type": "tool_use", "id": call.get("id"), "name": call["name"],
                           "input": arguments if isinstance(arguments, dict) else {}})
        elif isinstance(response, dict) and isinstance(response.get("name"), str):
            if role != "user":
                raise RequestRejected(f"{at}.function_response: function responses belong in a user turn")
            responses.append({**response, "_where": at})
        else:
            raise RequestRejected(f"{at}: the stand-in takes text, functionCall (with a name) and "
                                  f"functionResponse (with a name) parts")
    return role, blocks, responses


def _pair(calls: list[dict[str, Any]], responses: list[dict[str, Any]], where: str) -> list[dict[str, Any]]:
    """The ``tool_result`` blocks of ``responses``, each answering one of ``calls`` (the model turn
    just before): by ``id``, else the first unanswered call of its name."""
    if len(responses) != len(calls):
        raise RequestRejected(
            f"{where}: please ensure that the number of function response parts ({len(responses)}) is equal "
            f"to the number of function call parts of the function call turn ({len(calls)})"
        )
    unanswered = list(calls)
    results = []
    for response in responses:
        by_id = [call for call in unanswered if response.get("id") is not None and call["id"] == response.get("id")]
        by_name = [call for call in unanswered if call["name"] == response["name"]]
        if not (by_id or by_name):
            raise RequestRejected(f"{response['_where']}.function_response: no function call named "
                                  f"{response['name']!r} of the previous model turn is left to answer")
        call = (by_id or by_name)[0]
        unanswered.remove(call)
        text, failed = _result(response.get("response"))
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call["id"], "content": text}
        if failed:
            result["is_error"] = True
        results.append(result)
    return results


def to_messages(body: Any, model: str, *, vertex: bool) -> dict[str, Any]:
    """The request as a Messages API body (``model`` is the path's); raises :class:`RequestRejected`
    for one the API refuses (on the Gemini API, one asking for streamed arguments)."""
    if not isinstance(body, dict):
        raise RequestRejected("the request body must be a JSON object")
    if not vertex and streams_arguments(body):
        raise RequestRejected('Invalid JSON payload received. Unknown name "streamFunctionCallArguments" at '
                              "'tool_config.function_calling_config': Cannot find field.")
    limit = _member(_member(body, "generationConfig"), "maxOutputTokens")
    if limit is None:
        limit = _DEFAULT_MAX_OUTPUT_TOKENS
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise RequestRejected("generation_config.max_output_tokens: a positive integer is required")
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        raise RequestRejected("contents: at least one content is required")
    messages: list[dict[str, Any]] = []
    for position, content in enumerate(contents):
        where = f"contents[{position}]"
        role, blocks, responses = _content_blocks(content, where)
        speaker = "assistant" if role == "model" else "user"
        if messages and messages[-1]["role"] == speaker:
            message = messages[-1]
        else:
            message = {"role": speaker, "content": [], "_responses": [], "_where": where}
            messages.append(message)
        for block in blocks:
            if block["type"] == "tool_use" and block["id"] is None:
                # The Gemini API sends calls without ids: name each after its place in the turn.
                block["id"] = f"{message['_where']}#{len(message['content'])}"
            message["content"].append(block)
        message["_responses"] += responses
    for position, message in enumerate(messages):
        responses = message.pop("_responses")
        where = message.pop("_where")
        calls = [block for block in message["content"] if block["type"] == "tool_use"]
        after = messages[position + 1] if position + 1 < len(messages) else None
        if calls and after is not None and not after["_responses"]:
            raise RequestRejected(f"{after['_where']}: please ensure that function call turn comes immediately "
                                  f"before a function response turn")
        if responses:
            before = messages[position - 1] if position > 0 else {"content": []}
            earlier = [block for block in before["content"] if block["type"] == "tool_use"]
            if not earlier:
                raise RequestRejected(f"{where}: please ensure that function response turn comes immediately after "
                                      f"a function call turn")
            message["content"] = _pair(earlier, responses, where) + message["content"]
    return {"model": model, "max_tokens": limit, "tools": _tools(body.get("tools")), "messages": messages}


# ---------------------------------------------------------------------------------------------------
# Writing the reply


def json_path(path: tuple[str | int, ...]) -> str:
    """``path`` (keys and array positions from the root) as an RFC 9535 path: ``$.items[0].sku``,
    a name that is not a member-name shorthand in brackets (``$['gift wrap']``)."""
    out = ["$"]
    for step in path:
        if isinstance(step, int):
            out.append(f"[{step}]")
        elif _SHORTHAND.fullmatch(step):
            out.append("." + step)
        else:
            escaped = "".join(_PATH_ESCAPES.get(char, f"\\u{ord(char):04x}" if char < " " else char) for char in step)
            out.append(f"['{escaped}']")
    return "".join(out)


def partial_args(text: str, rng: random.Random, sizes: tuple[int, int]) -> list[dict[str, Any]]:
    """The ``partialArgs`` entries of an argument text (a JSON object, or a prefix of one), in
    document order: one per scalar, each string cut into pieces; a string still open where a prefix
    ends has ``willContinue`` on every piece, and a number or literal not yet ended is left out.
    Raises :class:`UnstreamableArguments` for an empty object or array inside them."""
    parser = Parser(events=True)
    parser.feed(text)
    events = parser.events()
    entries: list[dict[str, Any]] = []
    for kind, path, value in events:
        if not path:
            continue
        where = json_path(path)
        if kind == "append":
            entries += [{"jsonPath": where, "stringValue": piece, "willContinue": True} for piece in cut_text(value, rng, sizes)]
        elif kind != "complete":
            continue
        elif isinstance(value, (dict, list)):
            if not value:
                raise UnstreamableArguments(f"{where}: an empty object or array cannot be sent as partialArgs")
        elif isinstance(value, str):
            pieces = cut_text(value, rng, sizes) or [""]
            entries += [{"jsonPath": where, "stringValue": piece, "willContinue": True} for piece in pieces]
            del entries[-1]["willContinue"]
        elif isinstance(value, bool):
            entries.append({"jsonPath": where, "boolValue": value})
        elif value is None:
            entries.append({"jsonPath": where, "nullValue": "NULL_VALUE"})
        else:
            entries.append({"jsonPath": where, "numberValue": value})
    return entries


def _arguments(text: str) -> dict[str, Any] | None:
    """A whole call's arguments, or ``None`` when its text is not a JSON object."""
    if not text:
        return {}
    value = parse_json_or_none(text)
    return value if isinstance(value, dict) else None


def _is_prefix(text: str) -> bool:
    """Whether a cut-off call's text is the start of a JSON object."""
    if text.lstrip()[:1] not in ("", "{"):
        return False
    try:
        Parser().feed(text)
    except MalformedJSONError:
        return False
    return True


def _streamed_call(call: ScriptedToolCall, text: str, rng: random.Random, sizes: tuple[int, int], *, left_open: bool) -> list[dict[str, Any]]:
    """The parts of one call with streamed arguments, one part per chunk."""
    parts: list[dict[str, Any]] = [{"functionCall": {"id": _call_id(call), "name": call.name, "willContinue": True}}]
    entries = partial_args(text, rng, sizes)
    while entries:
        count = rng.randint(1, 3)
        parts.append({"functionCall": {"partialArgs": entries[:count], "willContinue": True}})
        entries = entries[count:]
    if left_open:
        return parts
    # The API ends a call either way: an empty functionCall, or a last chunk without willContinue.
    if len(parts) > 1 and rng.random() < 0.5:
        del parts[-1]["functionCall"]["willContinue"]
    else:
        parts.append({"functionCall": {}})
    return parts


def _call_id(call: ScriptedToolCall) -> str:
    return str(call.id).partition("_")[2]


def render(reply: Reply, *, rng: random.Random, body: dict[str, Any], model: str, vertex: bool,
           fragment_sizes: tuple[int, int]) -> RenderedStream:
    """The chunks answering ``body`` (the request as sent) for ``model``, on Vertex or the Gemini API."""
    response_id = make_id(rng, "")
    streamed = vertex and streams_arguments(body)
    blocks = assign_ids(reply.blocks, rng)
    calls = [position for position, block in enumerate(blocks) if isinstance(block, ScriptedToolCall) and not block.server]
    fault = reply.fault
    cut_call = calls[-1] if reply.stop_reason == "max_tokens" and calls else None
    # A call whose text is not JSON is never sent: the response names it in its finishMessage.
    malformed = [blocks[position] for position in calls
                 if position != cut_call and (fault is None or fault.block != position)
                 and _arguments(getattr(blocks[position], "input_text", "")) is None]
    if cut_call is not None and not _is_prefix(getattr(blocks[cut_call], "input_text", "")):
        malformed.append(blocks[cut_call])

    def chunk(parts: list[dict[str, Any]] | None, **candidate: Any) -> dict[str, Any]:
        event: dict[str, Any] = {"candidates": [{**({"content": {"role": "model", "parts": parts}} if parts else {}),
                                                 **candidate, "index": 0}]}
        if vertex:
            event["createTime"] = _CREATE_TIME
        event["responseId"] = response_id
        event["modelVersion"] = model
        return event

    parts: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        if isinstance(block, Text):
            parts += [{"text": piece} for piece in cut_text(block.text, rng, fragment_sizes)]
        elif isinstance(block, Thinking):
            thoughts: list[dict[str, Any]] = [{"text": piece, "thought": True} for piece in cut_text(block.thinking, rng, fragment_sizes)]
            if thoughts:
                thoughts[-1]["thoughtSignature"] = block.signature
            parts += thoughts
        elif isinstance(block, ScriptedToolCall) and not block.server and not malformed:
            broken = fault is not None and fault.block == position
            text = block.input_text[: fault.after_chars] if broken and fault is not None else block.input_text
            if streamed:
                parts += _streamed_call(block, text, rng, fragment_sizes, left_open=broken or position == cut_call)
            elif not broken and position != cut_call:
                whole: dict[str, Any] = {"name": block.name, "args": _arguments(text)}
                if vertex:
                    whole["id"] = _call_id(block)
                parts.append({"functionCall": whole})
            if broken and fault is not None:
                events = [chunk([part]) for part in parts]
                if fault.kind == "drop":
                    return RenderedStream(events, drop=True)
                events.append({"error": {"code": 503, "message": fault.error_message, "status": "UNAVAILABLE"}})
                return RenderedStream(events, drop=False)
    events = [chunk([part]) for part in parts]
    if malformed:
        texts = "\n".join(f"{call.name} {call.input_text}" for call in malformed if isinstance(call, ScriptedToolCall))
        events.append(chunk(None, finishReason="MALFORMED_FUNCTION_CALL", finishMessage=f"Malformed function call: {texts}"))
    else:
        reason = "MAX_TOKENS" if reply.stop_reason == "max_tokens" else "STOP"
        if events:
            events[-1]["candidates"][0] = {**events[-1]["candidates"][0], "finishReason": reason}
        else:
            events.append(chunk(None, finishReason=reason))
    prompt = estimate_tokens(json.dumps(body.get("contents")) + json.dumps(body.get("tools", [])))
    output = reply.output_tokens if reply.output_tokens is not None else max(1, estimate_tokens(json.dumps(parts)))
    events[-1]["usageMetadata"] = {"promptTokenCount": prompt, "candidatesTokenCount": output, "totalTokenCount": prompt + output}
    return RenderedStream(events, drop=False)


def frame(event: dict[str, Any]) -> bytes:
    """One chunk as its ``data:`` line, ended as the API ends it (CRLF)."""
    return b"data: " + json_bytes(event, separators=(",", ":")) + b"\r\n\r\n"


def tail(stream: RenderedStream) -> bytes:
    """The API sends nothing after its last chunk."""
    return b""


def error(status: int, message: str) -> tuple[dict[str, str], bytes]:
    """An error answer's headers and body, as the API shapes them."""
    word = _STATUS_WORDS.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION")
    payload = {"error": {"code": status, "message": message, "status": word}}
    return {"Content-Type": "application/json; charset=UTF-8"}, json.dumps(payload).encode()


# ---------------------------------------------------------------------------------------------------
# The client side: google-genai against the stand-in


def open_client(base_url: str, *, vertex: bool = True) -> Any:
    """A ``google.genai.Client`` for the stand-in at ``base_url``: Vertex AI with an API key
    (``v1beta1``) or the Gemini API (``v1beta``), a dummy key and a single attempt per request.
    Keep it referenced while a stream is read: it closes its HTTP client when collected."""
    from google import genai
    from google.genai import types

    retries = types.HttpRetryOptions(attempts=1)
    if vertex:
        options = types.HttpOptions(base_url=base_url, api_version="v1beta1", retry_options=retries)
        return genai.Client(vertexai=True, api_key="stand-in", http_options=options)
    options = types.HttpOptions(base_url=base_url, api_version="v1beta", retry_options=retries)
    return genai.Client(api_key="stand-in", http_options=options)


def first_request(scenario: Scenario, *, model: str | None = None, stream_arguments: bool = True) -> dict[str, Any]:
    """Keyword arguments for ``client.models.generate_content_stream`` that start ``scenario``;
    ``stream_arguments`` asks for streamed arguments (a Vertex client only: the SDK refuses it for
    the Gemini API)."""
    declarations = [{"name": tool["name"], "description": tool["description"], "parameters_json_schema": tool["input_schema"]}
                    for tool in scenario.tools if "input_schema" in tool]
    config: dict[str, Any] = {
        "max_output_tokens": scenario.first_max_tokens,
        # The SDK's automatic calling runs Python functions only, and refuses streamed arguments.
        "automatic_function_calling": {"disable": True},
    }
    if declarations:
        config["tools"] = [{"function_declarations": declarations}]
    if stream_arguments:
        config["tool_config"] = {"function_calling_config": {"stream_function_call_arguments": True}}
    return {"model": model or DEFAULT_MODEL, "contents": [{"role": "user", "parts": [{"text": scenario.prompt}]}],
            "config": config}


def stream_events(client: Any, request: dict[str, Any]) -> Iterator[Any]:
    """The ``GenerateContentResponse`` chunks ``client`` yields for ``request``, as it yields them;
    the stream is closed when the iteration ends, however it ends."""
    stream = client.models.generate_content_stream(**request)
    try:
        yield from stream
    finally:
        stream.close()


def as_dict(event: Any) -> dict[str, Any]:
    """A chunk as the camelCase dict the wire carried (what the SDK kept of it; numbers it read as
    doubles stay floats)."""
    if isinstance(event, dict):
        return event
    result: dict[str, Any] = event.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"sdk_http_response"})
    return result


def error_event(error: BaseException) -> dict[str, Any] | None:
    """The ``{"error": {...}}`` chunk a stream that ``error`` broke carried, as a recording keeps it;
    ``None`` for a dropped connection (the stream simply ends)."""
    details = getattr(error, "details", None)
    if isinstance(details, dict) and isinstance(details.get("error"), dict):
        return details
    return None


def _rendered(vertex: bool) -> Callable[[Reply, random.Random, dict[str, Any], dict[str, Any], tuple[int, int]], RenderedStream]:
    def rendered(reply: Reply, rng: random.Random, body: dict[str, Any], request: dict[str, Any], sizes: tuple[int, int]) -> RenderedStream:
        return render(reply, rng=rng, body=body, model=str(request["model"]), vertex=vertex, fragment_sizes=sizes)

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
        Route("gemini", re.compile(r"/v1(?:beta|alpha)?/models/(?P<model>[^/:]+):streamGenerateContent"), CONTENT_TYPE,
              lambda body, model: to_messages(body, str(model), vertex=False), _rendered(False), frame, tail, error,
              "x-goog-request-id"),
        Route("gemini-vertex", re.compile(r"/v1(?:beta1)?/(?:projects/[^/]+/locations/[^/]+/)?publishers/google/models/(?P<model>[^/:]+)"
                                          r":streamGenerateContent"), CONTENT_TYPE,
              lambda body, model: to_messages(body, str(model), vertex=True), _rendered(True), frame, tail, error,
              "x-goog-request-id"),
    ),
    features=frozenset({"streamed arguments"}),
)
