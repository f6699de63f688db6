"""Watching calls from outside the layers: the hook telemetry takes, free while nothing watches.

Two lists, empty unless something (``tooljson.otel``) put a factory in them:

* :data:`CALL_WATCHERS`: asked by each :class:`~tooljson.turn.TurnReader` when it is made for a
  :class:`CallWatcher` of its calls. The reader's accumulator then tells it when a call begins, when a
  call's text ends, when the response (or one part of it) stops and when a new response drops what
  was open; the reader tells it when the stream broke off. Nothing is called per fragment: a reader
  made while the list is empty costs one test of the list, once.
* :data:`RUN_WATCHERS`: asked by the tool loop, for each call it answers, for a :class:`ToolRun`
  (the handler runs inside it; :meth:`ToolRun.settle` says what became of the call).

A watcher only reads what it is handed (blocks, calls, the reader's verdicts) and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tooljson.calls import CallState, ToolBlock, ToolCall
    from tooljson.turn import TurnReader

__all__ = ["CALL_WATCHERS", "NO_RUN", "RUN_WATCHERS", "CallWatcher", "ToolRun", "tool_run", "watch_calls"]


class CallWatcher(Protocol):
    """What watches the calls of one reader (each method once per call, or once per response)."""

    def began(self, block: ToolBlock) -> None:
        """A call began (its name and id may still be empty: they are final when it ends)."""

    def ended(self, block: ToolBlock) -> None:
        """A call's text ended and was parsed: ``block.call`` is set."""

    def stopped(self, blocks: Sequence[ToolBlock], *, whole: bool) -> None:
        """The response stopped (``whole``), or one part of it (a Chat Completions choice); ``blocks``
        are the calls it ended, ``block.call`` set on each."""

    def dropped(self, blocks: Sequence[ToolBlock]) -> None:
        """A new response began in the same reader: ``blocks``, still open, are dropped."""

    def interrupted(self) -> None:
        """The stream broke off (the reader's ``interruption`` is set)."""


class ToolRun(Protocol):
    """One answered call, as the loop runs (or refuses) it: entered around its handler, if it runs."""

    def __enter__(self) -> ToolRun: ...

    def __exit__(self, *exc: object) -> None: ...

    def failed(self, error: BaseException) -> None:
        """The handler raised ``error`` (the loop answers the call with it)."""

    def settle(self, state: CallState) -> None:
        """What became of the call, in the reader's words (:meth:`~tooljson.turn.TurnReader.state`),
        once the loop recorded its result."""


CALL_WATCHERS: list[Callable[[TurnReader], CallWatcher | None]] = []
"""Factories of call watchers, asked by each new turn reader."""

RUN_WATCHERS: list[Callable[[ToolCall], ToolRun]] = []
"""Factories of tool runs, asked by the tool loop for each call it answers."""


class _Several:
    """Every watcher of one reader, told in turn (only when more than one factory watches)."""

    def __init__(self, watchers: list[CallWatcher]) -> None:
        self.watchers = watchers

    def began(self, block: ToolBlock) -> None:
        for watcher in self.watchers:
            watcher.began(block)

    def ended(self, block: ToolBlock) -> None:
        for watcher in self.watchers:
            watcher.ended(block)

    def stopped(self, blocks: Sequence[ToolBlock], *, whole: bool) -> None:
        for watcher in self.watchers:
            watcher.stopped(blocks, whole=whole)

    def dropped(self, blocks: Sequence[ToolBlock]) -> None:
        for watcher in self.watchers:
            watcher.dropped(blocks)

    def interrupted(self) -> None:
        for watcher in self.watchers:
            watcher.interrupted()


def watch_calls(reader: TurnReader) -> CallWatcher | None:
    """The watcher of ``reader``'s calls that the factories give (``None`` when none wants it)."""
    watchers = [watcher for factory in list(CALL_WATCHERS) if (watcher := factory(reader)) is not None]
    if not watchers:
        return None
    return watchers[0] if len(watchers) == 1 else _Several(watchers)


class _NoRun:
    """The tool run when nothing watches: does nothing."""

    def __enter__(self) -> _NoRun:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def failed(self, error: BaseException) -> None:
        return None

    def settle(self, state: CallState) -> None:
        return None


NO_RUN: ToolRun = _NoRun()


def tool_run(call: ToolCall) -> ToolRun:
    """The run of ``call`` to enter around its handler (the first factory's; :data:`NO_RUN` when
    nothing watches)."""
    return RUN_WATCHERS[0](call) if RUN_WATCHERS else NO_RUN
