"""Server-held threads: the stand-in keeps each answered conversation under its response's id.

A Messages request may carry ``thread``: ``{"type": "create"}`` starts a thread with the history it
sends, ``{"type": "continue", "previous_message_id": ...}`` sends only the new messages and continues
the conversation that ended with that response. The API takes ``system`` and ``tools`` from the
thread on a ``continue`` (the SDK leaves them out), so they are kept with the history.

:meth:`ThreadStore.expand` turns a request into the one it stands for (the full history, the thread's
``system`` and ``tools``, no ``thread`` field), so scenarios see what a client that sends everything
would have sent; :meth:`ThreadStore.keep` holds a response's conversation once it has been answered.
An unknown ``previous_message_id`` gets the API's 404 ``not_found_error`` with ``error_code``
``thread_not_found`` in its ``details`` (the SDK then replays the whole history under a new thread).
A response that failed (an ``error`` event, a dropped connection) is not held, as the API holds no
half-written turn. The newest :data:`MAX_HELD` conversations are held; older ones are let go.
"""

from __future__ import annotations

import collections
import threading
from typing import Any

from tooljson.standin.conversation import RequestRejected

__all__ = ["MAX_HELD", "ThreadNotFound", "ThreadStore"]

MAX_HELD = 512
"""How many conversations a stand-in holds at most; the oldest is let go first."""

# The fields a thread is created with and a ``continue`` takes from it (the SDK's CREATE_ONLY_FIELDS).
_CREATE_ONLY = ("system", "tools")


class ThreadNotFound(Exception):
    """A ``continue`` names a response the stand-in does not hold: HTTP 404, as the API answers."""

    def __init__(self, message_id: str) -> None:
        super().__init__(f"thread not found: no conversation ends with previous_message_id {message_id!r}")
        self.message_id = message_id

    def body(self) -> dict[str, Any]:
        """The API's error shape, with the ``details`` the SDK reads to start a new thread."""
        error = {
            "type": "not_found_error",
            "message": str(self),
            "details": {"error_code": "thread_not_found"},
        }
        return {"type": "error", "error": error}


def _thread_field(body: dict[str, Any]) -> dict[str, Any] | None:
    thread = body.get("thread")
    if thread is None:
        return None
    if not isinstance(thread, dict) or thread.get("type") not in ("create", "continue"):
        raise RequestRejected('thread: must be {"type": "create"} or {"type": "continue", ...}')
    if thread["type"] == "continue" and not isinstance(thread.get("previous_message_id"), str):
        raise RequestRejected("thread.previous_message_id: a string is required to continue a thread")
    return thread


class ThreadStore:
    """The conversations a stand-in holds, by the id of the response that ended each; thread-safe."""

    def __init__(self, max_held: int = MAX_HELD) -> None:
        self._max_held = max_held
        self._lock = threading.Lock()
        # message id -> (the full history ending with that response, the thread's create-only fields)
        self._held: collections.OrderedDict[str, tuple[list[Any], dict[str, Any]]] = collections.OrderedDict()

    def __len__(self) -> int:
        with self._lock:
            return len(self._held)

    def expand(self, body: dict[str, Any]) -> dict[str, Any]:
        """The request ``body`` stands for: without ``thread``, with the held history before its
        messages and the thread's ``system`` / ``tools`` on a ``continue``. Raises
        :class:`RequestRejected` for a malformed ``thread``, :class:`ThreadNotFound` for an unknown id."""
        thread = _thread_field(body)
        if thread is None:
            return body
        expanded = {key: value for key, value in body.items() if key != "thread"}
        if thread["type"] == "create":
            return expanded
        message_id = thread["previous_message_id"]
        with self._lock:
            held = self._held.get(message_id)
        if held is None:
            raise ThreadNotFound(message_id)
        history, fields = held
        new = body.get("messages")
        expanded["messages"] = [*history, *(new if isinstance(new, list) else [])]
        for name, value in fields.items():
            expanded.setdefault(name, value)
        return expanded

    def keep(self, request: dict[str, Any], message: dict[str, Any]) -> None:
        """Hold the conversation of an answered ``request`` (as :meth:`expand` made it) that ended
        with ``message`` (the whole response), under the response's id."""
        history = [*request.get("messages", []), {"role": "assistant", "content": message["content"]}]
        fields = {name: request[name] for name in _CREATE_ONLY if name in request}
        with self._lock:
            self._held[message["id"]] = (history, fields)
            while len(self._held) > self._max_held:
                self._held.popitem(last=False)
