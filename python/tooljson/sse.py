"""Server-sent events off the wire: framing, nothing else.

:class:`SSEDecoder` cuts a byte stream into ``(event name, data)`` pairs as the SSE format defines
them, for any source whose wire is server-sent events (the proxy reads every such source with it;
:mod:`tooljson.providers.anthropic.stream` decodes a Messages API response's bytes with it). What the
events mean is the business of the layers above.
"""

from __future__ import annotations

__all__ = ["SSEDecoder"]


# The event lines seen, with the name each gives: a stream repeats a few names thousands of times.
_NAMES: dict[bytes, str] = {}
_KEPT_NAMES = 256


class SSEDecoder:
    """Server-sent events from a byte stream: ``(event name, data bytes)`` per event.

    Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` only, as the SSE format says (``str.splitlines`` would
    also cut at U+2028 and friends, which JSON text may hold raw). A line ending in ``\\r`` is held
    back until the next chunk shows whether ``\\n`` follows.
    """

    def __init__(self) -> None:
        self._pending = b""
        self._name: str | None = None
        self._data: list[bytes] = []

    def feed(self, chunk: bytes) -> list[tuple[str | None, bytes]]:
        """The events that ``chunk`` completes."""
        text = self._pending + chunk if self._pending else chunk
        if b"\r" not in text:
            # Lines end at \n alone, as nearly every server writes them: one split, the unfinished
            # last line kept (b"" when the text ends a line).
            lines = text.split(b"\n")
            self._pending = lines.pop()
            return self._lines(lines)
        lines = text.splitlines(keepends=True)
        if lines and (lines[-1].endswith(b"\r") or not lines[-1].endswith(b"\n")):
            self._pending = lines.pop()
        else:
            self._pending = b""
        return self._lines([line.rstrip(b"\r\n") for line in lines])

    def close(self) -> list[tuple[str | None, bytes]]:
        """End of the stream. An event not ended by its blank line is dropped, as the SSE format
        says: a stream cut off mid-event then shows as a response that did not end rather than as a
        half event."""
        self._pending = b""
        self._name = None
        self._data = []
        return []

    def _lines(self, lines: list[bytes]) -> list[tuple[str | None, bytes]]:
        """The events that ``lines`` (without their line ends) complete."""
        out: list[tuple[str | None, bytes]] = []
        data = self._data
        for line in lines:
            if not line:
                if data:
                    out.append((self._name, data[0] if len(data) == 1 else b"\n".join(data)))
                    data = []
                self._name = None
            elif line.startswith(b"data:"):
                data.append(line[6:] if line[5:6] == b" " else line[5:])
            elif line.startswith(b"event:"):
                name = _NAMES.get(line)
                if name is None:
                    name = line[6:].strip().decode("utf-8", errors="replace")
                    if len(_NAMES) < _KEPT_NAMES:
                        _NAMES[line] = name
                self._name = name
        self._data = data
        return out
