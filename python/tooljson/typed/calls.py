"""Typed tool calls for the accumulator: ``ToolCallAccumulator(models={"tool_name": Model})``.

Calls to a tool named in ``models`` get a :class:`~tooljson.typed.tracker.TypedTracker` when they
start: ``partial(index)`` is the typed partial value, ``errors(index)`` the field errors found so far
(each as soon as its field is complete; ``on_error`` is called with ``(index, error)``), and the
:class:`~tooljson.ToolCall` made at the block's end carries ``parsed`` (the validated model instance,
exactly ``Model.model_validate_json(raw_json)``) and ``validation_errors``.

The structural events these need are pushed by the native accumulator to one router as each delta is
scanned: an accumulator made with ``models`` scans every delta at once (no batching of short deltas),
which costs calls to other tools a little too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from tooljson._native import ToolCallAccumulator as _NativeAccumulator
from tooljson.typed.schema_checks import FieldError, model_shape, pydantic_errors
from tooljson.typed.tracker import TypedTracker

__all__ = ["TypedCalls"]

_native_start = _NativeAccumulator.start


class _Router:
    """Receives every structural event of the accumulator and hands each to its call's tracker."""

    def __init__(self, user: Callable[[Any, Any], object] | None, keep: bool) -> None:
        self.user = user
        self.trackers: dict[Any, TypedTracker] = {}
        # Events of indices not started yet (fragments may come before start), and, when the caller
        # asked for events=True, every event kept for its events(index).
        self.early: dict[Any, list[Any]] = {}
        self.kept: dict[Any, list[Any]] | None = {} if keep else None
        self.started: set[Any] = set()

    def __call__(self, index: Any, event: Any) -> None:
        tracker = self.trackers.get(index)
        if tracker is not None:
            tracker.process((event,))
        elif index not in self.started:
            self.early.setdefault(index, []).append(event)
        if self.user is not None:
            self.user(index, event)
        elif self.kept is not None:
            self.kept.setdefault(index, []).append(event)


class TypedCalls:
    """The accumulator's typed side (a mixin before the native class)."""

    # An accumulator without models keeps these class values (nothing to store per instance).
    _router: _Router | None = None
    _models: Mapping[str, type[Any]] = MappingProxyType({})

    def _set_up_typed(
        self, models: Mapping[str, type[Any]] | None, on_error: Any, options: Mapping[str, Any]
    ) -> None:
        """Checks ``models`` and ``on_error`` and, with models, routes the structural events of every
        call to the trackers (``options``: the keyword options the accumulator was created with)."""
        if on_error is not None and not models:
            raise TypeError("on_error needs models= to validate against")
        if on_error is not None and not callable(on_error):
            raise TypeError(f"on_error must be callable, not {type(on_error).__name__}")
        if not models:
            return
        for model in models.values():
            model_shape(model)  # refuses what is not a pydantic model, before anything streams
        router = _Router(options.get("on_event"), keep=bool(options.get("events", False)))
        self._route_events(router)  # type: ignore[attr-defined]
        self._router = router
        self._models = dict(models)

    def start(self, index: Any, name: str, tool_id: str) -> None:
        router = self._router
        if router is None:
            # The native start straight away: a call to a tool with no model pays no typed side.
            _native_start(self, index, name, tool_id)  # type: ignore[arg-type]
            return
        super().start(index, name, tool_id)  # type: ignore[misc]
        router.started.add(index)
        early = router.early.pop(index, [])
        model = self._models.get(name)
        if model is None:
            router.trackers.pop(index, None)
            return
        tracker = TypedTracker(model_shape(model), on_error=self._error_callback(index))
        router.trackers[index] = tracker
        tracker.process(early)

    def _error_callback(self, index: Any) -> Callable[[FieldError], object] | None:
        on_error = getattr(self, "on_error", None)
        if on_error is None:
            return None
        return lambda error: on_error(index, error)

    def _tracker(self, index: Any) -> TypedTracker:
        router = self._router
        tracker = router.trackers.get(index) if router is not None else None
        if tracker is None:
            raise KeyError(index)
        return tracker

    def partial(self, index: Any) -> Any:
        """The typed partial value of call ``index`` (a tool named in ``models``)."""
        tracker = self._tracker(index)
        if index in self:  # type: ignore[operator]
            open_path = self.open_path(index)  # type: ignore[attr-defined]
            if open_path:
                value = self.preview(index)  # type: ignore[attr-defined]
                for key in open_path:
                    try:
                        value = value[key]
                    except (KeyError, IndexError, TypeError):
                        value = None
                        break
                if isinstance(value, str):
                    tracker.show_growing(open_path, value)
        return tracker.root

    def errors(self, index: Any) -> list[FieldError]:
        """The field errors of call ``index`` found so far (empty while all is well)."""
        return list(self._tracker(index).errors)

    def events(self, index: Any) -> list[Any]:
        router = self._router
        if router is None:
            return super().events(index)  # type: ignore[misc, no-any-return]
        if router.kept is None:
            raise ValueError("events are off: create the accumulator with events=True")
        return router.kept.pop(index, [])

    def validate_finished(
        self, index: Any, name: str, raw: str, value: Any
    ) -> tuple[Any, tuple[FieldError, ...]]:
        """``parsed`` and ``validation_errors`` of a finished call: the model's validation of the
        whole text, for a tool named in ``models``."""
        model = self._models.get(name)
        router = self._router
        tracker = router.trackers.get(index) if router is not None else None
        if model is None or tracker is None:
            return None, ()
        from pydantic import ValidationError

        try:
            return model.model_validate_json(raw or "{}"), tuple(tracker.errors)
        except ValidationError as failure:
            tracker.report(pydantic_errors(failure, (), value))
            return None, tuple(tracker.errors)
