"""From stream events to finished tool calls: the accumulator, routing plus operations.

:class:`ToolCallAccumulator` is the native accumulator plus :meth:`~ToolCallAccumulator.feed`, which
takes one stream event at a time (an SDK event object or the same event as a plain dict) and returns
the :class:`ToolCall` objects that event completed. It reads no source's events itself: each event
is recognised by its shape (the registry, :mod:`tooljson.providers.registry`, asks each source) and
handed to that source's adapter (:mod:`tooljson.providers.adapter`), an object that keeps its own
per-response state and drives the accumulator's public operations: a call begins
(:meth:`~ToolCallAccumulator.begin_call`), a fragment arrives (:meth:`~ToolCallAccumulator.add_fragment`),
a call ends (:meth:`~ToolCallAccumulator.end_call`), the response or one part of it stops
(:meth:`~ToolCallAccumulator.stop_response`), a new response begins
(:meth:`~ToolCallAccumulator.new_response`). Each call is parsed strictly when
it ends; whether an unparsable call was *truncated* can only be decided once the stop reason is
known, which is why :class:`ToolCall` records the parse outcome and :meth:`ToolCallAccumulator.state`
gives the verdict, by one rule for every provider.

Nothing here imports a provider's SDK: events are read by attribute or by key.
"""

from __future__ import annotations

from typing import Any

from tooljson import _native
from tooljson.calls import CallState, ParseState, ToolBlock, ToolCall
from tooljson.errors import (
    IncompleteJSONError,
    JSONDecodeError,
    MalformedEvent,
    MalformedJSONError,
    is_event,
    not_an_event,
)
from tooljson.providers import Provider, event_field
from tooljson.providers.adapter import Adapter
from tooljson.providers.registry import ADAPTERS, DEFAULT, KNOWN_CLASSES, is_cut_off, recognise, unrecognised
from tooljson.typed.calls import TypedCalls
from tooljson.watch import CallWatcher

__all__ = [
    "CallState",
    "ParseState",
    "ToolBlock",
    "ToolCall",
    "ToolCallAccumulator",
    "event_field",
]


class ToolCallAccumulator(TypedCalls, _native.ToolCallAccumulator):
    """The native accumulator, fed whole stream events of any provider.

    ``start``, ``add_delta``, ``finish`` and the rest keep the native behaviour unchanged; ``feed``
    drives them from events of every source the registry lists (:mod:`tooljson.providers.registry`),
    each recognised by its shape; an event of no source is refused with
    :class:`~tooljson.MalformedEvent`.

    After each event, ``stop_reason`` holds the response's stop reason in the source's own word
    once it arrived (where a source's response has several parts, the latest one's;
    :meth:`stop_reason_for` gives a call's own), ``blocks`` lists every tool call started since the
    response began (with its progress), ``calls`` every call completed since then and ``warnings``
    the oddities tolerated since then (tool input for a block that is not an open tool block, a
    second start for an open block), one line each. Indices are whatever the events carry (any
    hashable value), as the native methods take them.
    """

    calls: list[ToolCall]
    blocks: list[ToolBlock]
    warnings: list[str]

    # The state that starts as None is read from the class until it is first set: a tiny call
    # (one short argument text) is begun and ended in about the time the attribute stores took.
    stop_reason: str | None = None
    on_error: Any = None
    # What marks the last dict event's source (its keys, its type prefix) and its adapter, which
    # take the next dict that bears them (None: ask the registry).
    _last: tuple[frozenset[str] | None, str | None, Adapter] | None = None
    # The class of the last SDK object a source's adapter took, and that adapter (a class is one
    # source's once the registry knows it).
    _last_object: tuple[type, Adapter] | None = None
    # Told when a call begins, ends or stops (tooljson.watch); None while nothing watches.
    watcher: CallWatcher | None = None

    def __init__(self, *, models: Any = None, on_error: Any = None, **options: Any) -> None:
        # The native __new__ already took the keyword options: this only sets the Python-side state.
        if models is not None or on_error is not None:
            self._set_up_typed(models, on_error, options)
        self.calls = []
        self.blocks = []
        self.warnings = []
        # The calls begun and not yet ended, by the source's key: finish forgets the index even when
        # it raises.
        self.open_calls: dict[Any, ToolBlock] = {}
        # One adapter per source this accumulator has read, made at its first event.
        self._adapters: dict[str, Adapter] = {}
        if on_error is not None:
            self.on_error = on_error

    def route(self, event: Any, kind: Any = None) -> list[ToolCall]:
        """Take one stream event; return the tool calls it completed (usually none, or one).

        This is :meth:`feed` for every source: the event goes to its source's adapter (the registry
        recognises the source; a long stream's next event is sent where its last one went).
        :meth:`feed` is the registry's default source's hot path where it has one
        (:attr:`~tooljson.providers.source.Source.hot_path`), which takes that source's most
        frequent events in the fewest steps and hands every other one here.

        ``kind``: a dict event's ``type`` when the caller has read it already (``None``: read here).
        Raises :class:`TypeError` for something that is not an event and
        :class:`~tooljson.MalformedEvent` for an event without the fields its type needs, or of no
        source the registry lists. Oddities it can live with are noted in ``warnings``.
        """
        last_object = self._last_object
        if last_object is not None and type(event) is last_object[0]:
            # The bulk of an SDK's stream is objects of one class (its argument deltas).
            return last_object[1].feed(event)
        if type(event) is dict:
            # A stream is one source's: the dict keys or the type prefix that mark the last dict's
            # source (C-level checks, no call) send the next one straight to its adapter, so that a
            # long stream of one source's dicts is not recognised from the registry's start each time.
            last = self._last
            if last is not None:
                marks, prefix, taker = last
                if marks is not None and not marks.isdisjoint(event):
                    return taker.feed(event)
                if prefix is not None:
                    if kind is None:
                        kind = event.get("type")
                    if type(kind) is str and kind.startswith(prefix):
                        return taker.feed(event)
            source = recognise(event)
        else:
            # An SDK object: its class says whose it is once it was recognised.
            source = KNOWN_CLASSES.get(type(event)) or recognise(event)
        if source is None:
            return self._unrecognised(event)
        assert source.adapter is not None, source.name
        adapter = self._adapters.get(source.name)
        if adapter is None:
            adapter = self.adapter(source.name)
        if type(event) is dict:
            if source.marks or source.type_prefix is not None:
                self._last = (source.marks or None, source.type_prefix, adapter)
        elif KNOWN_CLASSES.get(type(event)) is source:
            self._last_object = (type(event), adapter)
        return adapter.feed(event)

    # What feed is: the default source's hot path, or the routing itself.
    feed = route if DEFAULT.hot_path is None else DEFAULT.hot_path

    def _unrecognised(self, event: Any) -> list[ToolCall]:
        """An event of no registered source: taken by an adapter of this stream that tolerates it
        (a newer event type of its source), else refused, naming what it looked like."""
        if not is_event(event) and getattr(event, "__dict__", None) is None:
            raise not_an_event(event)
        for adapter in self._adapters.values():
            if adapter.tolerates(event):
                return adapter.feed(event)
        raise MalformedEvent(unrecognised(event))

    # --- the operations every source's events come down to, driven by the adapters

    def adapter(self, provider: str) -> Adapter:
        """This accumulator's adapter for ``provider`` (one of :data:`~tooljson.providers.registry.ADAPTERS`),
        made the first time it is asked for."""
        adapter = self._adapters.get(provider)
        if adapter is None:
            adapter = self._adapters[provider] = ADAPTERS[provider](self)
        return adapter

    def begin_call(
        self,
        provider: Provider,
        key: Any,
        call_id: Any,
        name: Any,
        block_type: Any,
        *,
        item_id: str | None = None,
        free_text: bool = False,
    ) -> ToolBlock:
        """A call begins, under the source's own ``key`` (its id and name may still be empty: some
        servers send them later, and an adapter may fill them in on the block). With ``free_text``
        its input is text that is kept as it comes and never parsed (a Responses custom tool)."""
        block = ToolBlock(
            key,
            call_id if call_id is not None else "",
            name if name is not None else "",
            block_type,
            provider=provider,
            key=key,
            item_id=item_id,
            free_text=[] if free_text else None,
        )
        if not free_text:
            self.start(block.index, block.name, block.id)
        self.open_calls[key] = block
        self.blocks.append(block)
        if self.watcher is not None:
            self.watcher.began(block)
        return block

    def add_fragment(self, block: ToolBlock, fragment: str) -> None:
        """The next piece of an open call's argument text."""
        if block.free_text is not None:
            if not isinstance(fragment, str):
                raise TypeError(f"a custom tool's input piece must be str, not {type(fragment).__name__}")
            block.free_text.append(fragment)
        else:
            self.add_delta(block.index, fragment)
        block.deltas += 1
        block.chars += len(fragment)

    def open_call(self, key: Any) -> ToolBlock | None:
        """The call open under ``key`` (``None`` when none is)."""
        return self.open_calls.get(key)

    def received(self, block: ToolBlock) -> str:
        """The argument text a call has received so far."""
        return "".join(block.free_text) if block.free_text is not None else self.text(block.index)

    def end_call(self, key: Any) -> ToolCall | None:
        """A call's text is whole: parse it strictly (``None`` when no such call is open)."""
        block = self.open_calls.pop(key, None)
        if block is None:
            return None
        call = self._finish_call(block, ended=True)
        if self.watcher is not None:
            self.watcher.ended(block)
        return call

    def stop_response(self, reason: str | None, *, blocks: list[ToolBlock] | None = None) -> list[ToolCall]:
        """The response stopped with ``reason`` (the provider's word): every open call ends where it
        stands. With ``blocks``, only one part of the response stopped (a Chat Completions choice):
        those of them still open end. ``stop_reason`` becomes ``reason`` either way."""
        self.stop_reason = reason
        ending = (
            list(self.open_calls.values())
            if blocks is None
            else [b for b in blocks if self.open_calls.get(b.key) is b]
        )
        for block in ending:
            del self.open_calls[block.key]
        calls = [self._finish_call(block, ended=False) for block in ending]
        if self.watcher is not None:
            self.watcher.stopped(ending, whole=blocks is None)
        return calls

    def new_response(self) -> None:
        """A new response begins: whatever the last one left open is dropped, ``calls``, ``blocks``,
        ``warnings`` and ``stop_reason`` start afresh, and every adapter forgets its state."""
        if self.watcher is not None:
            self.watcher.dropped(list(self.open_calls.values()))
        for block in self.open_calls.values():
            if block.free_text is None:
                self.discard(block.index)
        self.open_calls.clear()
        for adapter in self._adapters.values():
            adapter.reset()
        self.stop_reason = None
        self.calls = []
        self.blocks = []
        self.warnings.clear()

    def begins_response(self, event: Any) -> bool:
        """Whether ``event`` opens a response after the one being read, in its source's words
        (``message_start``, ``response.created``, a Chat Completions chunk with another id, ...)."""
        source = recognise(event)
        if source is None or source.adapter is None:
            return False
        return self.adapter(source.name).begins_response(event)

    def _finish_call(self, block: ToolBlock, *, ended: bool) -> ToolCall:
        if block.free_text is not None:
            call = self._finish_free_text(block, ended=ended)
            block.call = call
            self.calls.append(call)
            return call
        index = block.index
        raw = self.text(index)
        preview = open_path = None
        if raw and self.status(index).state != "complete":
            # Kept for views: what was built before the text broke or stopped, and where.
            preview, open_path = self.preview(index), self.open_path(index)
        where = {"provider": block.provider, "key": block.key, "item_id": block.item_id}
        try:
            value = self.finish(index)["input"]
        except ValueError as exc:
            # json.loads raises a plain ValueError for integers past the digit limit: still unusable
            # input, so it is reported like any other malformed text.
            error = exc if isinstance(exc, JSONDecodeError) else MalformedJSONError(str(exc), raw, 0)
            status: ParseState = "incomplete" if isinstance(error, IncompleteJSONError) else "malformed"
            call = ToolCall(
                index,
                block.id,
                block.name,
                None,
                raw,
                error,
                status,
                block.block_type,
                preview,
                open_path,
                **where,
            )
        else:
            parsed, problems = self.validate_finished(index, block.name, raw, value)
            call = ToolCall(
                index,
                block.id,
                block.name,
                value,
                raw,
                None,
                "complete",
                block.block_type,
                **where,
                parsed=parsed,
                validation_errors=problems,
            )
        block.call = call
        self.calls.append(call)
        return call

    @staticmethod
    def _finish_free_text(block: ToolBlock, *, ended: bool) -> ToolCall:
        # Free text has no grammar to say it is whole: only its own end event does. Text still open
        # when the response stopped is "incomplete" (truncated when the stop reason is the limit).
        text = "".join(block.free_text or ())
        where = {"provider": block.provider, "key": block.key, "item_id": block.item_id}
        if ended:
            return ToolCall(
                block.index, block.id, block.name, text, text, None, "complete", block.block_type, **where
            )
        return ToolCall(
            block.index, block.id, block.name, None, text, None, "incomplete", block.block_type, text, **where
        )

    # --- verdicts

    def stop_reason_for(self, call: ToolCall | ToolBlock) -> str | None:
        """The stop reason that decides ``call``: the response's, or what the call's adapter says (for
        Chat Completions, the ``finish_reason`` of the call's own choice)."""
        adapter = self._adapters.get(call.provider)
        return self.stop_reason if adapter is None else adapter.stop_reason_for(call)

    def state(self, call: ToolCall) -> CallState:
        """The verdict on a finished call: its parse outcome, or ``truncated`` when it was cut off
        and its stop reason is the source's word for the token limit (:attr:`Source.cut_off
        <tooljson.providers.source.Source.cut_off>`), decidable only once that arrived."""
        if call.status == "incomplete" and is_cut_off(call.provider, self.stop_reason_for(call)):
            return "truncated"
        return call.status

    def is_truncated(self, call: ToolCall) -> bool:
        """Whether ``call`` was cut off by the token limit (decidable only once the stop reason came).

        A cut-off call is a valid prefix: answering it with the INVALID_JSON wrapper would not tell
        the model it ran out of tokens, so it calls for a larger limit instead.
        """
        return self.state(call) == "truncated"

    def is_invalid(self, call: ToolCall) -> bool:
        """Whether ``call`` is unparsable for a reason other than the token limit: answer it with
        :func:`~tooljson.invalid_json_result` and do not run the tool."""
        return self.state(call) in ("incomplete", "malformed")
