"""What an accelerated ``stream(...)`` returns, for every SDK: the manager entered with ``with`` or
``async with``.

An SDK's manager holds the request (not sent yet) and what its stream needs. Its accelerated twin
subclasses it together with one of the mixins here, names its stream class, and keeps the same
request: entering sends it and wraps the raw stream in the accelerated stream; leaving closes that
stream, whatever ended the block.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooljson.acceleration.streams import StreamOptions

__all__ = ["AsyncManager", "SyncManager"]


class _Manager:
    _stream_class: Any

    def _keep(self, api_request: Any, options: StreamOptions, arguments: dict[str, Any]) -> None:
        """Keep the request and the stream class's keyword arguments (``options`` added to them)."""
        self._request = api_request
        self._arguments = {**arguments, "options": options}
        self._opened: Any = None


class SyncManager(_Manager):
    """``with``: the request is a callable that sends it."""

    def __enter__(self) -> Any:
        self._opened = self._stream_class(raw_stream=self._request(), **self._arguments)
        return self._opened

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, exc_tb: TracebackType | None
    ) -> None:
        if self._opened is not None:
            self._opened.close()


class AsyncManager(_Manager):
    """``async with``: the request is an awaitable that sends it."""

    async def __aenter__(self) -> Any:
        self._opened = self._stream_class(raw_stream=await self._request, **self._arguments)
        return self._opened

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, exc_tb: TracebackType | None
    ) -> None:
        if self._opened is not None:
            await self._opened.close()
