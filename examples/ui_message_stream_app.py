"""A Starlette backend that streams a model's tool calls to the browser as the AI SDK's UI message stream.

``POST /api/chat/{provider}`` (``anthropic``, ``openai`` or ``gemini``) takes the keyword arguments
of that provider's streaming call as its JSON body (a real backend builds them from the chat it
keeps), calls the provider's own async client, and answers with the parts ``useChat`` reads:
``tool-input-delta`` as the arguments stream, ``data-tool-input-preview`` with a stable preview,
``tool-input-available`` only for a call that is whole JSON, ``tool-input-error`` that says cut off
at the token limit or malformed and where. Gemini's streamed arguments (Vertex AI's
``partialArgs``) come out as JSON text like any other provider's.

Run it against the providers (their keys in the environment as the SDKs read them)::

    uvicorn --factory examples.ui_message_stream_app:create_app

or against tooljson's stand-in, with no key and no network::

    python -m tooljson standin --port 8123 &
    TOOLJSON_UPSTREAM=http://127.0.0.1:8123 uvicorn --factory examples.ui_message_stream_app:create_app

When the browser goes away mid-stream, Starlette stops the response, and ``asse`` closes the
provider's stream with it: nothing keeps reading.
"""

from __future__ import annotations

import os
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from tooljson.protocols.ai_sdk import HEADERS, asse


async def open_stream(provider: str, request: dict[str, Any], base_url: str | None) -> Any:
    """The provider's own async stream of events for ``request``."""
    if provider == "anthropic":
        import anthropic

        client = anthropic.AsyncAnthropic(base_url=base_url, max_retries=0, **_key(base_url))
        return _closing(await client.messages.create(**request, stream=True), client.close)
    if provider == "openai":
        import openai

        openai_client = openai.AsyncOpenAI(
            base_url=base_url and f"{base_url}/v1", max_retries=0, **_key(base_url)
        )
        return _closing(
            await openai_client.chat.completions.create(**request, stream=True), openai_client.close
        )
    if provider == "gemini":
        from google import genai
        from google.genai import types

        options = types.HttpOptions(
            base_url=base_url, api_version="v1beta1", retry_options=types.HttpRetryOptions(attempts=1)
        )
        gemini_client = genai.Client(vertexai=True, http_options=options, **_key(base_url))
        stream = await gemini_client.aio.models.generate_content_stream(**request)
        return _closing(stream, gemini_client.aio.aclose)
    raise LookupError(provider)


def _key(base_url: str | None) -> dict[str, str]:
    # The stand-in takes any key; against a provider the SDK reads its own from the environment.
    return {"api_key": "stand-in"} if base_url is not None else {}


async def _closing(stream: Any, close_client: Any) -> Any:
    """The provider's stream, then its client closed, however the reading ends (a real backend
    keeps one client for all its requests instead; each request makes its own here)."""
    try:
        async for event in stream:
            yield event
    finally:
        close = getattr(stream, "aclose", None) or stream.close
        await close()
        await close_client()


def create_app(base_url: str | None = None) -> Starlette:
    """The app; ``base_url`` (default: ``TOOLJSON_UPSTREAM``, else the providers) is where every
    provider's client sends its requests."""
    upstream = base_url or os.environ.get("TOOLJSON_UPSTREAM")

    async def chat(request: Request) -> Response:
        provider = request.path_params["provider"]
        if provider not in ("anthropic", "openai", "gemini"):
            return JSONResponse({"error": f"unknown provider {provider!r}"}, status_code=404)
        body = await request.json()
        stream = await open_stream(provider, body, upstream)
        return StreamingResponse(asse(stream), headers=HEADERS)

    return Starlette(routes=[Route("/api/chat/{provider}", chat, methods=["POST"])])
