"""The proxy's ASGI application: relay everything to the upstream, observe Messages responses.

Every request goes upstream unchanged (method, path, query, headers, body) and every response comes
back unchanged, byte for byte, a streamed one chunk by chunk as it arrives (its raw bytes: a
compressed body stays compressed). Each chunk is sent on before it is read on the side. An upstream
that cannot be reached is a 502 with an error body shaped like the API's; an upstream that closes
mid-stream, or a client that goes away, cuts the response the same way on the other side (and a
client that goes away closes the upstream request at once); an upstream that sends nothing for
``idle_timeout`` seconds is cut the same way (or answered with a 504 when it sent no headers yet).
A response is relayed at the pace its client reads it: the HTTP client (aiohttp) stops reading the
upstream's socket while a response has more than its buffer's bound waiting (128 KB), and the next
chunk is taken only once the previous one was handed to the client's connection, so a slow client
never makes the proxy buffer the response.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from tooljson.providers.registry import source_at
from tooljson.proxy.observe import Side, request_summary

__all__ = [
    "DEFAULT_IDLE_TIMEOUT",
    "DEFAULT_UPSTREAM",
    "MAX_REQUEST_BYTES",
    "ProxyApp",
    "ResponseCut",
    "quiet_cuts",
]

logger = logging.getLogger("tooljson")

DEFAULT_UPSTREAM = "https://api.anthropic.com"
# Headers that describe one hop of a connection, not the message: never forwarded either way.
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
_HOP_BY_HOP_BYTES = frozenset(name.encode() for name in _HOP_BY_HOP)
# The client's headers not forwarded: besides those, the host and the length (the HTTP client writes
# both, for the upstream and the body as sent).
_NOT_FORWARDED = _HOP_BY_HOP_BYTES | {b"host", b"content-length"}
# The headers the HTTP client would add by itself, which it is told to leave out.
_NO_DEFAULT_HEADERS = ("Accept", "Accept-Encoding", "User-Agent", "Content-Type")
# A request body is read whole before it is forwarded; past this it is refused with 413.
MAX_REQUEST_BYTES = 64 * 1024 * 1024
# Seconds the upstream may send nothing (no headers yet, or no byte of the body) before the response
# is cut: the SDKs' own default timeout, so the proxy never gives up before the client would.
DEFAULT_IDLE_TIMEOUT = 600.0
# Connections to the upstream at once (one per response in flight), and kept open between requests.
MAX_UPSTREAM_CONNECTIONS = 1000

Send = Callable[[dict[str, Any]], Any]
Receive = Callable[[], Any]


def _error_body(error_type: str, message: str) -> bytes:
    return json.dumps({"type": "error", "error": {"type": error_type, "message": message}}).encode()


class ProxyApp:
    """The ASGI application: relays everything to ``upstream``; hands the bytes of each Messages
    response to ``side`` (a :class:`~tooljson.proxy.observe.Side`) after sending them on."""

    def __init__(
        self,
        upstream: str = DEFAULT_UPSTREAM,
        *,
        side: Side | None = None,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.side = side
        self.idle_timeout = idle_timeout
        self._client: Any = None
        self._responses = 0
        # The relays in progress, so that stopping the proxy can cut them as an upstream reset would.
        self._relays: set[asyncio.Task[Any]] = set()
        self._stopping = False

    async def _http(self) -> Any:
        if self._client is None:
            import aiohttp

            self._client = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=MAX_UPSTREAM_CONNECTIONS, limit_per_host=0),
                # connect: a connection from the pool (waiting for one, or opening it); sock_read: the
                # idle timeout, between two reads of the response (its headers, then each body chunk).
                timeout=aiohttp.ClientTimeout(
                    total=None, connect=60.0, sock_connect=10.0, sock_read=self.idle_timeout
                ),
                # The raw body as the upstream sent it (a compressed one stays compressed), and only
                # the client's own headers upstream: none of the HTTP client's defaults, no cookies kept.
                auto_decompress=False,
                skip_auto_headers=_NO_DEFAULT_HEADERS,
                cookie_jar=aiohttp.DummyCookieJar(),
                trust_env=False,
            )
        return self._client

    async def cut_all(self, grace: float = 1.0) -> None:
        """Cut every response in progress, as an upstream reset would (the proxy is stopping), and
        wait up to ``grace`` seconds for the relays to end."""
        self._stopping = True
        relays = list(self._relays)
        for relay in relays:
            relay.cancel()
        if relays:
            await asyncio.wait(relays, timeout=grace)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await self.aclose()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > MAX_REQUEST_BYTES:
                await _plain(
                    send, 413, _error_body("request_too_large", "the request body is over the proxy's limit")
                )
                return
            if not message.get("more_body"):
                break
        await self._relay(scope, bytes(body), receive, send)

    async def _relay(self, scope: dict[str, Any], body: bytes, receive: Receive, send: Send) -> None:
        import aiohttp
        from yarl import URL

        path = scope.get("raw_path") or scope["path"].encode()
        url = self.upstream + path.decode("latin-1")
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        headers = [
            (k.decode("latin-1"), v.decode("latin-1"))
            for k, v in scope["headers"]
            if k.lower() not in _NOT_FORWARDED
        ]
        client = await self._http()
        try:
            # The path and query as the client wrote them (encoded=True: nothing quoted again).
            response = await client.request(
                scope["method"],
                URL(url, encoded=True),
                headers=headers,
                data=body or None,
                allow_redirects=False,
                compress=None,
            )
        except aiohttp.SocketTimeoutError:
            why = f"the upstream sent no answer for {self.idle_timeout:g} s (--idle-timeout)"
            logger.warning("proxy: %s %s: %s", scope["method"], scope["path"], why)
            await _plain(send, 504, _error_body("api_error", why))
            return
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as error:
            logger.warning(
                "proxy: %s %s: upstream unreachable (%s)",
                scope["method"],
                scope["path"],
                type(error).__name__,
            )
            await _plain(
                send,
                502,
                _error_body("api_error", f"the proxy could not reach the upstream: {type(error).__name__}"),
            )
            return
        key = self._watch(scope, body, response)
        # A client that goes away cancels the relay, which closes the upstream request at once.
        relay = asyncio.current_task()
        watcher = asyncio.create_task(_watch_disconnect(receive, relay))
        if relay is not None:
            self._relays.add(relay)
        state = "complete"
        side = self.side
        try:
            headers_out = [(k, v) for k, v in response.raw_headers if k.lower() not in _HOP_BY_HOP_BYTES]
            await send({"type": "http.response.start", "status": response.status, "headers": headers_out})
            content = response.content
            try:
                # Whatever arrived since the last read, in one piece (past 128 KB waiting the reader
                # stops reading the socket until this takes some: the upstream waits).
                while chunk := await content.readany():
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                    if key is not None and side is not None:
                        side.chunk(key, chunk)
            except aiohttp.SocketTimeoutError:
                state = f"the upstream sent nothing for {self.idle_timeout:g} s (--idle-timeout)"
            except (aiohttp.ClientError, OSError) as error:
                state = f"upstream closed mid-stream ({type(error).__name__})"
            except asyncio.CancelledError:
                gone = watcher.done() and not watcher.cancelled() and not self._stopping
                state = "client disconnected" if gone else "the proxy stopped"
                if not (gone or self._stopping):
                    raise  # the server's own cancellation (its shutdown grace ran out)
                if relay is not None and hasattr(relay, "uncancel"):
                    relay.uncancel()  # the cancellation was ours, and is handled here
            if state == "complete":
                watcher.cancel()
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            if relay is not None:
                self._relays.discard(relay)
            # A response read to its end has given its connection back to the pool already; one cut
            # short closes its connection, so that the upstream sees the request end at once.
            response.close()
            if key is not None and side is not None:
                side.end(key, state)
        if state != "complete":
            # The client must see the same cut: the response ends without its last chunk. A client
            # that went away is ordinary; a cut it did not ask for is a warning.
            level = logging.INFO if state == "client disconnected" else logging.WARNING
            logger.log(level, "proxy: %s %s: %s: the response is cut", scope["method"], scope["path"], state)
            raise ResponseCut(state)

    def _watch(self, scope: dict[str, Any], body: bytes, response: Any) -> int | None:
        """The key of a response the side reads: a source's streamed answer to a path of its
        (:func:`tooljson.providers.registry.source_at`), or its whole answer where it reads those."""
        if self.side is None or scope["method"] != "POST":
            return None
        source = source_at(scope["path"])
        if source is None:
            return None
        content_type = response.headers.get("content-type", "")
        streamed = content_type.startswith((source.media_type, "text/event-stream"))
        if not (streamed or (source.whole is not None and content_type.startswith("application/json"))):
            return None
        self._responses += 1
        headers = {
            name: response.headers.get(name, "")
            for name in ("content-type", "content-encoding", "request-id", "x-request-id")
        }
        self.side.begin(self._responses, request_summary(scope, body, source), headers, source)
        return self._responses


class ResponseCut(Exception):
    """Raised out of the application so that the server closes the connection mid-response, as the
    upstream did (or as the client did). Servers log it; :func:`quiet_cuts` keeps that out of logs."""


class _QuietCuts(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, ResponseCut)


def quiet_cuts() -> None:
    """Keep the server's log free of the cuts the proxy makes on purpose."""
    logging.getLogger("uvicorn.error").addFilter(_QuietCuts())


async def _watch_disconnect(receive: Receive, relay: asyncio.Task[Any] | None) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            if relay is not None:
                relay.cancel()
            return


async def _plain(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
