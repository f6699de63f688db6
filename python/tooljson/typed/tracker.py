"""A typed partial value kept up to date from a parser's structural events.

:class:`TypedTracker` follows the ``begin`` / ``complete`` events of one document. Each value that
completes is checked once, at its place in the schema (:mod:`tooljson.typed.schema_checks`): when it is valid
it is put into the partial value, when it is not its errors are reported at once. Nested models,
lists and dicts of models are shown while they fill; a plain string is shown while it grows (read from
the parser's preview, so showing it costs no more than the preview does). Everything else appears
once complete and valid. A shown value never disappears and never changes type; a list only grows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from tooljson.typed.schema_checks import FieldError, Key, Path, Shape

__all__ = ["TypedTracker"]


class _Frame:
    """A container being filled: its path, its shape and its partial value (``None`` when the
    container is not shown while it fills: it is checked whole when it completes)."""

    __slots__ = ("container", "path", "shape")

    def __init__(self, path: Path, shape: Shape | None, container: Any) -> None:
        self.path = path
        self.shape = shape
        self.container = container


class TypedTracker:
    """Keeps the typed partial value of one document and the errors found so far.

    ``root`` is the partial value of the whole document (an empty partial model before the text
    begins), ``errors`` every :class:`FieldError` found, in the order found; ``on_error`` is called
    with each as soon as it is found.
    """

    def __init__(self, shape: Shape, *, on_error: Callable[[FieldError], object] | None = None) -> None:
        self.shape = shape
        self.root: Any = shape.new_partial("object")
        self.errors: list[FieldError] = []
        self.on_error = on_error
        self._reported: set[tuple[str, str]] = set()
        self._stack: list[_Frame] = []
        # Inside a container that is only checked whole: the length of its path.
        self._opaque: int | None = None
        # Where a growing string was put (its container and key), replaced when the string completes.
        self._growing: tuple[Any, Key] | None = None

    # --- events

    def process(self, events: Iterable[Any]) -> None:
        """Take the parser's events since the last call, in order."""
        for event in events:
            kind, path, value = event
            if self._opaque is not None:
                if len(path) > self._opaque:
                    continue
                if kind == "complete" and len(path) == self._opaque:
                    frame = self._stack.pop()
                    self._opaque = None
                    self._complete(frame.shape, path, value)
                continue
            if kind == "begin":
                if value != "string":
                    self._begin(path, value)
            elif kind == "complete":
                if self._stack and self._stack[-1].path == path:
                    frame = self._stack.pop()
                    self._finish_container(frame, value)
                else:
                    self._complete(self._shape_at(path), path, value)

    def _shape_at(self, path: Path) -> Shape | None:
        if not path:
            return self.shape
        parent = self._stack[-1].shape if self._stack else None
        return parent.child(path[-1]) if parent is not None else None

    def _begin(self, path: Path, kind: str) -> None:
        shape = self._shape_at(path)
        if not path:
            container = self.root if kind == "object" else None
        else:
            container = shape.new_partial(kind) if shape is not None and shape.growable else None
        self._stack.append(_Frame(path, shape, container))
        if container is None:
            # Not shown while it fills: checked whole when it completes (or ignored, without a shape).
            self._opaque = len(path)
            return
        if path:
            self._put(path, container)

    def _finish_container(self, frame: _Frame, value: Any) -> None:
        if frame.shape is None or not frame.path:
            # The whole document is checked once, by its owner, against the exact text.
            return
        checked, errors = frame.shape.check(value, frame.path)
        self._report(errors)
        if not errors and frame.container is not None and hasattr(checked, "__pydantic_fields__"):
            # A model whose validators changed a value: the partial form shows what the model holds.
            self._adopt(frame.container, checked)

    def _complete(self, shape: Shape | None, path: Path, value: Any) -> None:
        if shape is None or not path:
            return
        checked, errors = shape.check(value, path)
        if errors:
            self._report(errors)
            return
        # A value checked whole (a discriminated union's member, say) is shown as the validated object.
        self._put(path, checked)

    # --- the partial value

    def _put(self, path: Path, value: Any) -> None:
        parent = self._parent_container(path)
        if parent is None:
            return
        key = path[-1]
        growing = self._growing
        if growing is not None and growing[0] is parent and growing[1] == key:
            self._growing = None
            if isinstance(parent, list):
                parent[-1] = value
                return
        self._set(parent, key, value)

    def _parent_container(self, path: Path) -> Any:
        for frame in reversed(self._stack):
            if frame.path == path[:-1]:
                return frame.container
        return None

    def _set(self, parent: Any, key: Key, value: Any) -> None:
        if isinstance(parent, list):
            parent.append(value)
        elif isinstance(parent, dict):
            parent[key] = value
        else:
            shape = self._frame_shape(parent)
            name = shape.field_name(key) if shape is not None and hasattr(shape, "field_name") else None
            if name is not None:
                parent.__dict__[name] = value
                parent.__pydantic_fields_set__.add(name)
            elif getattr(parent, "__pydantic_extra__", None) is not None:
                parent.__pydantic_extra__[key] = value

    def _frame_shape(self, container: Any) -> Shape | None:
        for frame in reversed(self._stack):
            if frame.container is container:
                return frame.shape
        return None

    @staticmethod
    def _adopt(partial: Any, model: Any) -> None:
        """Copy a validated model's scalar fields into its partial form (nested partials stay)."""
        for name in model.__pydantic_fields_set__:
            value = getattr(model, name, None)
            current = partial.__dict__.get(name)
            if hasattr(current, "__pydantic_fields__") or isinstance(current, (list, dict)):
                continue
            partial.__dict__[name] = value
            partial.__pydantic_fields_set__.add(name)

    def show_growing(self, open_path: Path | None, text: str | None) -> None:
        """Show the string being read at ``open_path`` (``text`` so far) when its place takes any text."""
        if open_path is None or text is None or self._opaque is not None or not open_path:
            return
        if not self._stack or self._stack[-1].path != open_path[:-1]:
            return
        frame = self._stack[-1]
        shape = frame.shape.child(open_path[-1]) if frame.shape is not None else None
        if shape is None or not shape.growing_text or frame.container is None:
            return
        key = open_path[-1]
        growing = self._growing
        if growing is not None and growing[0] is frame.container and growing[1] == key:
            if isinstance(frame.container, list):
                frame.container[-1] = text
                return
        elif isinstance(frame.container, list):
            self._growing = (frame.container, key)
            frame.container.append(text)
            return
        self._growing = (frame.container, key)
        self._set(frame.container, key, text)

    # --- errors

    def _report(self, errors: Iterable[FieldError]) -> None:
        for error in errors:
            if error.key in self._reported:
                continue
            self._reported.add(error.key)
            self.errors.append(error)
            if self.on_error is not None:
                self.on_error(error)

    def report(self, errors: Iterable[FieldError]) -> None:
        """Add errors found by a check of the whole document (reported ones are not repeated)."""
        self._report(errors)
