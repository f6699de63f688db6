"""The stand-in's Gemini: google-genai's own client against it, for the command line and the tests (see
:mod:`tooljson.providers.gemini.wire`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooljson.standin.scenario import Scenario

__all__ = ["DEFAULT_MODEL", "as_dict", "error_event", "first_request", "open_client", "stream_events"]

DEFAULT_MODEL = "gemini-3-pro-preview"


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


def first_request(
    scenario: Scenario, *, model: str | None = None, stream_arguments: bool = True
) -> dict[str, Any]:
    """Keyword arguments for ``client.models.generate_content_stream`` that start ``scenario``;
    ``stream_arguments`` asks for streamed arguments (a Vertex client only: the SDK refuses it for
    the Gemini API)."""
    declarations = [
        {
            "name": tool["name"],
            "description": tool["description"],
            "parameters_json_schema": tool["input_schema"],
        }
        for tool in scenario.tools
        if "input_schema" in tool
    ]
    config: dict[str, Any] = {
        "max_output_tokens": scenario.first_max_tokens,
        # The SDK's automatic calling runs Python functions only, and refuses streamed arguments.
        "automatic_function_calling": {"disable": True},
    }
    if declarations:
        config["tools"] = [{"function_declarations": declarations}]
    if stream_arguments:
        config["tool_config"] = {"function_calling_config": {"stream_function_call_arguments": True}}
    return {
        "model": model or DEFAULT_MODEL,
        "contents": [{"role": "user", "parts": [{"text": scenario.prompt}]}],
        "config": config,
    }


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
    result: dict[str, Any] = event.model_dump(
        mode="json", by_alias=True, exclude_none=True, exclude={"sdk_http_response"}
    )
    return result


def error_event(error: BaseException) -> dict[str, Any] | None:
    """The ``{"error": {...}}`` chunk a stream that ``error`` broke carried, as a recording keeps it;
    ``None`` for a dropped connection (the stream simply ends)."""
    details = getattr(error, "details", None)
    if isinstance(details, dict) and isinstance(details.get("error"), dict):
        return details
    return None
