"""``tooljson.Parser``: one JSON document fed in fragments, optionally typed by a pydantic model or a
JSON Schema.

Without ``model`` or ``schema`` it is the native parser (see its stub for the contract). With one of
them it is a :class:`TypedParser`, which also keeps a typed partial value (:meth:`TypedParser.partial`)
and reports each field that fails validation as soon as the field is complete
(:attr:`TypedParser.errors`, ``on_error``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tooljson import _native
from tooljson.errors import JSONDecodeError
from tooljson.events import Event

__all__ = ["Parser", "TypedParser"]


class Parser(_native.Parser):
    """One JSON document fed in fragments; ``Parser(model=M)`` or ``Parser(schema=S)`` makes a
    :class:`TypedParser`."""

    __slots__ = ()

    def __new__(
        cls,
        *,
        model: type[Any] | None = None,
        schema: Mapping[str, Any] | None = None,
        on_error: Callable[[Any], object] | None = None,
        **options: Any,
    ) -> Parser:
        if model is None and schema is None:
            if on_error is not None:
                raise TypeError("on_error needs a model= or a schema= to validate against")
            return super().__new__(cls, **options)
        if model is not None and schema is not None:
            raise TypeError("give either model= or schema=, not both")
        # The typed parser reads the structural events itself and passes them on when asked.
        native = {key: value for key, value in options.items() if key not in ("events", "on_event")}
        return super().__new__(TypedParser, events=True, **native)

    def __init__(self, **options: Any) -> None:
        # The native __new__ took the options.
        pass


def _lookup(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return None
    return value


class TypedParser(Parser):
    """A :class:`Parser` that validates as the text streams.

    ``partial()`` is the typed partial value (an instance of the model's partial form, every field
    optional; or, with a schema, the plain value) holding exactly the values that are complete and
    valid, plus plain strings while they grow (unless ``partial_strings=False``). ``errors`` lists
    every :class:`~tooljson.typed.FieldError` found so far, each reported once, as soon as the field
    it names is complete; ``on_error`` is called with each. ``finish()`` returns
    ``model.model_validate_json(text)`` (raising its ``ValidationError``), or, with a schema, the
    value (its errors added to ``errors``).
    """

    def __init__(
        self,
        *,
        model: type[Any] | None = None,
        schema: Mapping[str, Any] | None = None,
        on_error: Callable[[Any], object] | None = None,
        events: bool = False,
        on_event: Callable[[Event], object] | None = None,
        partial_strings: bool = True,
        **options: Any,
    ) -> None:
        from tooljson.typed.schema_checks import model_shape, schema_shape
        from tooljson.typed.tracker import TypedTracker

        self.model = model
        self.schema = schema
        shape = model_shape(model) if model is not None else schema_shape(schema or {})
        self._tracker = TypedTracker(shape, on_error=on_error)
        self._pending: list[Event] | None = [] if events and on_event is None else None
        self._on_event = on_event
        self._show_growing = partial_strings
        self._outcome: tuple[bool, Any] | None = None

    def _sync(self) -> None:
        events = super().events()
        if not events:
            return
        self._tracker.process(events)
        if self._on_event is not None:
            for event in events:
                self._on_event(event)
        elif self._pending is not None:
            self._pending.extend(events)

    def feed(self, fragment: str) -> None:
        try:
            super().feed(fragment)
        finally:
            self._sync()

    def finish(self) -> Any:
        if self._outcome is not None:
            ok, result = self._outcome
            if ok:
                return result
            raise result
        try:
            value = super().finish()
        except (JSONDecodeError, ValueError) as error:
            self._sync()
            if self.model is None:
                self._outcome = (False, error)
                raise
            value = error
        self._sync()
        if self.model is not None:
            from pydantic import ValidationError

            from tooljson.typed.schema_checks import pydantic_errors

            try:
                result = self.model.model_validate_json(self.text)
            except ValidationError as failure:
                self._tracker.report(
                    pydantic_errors(failure, (), None if isinstance(value, Exception) else value)
                )
                self._outcome = (False, failure)
                raise
            self._outcome = (True, result)
            return result
        shape = self._tracker.shape
        _, errors = shape.check(value, ())
        self._tracker.report(errors)
        self._outcome = (True, value)
        return value

    def partial(self) -> Any:
        """The typed partial value so far (the same object each time, filled in place)."""
        self._sync()
        if self._show_growing and self._outcome is None:
            open_path = self.open_path()
            if open_path:
                text = _lookup(self.preview(), open_path)
                if isinstance(text, str):
                    self._tracker.show_growing(open_path, text)
        return self._tracker.root

    @property
    def errors(self) -> list[Any]:
        """Every field error found so far, in the order found."""
        self._sync()
        return list(self._tracker.errors)

    def events(self) -> list[Event]:
        if self._pending is None:
            raise ValueError("events are off: create the Parser with events=True")
        self._sync()
        events, self._pending = self._pending, []
        return events
