"""What an adapter is: an object that reads one source's events and drives the accumulator's operations.

Every source of tool calls (a provider's API, a framework's stream) comes down to the same few
operations of :class:`tooljson.ToolCallAccumulator`, its public interface for adapters:

=====================================  ==========================================================
``begin_call(provider, key, ...)``     a call begins (its id and name may still be empty)
``add_fragment(block, fragment)``      the next piece of a call's argument text arrives
``end_call(key)``                      a call's text is whole: it is parsed strictly
``stop_response(reason, blocks=...)``  the response stopped (or, with ``blocks``, one part of it,
                                       such as a Chat Completions choice): open calls end
``new_response()``                     a new response begins: what the last one left open is dropped
``open_call(key)``                     the call open under ``key``, if any
``received(block)``                    the text a call has received so far
``state(call)``                        the verdict on a finished call
``route(event, kind)``                 an event handed on: the accumulator finds its source
``adapter(provider)``                  the accumulator's adapter of a source, made when first asked
=====================================  ==========================================================

and what it reads: ``stop_reason``, ``blocks`` (every call begun in this response), ``warnings``
(where an adapter notes an oddity it tolerated, one line each), ``open_calls`` (the calls open, by
key) and the native ``add_delta(index, fragment)``, for a source's hot path
(:attr:`tooljson.providers.source.Source.hot_path`: a function that reads that source's most
frequent events in the fewest steps and hands any other to ``route``).

An :class:`Adapter` keeps its own per-response state (which choice finished how, which item id is
which call, ...) and forgets it in :meth:`Adapter.reset`, which the accumulator calls whenever a
response begins, whoever noticed it. The accumulator knows its adapters only through this class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from tooljson.providers import Provider

if TYPE_CHECKING:
    from tooljson.calls import BlockType, CallState, ToolBlock, ToolCall

__all__ = ["Adapter", "CallOperations"]


class CallOperations(Protocol):
    """The accumulator's operations, as an adapter sees them (:class:`tooljson.ToolCallAccumulator`)."""

    stop_reason: str | None
    blocks: list[ToolBlock]
    warnings: list[str]
    open_calls: dict[Any, ToolBlock]

    def add_delta(self, index: Any, fragment: str) -> None: ...

    def route(self, event: Any, kind: Any = None) -> list[ToolCall]: ...

    def adapter(self, provider: str) -> Adapter: ...

    def begin_call(
        self,
        provider: Provider,
        key: Any,
        call_id: Any,
        name: Any,
        block_type: BlockType,
        *,
        item_id: str | None = None,
        free_text: bool = False,
    ) -> ToolBlock: ...

    def add_fragment(self, block: ToolBlock, fragment: str) -> None: ...

    def end_call(self, key: Any) -> ToolCall | None: ...

    def stop_response(
        self, reason: str | None, *, blocks: list[ToolBlock] | None = None
    ) -> list[ToolCall]: ...

    def new_response(self) -> None: ...

    def open_call(self, key: Any) -> ToolBlock | None: ...

    def received(self, block: ToolBlock) -> str: ...

    def state(self, call: ToolCall) -> CallState: ...


class Adapter:
    """One source's reader, bound to one accumulator: :meth:`feed` takes that source's events.

    Subclasses set ``provider`` and implement :meth:`feed`; they override :meth:`reset` to forget
    their per-response state, :meth:`stop_reason_for` when a call's verdict follows something else
    than the response's stop reason, and :meth:`begins_response` when their events say so in their
    own way.
    """

    provider: Provider

    def __init__(self, calls: CallOperations) -> None:
        self.calls = calls

    def feed(self, event: Any) -> list[ToolCall]:
        """Apply one event; return the calls it ended."""
        raise NotImplementedError

    def reset(self) -> None:
        """A new response begins: forget this response's state (nothing, by default)."""

    def stop_reason_for(self, call: ToolCall | ToolBlock) -> str | None:
        """The stop reason that decides ``call`` (the response's, by default)."""
        return self.calls.stop_reason

    def begins_response(self, event: Any) -> bool:
        """Whether ``event`` opens a response after the one being read (never, by default: a
        source whose events say so overrides this)."""
        return False

    @staticmethod
    def tolerates(event: Any) -> bool:
        """Whether ``event``, which no source recognises, is taken (by :meth:`feed`) as a newer event
        of this source in a stream it is reading, rather than refused (never, by default)."""
        return False
