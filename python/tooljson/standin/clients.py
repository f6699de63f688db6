"""Each API's real client against the stand-in: a scenario's first request, the client, its events.

What the command line (``demo --provider``, ``record --provider``) and the tests drive. The clients
are the providers' own SDKs, imported only when asked for: ``openai`` for Chat Completions and
Responses, ``boto3`` for Bedrock ConverseStream, ``anthropic`` for the Messages API, ``google-genai``
for Gemini (its client side is in :mod:`tooljson.standin.gemini`: Vertex AI, streamed arguments).

How each client reports a broken stream, as the stand-in breaks it:

* Chat Completions: the ``{"error": ...}`` line makes iteration raise ``openai.APIError`` (its
  ``body`` is the error object); a dropped connection ``openai.APIConnectionError``.
* Responses: the ``error`` event is yielded as an event; a dropped connection raises
  ``openai.APIConnectionError``.
* Bedrock: the ``modelStreamErrorException`` frame raises ``botocore.exceptions.EventStreamError``;
  a dropped connection raises ``urllib3.exceptions.ProtocolError`` ("Response ended prematurely")
  straight from the HTTP layer: botocore does not wrap errors raised while a stream is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

from tooljson.providers import Provider
from tooljson.standin import gemini
from tooljson.standin.scenario import DEFAULT_MODEL, Scenario

__all__ = ["DEFAULT_MODELS", "as_dict", "error_event", "first_request", "open_client", "stream_events"]

DEFAULT_MODELS: dict[str, str] = {
    "anthropic": DEFAULT_MODEL,
    "openai": "gpt-4.1",
    "responses": "gpt-4.1",
    "bedrock": "anthropic.claude-sonnet-4-6-v1:0",
    "gemini": gemini.DEFAULT_MODEL,
}

# The APIs whose wire module holds its client side as well: Gemini (Vertex AI, streamed arguments).
_WIRES: dict[str, ModuleType] = {"gemini": gemini}


def _function_tools(scenario: Scenario) -> list[dict[str, Any]]:
    return [tool for tool in scenario.tools if "input_schema" in tool]


def first_request(scenario: Scenario, provider: Provider, *, model: str | None = None) -> dict[str, Any]:
    """Keyword arguments for ``provider``'s client that start ``scenario`` (without ``stream``)."""
    model = model or DEFAULT_MODELS[provider]
    if provider in _WIRES:
        request: dict[str, Any] = _WIRES[provider].first_request(scenario, model=model)
        return request
    if provider == "anthropic":
        return scenario.first_request(model=model)
    tools = _function_tools(scenario)
    if provider == "openai":
        request = {
            "model": model,
            "messages": [{"role": "user", "content": scenario.prompt}],
            "max_completion_tokens": scenario.first_max_tokens,
            "tools": [
                {"type": "function", "function": {"name": t["name"], "description": t["description"], "parameters": t["input_schema"]}}
                for t in tools
            ],
        }
        if scenario.choices > 1:
            request["n"] = scenario.choices
        return request
    if provider == "responses":
        custom = [{"type": "custom", "name": t["name"], "description": t["description"]} for t in scenario.tools if t.get("type") == "custom"]
        return {
            "model": model,
            "input": scenario.prompt,
            "max_output_tokens": scenario.first_max_tokens,
            "tools": [
                {"type": "function", "name": t["name"], "description": t["description"], "parameters": t["input_schema"]}
                for t in tools
            ] + custom,
        }
    specs = [{"toolSpec": {"name": t["name"], "description": t["description"], "inputSchema": {"json": t["input_schema"]}}} for t in tools]
    request = {
        "modelId": model,
        "messages": [{"role": "user", "content": [{"text": scenario.prompt}]}],
        "inferenceConfig": {"maxTokens": scenario.first_max_tokens},
    }
    if specs:
        request["toolConfig"] = {"tools": specs}
    return request


def open_client(provider: Provider, base_url: str) -> Any:
    """``provider``'s client pointed at a stand-in at ``base_url``, with dummy credentials and no retries."""
    if provider in _WIRES:
        return _WIRES[provider].open_client(base_url)
    if provider in ("openai", "responses"):
        import openai

        return openai.OpenAI(base_url=base_url + "/v1", api_key="stand-in", max_retries=0)
    if provider == "bedrock":
        import boto3  # type: ignore[import-untyped]  # boto3 and botocore ship no type hints
        from botocore.config import Config  # type: ignore[import-untyped]

        session = boto3.session.Session(aws_access_key_id="stand-in", aws_secret_access_key="stand-in", region_name="us-east-1")
        return session.client("bedrock-runtime", endpoint_url=base_url, config=Config(retries={"max_attempts": 1}))
    import anthropic

    return anthropic.Anthropic(base_url=base_url, api_key="stand-in", max_retries=0)


def stream_events(provider: Provider, client: Any, request: dict[str, Any]) -> Iterator[Any]:
    """The events ``client`` yields for a streamed ``request``, exactly as it yields them; the
    response is closed when the iteration ends, however it ends."""
    if provider in _WIRES:
        yield from _WIRES[provider].stream_events(client, request)
        return
    if provider == "bedrock":
        stream = client.converse_stream(**request)["stream"]
    elif provider == "responses":
        stream = client.responses.create(**request, stream=True)
    elif provider == "openai":
        stream = client.chat.completions.create(**request, stream=True)
    else:
        stream = client.messages.create(**request, stream=True)
    try:
        yield from stream
    finally:
        stream.close()


def as_dict(event: Any) -> dict[str, Any]:
    """An event as the plain dict the wire carried (the SDKs' objects leave out unsent fields)."""
    if isinstance(event, dict):
        return event
    if not hasattr(event, "to_dict"):
        # google-genai's pydantic models, by their camelCase wire names.
        return gemini.as_dict(event)
    result: dict[str, Any] = event.to_dict()
    return result


def error_event(provider: Provider, error: BaseException) -> dict[str, Any] | None:
    """The event a stream that ``error`` broke would have held, as a recording keeps it: Chat
    Completions ``{"error": {...}}``, a Bedrock exception event, a Messages ``error`` event;
    ``None`` for a dropped connection (the stream simply ends)."""
    if provider in _WIRES:
        broken: dict[str, Any] | None = _WIRES[provider].error_event(error)
        return broken
    body = getattr(error, "body", None)
    if provider == "openai" and isinstance(body, dict) and "message" in body:
        return {"error": body}
    if provider == "anthropic" and isinstance(body, dict) and body.get("type") == "error":
        return body
    response = getattr(error, "response", None)
    if provider == "bedrock" and isinstance(response, dict) and isinstance(response.get("Error"), dict):
        details = response["Error"]
        return {str(details.get("Code")): {"message": str(details.get("Message", ""))}}
    return None
