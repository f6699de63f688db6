"""The stand-in's Gemini: a ``streamGenerateContent`` request read into the Messages API's shape
(:func:`to_messages`), so every scenario answers it unchanged (see :mod:`tooljson.providers.gemini.wire`)."""

from __future__ import annotations

import json
import re
from typing import Any

from tooljson.providers.chat.wire import is_error_text
from tooljson.standin.conversation import RequestRejected

__all__ = ["streams_arguments", "to_messages"]

# What a request without generationConfig.maxOutputTokens may use (the Gemini 3 models' limit).
_DEFAULT_MAX_OUTPUT_TOKENS = 65_536


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
    return {
        key: value.lower() if key == "type" and isinstance(value, str) else _lower_types(value)
        for key, value in schema.items()
    }


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
                raise RequestRejected(
                    f"tools[{position}].function_declarations[{number}].name: a string is required"
                )
            schema = _member(declaration, "parametersJsonSchema")
            if schema is None:
                schema = _lower_types(_member(declaration, "parameters"))
            out.append(
                {
                    "name": declaration["name"],
                    "description": str(_member(declaration, "description") or ""),
                    "input_schema": schema or {"type": "object", "properties": {}},
                }
            )
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
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call.get("id"),
                    "name": call["name"],
                    "input": arguments if isinstance(arguments, dict) else {},
                }
            )
        elif isinstance(response, dict) and isinstance(response.get("name"), str):
            if role != "user":
                raise RequestRejected(f"{at}.function_response: function responses belong in a user turn")
            responses.append({**response, "_where": at})
        else:
            raise RequestRejected(
                f"{at}: the stand-in takes text, functionCall (with a name) and "
                f"functionResponse (with a name) parts"
            )
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
        by_id = [
            call for call in unanswered if response.get("id") is not None and call["id"] == response.get("id")
        ]
        by_name = [call for call in unanswered if call["name"] == response["name"]]
        if not (by_id or by_name):
            raise RequestRejected(
                f"{response['_where']}.function_response: no function call named "
                f"{response['name']!r} of the previous model turn is left to answer"
            )
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
        raise RequestRejected(
            'Invalid JSON payload received. Unknown name "streamFunctionCallArguments" at '
            "'tool_config.function_calling_config': Cannot find field."
        )
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
            raise RequestRejected(
                f"{after['_where']}: please ensure that function call turn comes immediately "
                f"before a function response turn"
            )
        if responses:
            before = messages[position - 1] if position > 0 else {"content": []}
            earlier = [block for block in before["content"] if block["type"] == "tool_use"]
            if not earlier:
                raise RequestRejected(
                    f"{where}: please ensure that function response turn comes immediately after "
                    f"a function call turn"
                )
            message["content"] = _pair(earlier, responses, where) + message["content"]
    return {"model": model, "max_tokens": limit, "tools": _tools(body.get("tools")), "messages": messages}
