"""The listening socket of every server tooljson runs for a browser or a client on this machine:
the browser view's and the proxy's."""

from __future__ import annotations

import socket

__all__ = ["bind"]


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (``port`` 0: a free one); ``OSError`` names what is wrong."""
    # IPPROTO_TCP named, not left 0: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on the
    # connections of a socket that says it is TCP. With it on, a response's body waited for the
    # client's delayed acknowledgement of its headers: 40 ms more per response.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("127.0.0.1", port))
        listener.listen(128)
    except OSError:
        listener.close()
        raise
    return listener
