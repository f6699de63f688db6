"""Beta message threads whose streams are tooljson's: ``thread.stream(...)`` and the tool runner's turns.

The SDK's ``client.beta.messages.thread(...)`` and the tool runner keep the conversation on the server
and stream each turn through a ``ThreadMessageStreamManager`` (``anthropic/lib/threads``), which does
not go through ``beta.messages.stream``. Here the SDK's own thread and manager objects are kept, with
their class changed to a subclass that differs in one thing only: the stream a turn opens is an
:class:`~tooljson.acceleration.streams.AcceleratedBetaMessageStream` (or its async twin). Recording
the reply in the thread, ending the turn, the request, ``fork()`` and everything else stay the SDK's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from anthropic.lib.streaming import BetaAsyncMessageStreamManager, BetaMessageStreamManager
from anthropic.lib.threads import BetaAsyncMessageThread, BetaMessageThread
from anthropic.lib.threads._stream_managers import AsyncThreadMessageStreamManager, ThreadMessageStreamManager

from tooljson.acceleration.streams import (
    AcceleratedBetaAsyncMessageStream,
    AcceleratedBetaMessageStream,
    StreamOptions,
    manager_request,
)

__all__ = [
    "AcceleratedAsyncMessageThread",
    "AcceleratedAsyncThreadMessageStreamManager",
    "AcceleratedMessageThread",
    "AcceleratedThreadMessageStreamManager",
    "Acceleration",
    "accelerated_thread",
]


@dataclass(frozen=True)
class Acceleration:
    """Everything an accelerated client's streams, threads and tool runners are told by
    :func:`tooljson.accelerate`: how streams parse tool input (``stream``), and what the tool runner
    does with a call cut off at ``max_tokens`` (``truncation``, ``max_tokens_cap``), and what makes
    the SDK's tool runner tooljson's (``runner``: :func:`tooljson.acceleration.runner.accelerated_runner`,
    given here so that a thread's ``tool_runner`` reaches it without this module importing that one,
    which imports this)."""

    stream: StreamOptions
    truncation: str
    max_tokens_cap: int
    runner: Callable[[Any, Acceleration], Any]


class _AcceleratedEnter(BetaMessageStreamManager[Any]):
    """Opens the stream as the SDK's beta manager does, with tooljson's stream class. Placed after
    the SDK's thread manager in the method resolution order, so that manager's ``__enter__`` (which
    ends the thread's turn with the stream) calls this one."""

    # Nothing of its own in the instance layout: the SDK's manager object becomes an instance in place.
    __slots__ = ()
    _acceleration: Acceleration

    def __enter__(self) -> Any:
        api_request, output_format = manager_request(self, BetaMessageStreamManager)
        stream = AcceleratedBetaMessageStream(api_request(), output_format, options=self._acceleration.stream)
        # The SDK's __exit__ closes the stream it holds here.
        vars(self)["_BetaMessageStreamManager__stream"] = stream
        return stream


class _AcceleratedAsyncEnter(BetaAsyncMessageStreamManager[Any]):
    """The async twin of :class:`_AcceleratedEnter`."""

    __slots__ = ()
    _acceleration: Acceleration

    async def __aenter__(self) -> Any:
        api_request, output_format = manager_request(self, BetaAsyncMessageStreamManager)
        stream = AcceleratedBetaAsyncMessageStream(
            await api_request, output_format, options=self._acceleration.stream
        )
        vars(self)["_BetaAsyncMessageStreamManager__stream"] = stream
        return stream


class AcceleratedThreadMessageStreamManager(ThreadMessageStreamManager[Any], _AcceleratedEnter):
    """``thread.stream(...)`` of an accelerated thread: the SDK's manager, its stream tooljson's."""


class AcceleratedAsyncThreadMessageStreamManager(
    AsyncThreadMessageStreamManager[Any], _AcceleratedAsyncEnter
):
    """The async twin of :class:`AcceleratedThreadMessageStreamManager`."""


def _take_over(manager: Any, ours: type[Any], acceleration: Acceleration) -> Any:
    """The SDK's object (a thread or a thread's stream manager, nothing sent yet), made an instance of
    our subclass of its class in place: every attribute the SDK set stays as it is."""
    if type(manager) is not ours.__mro__[1]:
        import anthropic

        raise RuntimeError(
            f"tooljson.accelerate does not know the {type(manager).__qualname__} of anthropic "
            f"{anthropic.__version__}; the SDK's message threads changed shape"
        )
    manager.__class__ = ours
    vars(manager)["_acceleration"] = acceleration
    return manager


def _thread_class(sdk_class: type[Any], manager_class: type[Any]) -> type[Any]:
    """The accelerated subclass of one of the SDK's thread classes (sync and async share the code:
    ``stream``, ``tool_runner`` and ``fork`` are plain methods on both)."""

    class AcceleratedThread(sdk_class):  # type: ignore[misc]
        _acceleration: Acceleration

        def stream(self, *args: Any, **kwargs: Any) -> Any:
            """The SDK's ``stream(...)``, its turn streamed through tooljson."""
            return _take_over(super().stream(*args, **kwargs), manager_class, self._acceleration)

        def tool_runner(self, *args: Any, **kwargs: Any) -> Any:
            """The SDK's ``tool_runner(...)``; with ``stream=True``, tooljson's runner."""
            return self._acceleration.runner(super().tool_runner(*args, **kwargs), self._acceleration)

        def fork(self) -> Any:
            forked = super().fork()
            vars(forked)["_acceleration"] = self._acceleration
            return forked

    name = "Accelerated" + sdk_class.__name__.removeprefix("Beta")
    AcceleratedThread.__name__ = AcceleratedThread.__qualname__ = name
    AcceleratedThread.__doc__ = (
        f"A ``{sdk_class.__name__}`` whose turns stream through tooljson; ``tool_runner(stream=True)`` over "
        "it is tooljson's runner (:mod:`tooljson.acceleration.runner`)."
    )
    return AcceleratedThread


AcceleratedMessageThread = _thread_class(BetaMessageThread, AcceleratedThreadMessageStreamManager)
AcceleratedAsyncMessageThread = _thread_class(
    BetaAsyncMessageThread, AcceleratedAsyncThreadMessageStreamManager
)


def accelerated_thread(thread: Any, acceleration: Acceleration) -> Any:
    """The SDK's ``thread`` (sync or async), made an accelerated thread in place."""
    if isinstance(thread, (AcceleratedMessageThread, AcceleratedAsyncMessageThread)):
        vars(thread)["_acceleration"] = acceleration
        return thread
    ours = {
        BetaMessageThread: AcceleratedMessageThread,
        BetaAsyncMessageThread: AcceleratedAsyncMessageThread,
    }
    return _take_over(thread, ours.get(type(thread), AcceleratedMessageThread), acceleration)
