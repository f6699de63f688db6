"""Type stub of the Rust extension module ``tooljson._native``."""

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any, Literal, Self, final

from typing_extensions import disjoint_base

__all__ = [
    "CallFloor",
    "Event",
    "GrowingText",
    "ParseStatus",
    "Parser",
    "ResumeCache",
    "ToolCallAccumulator",
    "__version__",
    "loads",
    "utf8_size",
]

__version__: str

@final
class Event:
    """One change to the value being streamed.

    ``kind`` "begin": a container opened, or a string is still open at the end of a scan (``value``
    is "object", "array" or "string"); "append": text added to that open string (``value`` is the
    new text; the appends of a string add up to the whole string); "complete": a value is whole
    (``value`` is the value, the very object the final result holds). ``path`` holds the keys and
    array positions from the root. ``kind, path, value = event`` unpacks it.
    """

    __match_args__ = ("kind", "path", "value")
    def __new__(cls, kind: str, path: Iterable[str | int], value: Any) -> Self: ...
    @property
    def kind(self) -> Literal["begin", "append", "complete"]: ...
    @property
    def path(self) -> tuple[str | int, ...]: ...
    @property
    def value(self) -> Any: ...
    @property
    def pointer(self) -> str:
        """The path as an RFC 6901 JSON Pointer (``""`` for the root)."""
    def __iter__(self) -> Iterator[Any]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[type[Event], tuple[str, tuple[str | int, ...], Any]]: ...

@final
class ParseStatus:
    """Where a text stands: ``state`` is "complete", "incomplete" or "malformed".

    ``pos`` is the character offset of the first offending character when malformed, ``len(text)``
    when incomplete, and ``None`` when complete; ``msg`` says what is wrong (``None`` when complete).
    """

    @property
    def state(self) -> Literal["complete", "incomplete", "malformed"]: ...
    @property
    def pos(self) -> int | None: ...
    @property
    def msg(self) -> str | None: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@disjoint_base
class Parser:
    """One JSON document fed in fragments.

    ``feed`` raises :class:`tooljson.MalformedJSONError` in the very fragment that makes the text
    invalid (and again on every later call); ``finish`` returns what ``json.loads`` returns for the
    joined text or raises what it would raise, as a :class:`tooljson.JSONDecodeError` subclass.

    ``preview()`` returns the best value for the text so far (``None`` before anything can be
    shown) and never raises. It is the value under construction itself, filled in place: treat it
    as read-only and copy it (``copy.deepcopy``) to keep a snapshot. Between two previews a shown
    value never changes type; strings only grow (open strings are shown unless
    ``partial_strings=False``, and at most ``preview_string_limit`` characters of an open string);
    numbers and literals appear only once complete (a bare top-level number only at ``finish``);
    object keys appear once complete and stay in order; arrays and objects grow only at their end.
    Once the text turns malformed the preview stays as it was. (The one exception: a repeated object
    key takes its new value, as ``json.loads`` gives it.)

    With ``events=True``, ``events()`` returns the :class:`tooljson.Event` s since the last call; with
    ``on_event``, each event is passed to it as soon as the ``feed`` or ``finish`` that caused it
    is done (and ``events()`` then has nothing left to return).

    ``max_size`` bounds the text in UTF-8 bytes (:class:`tooljson.InputTooLargeError` beyond it);
    ``max_depth`` bounds nesting (:class:`tooljson.NestingTooDeepError`).
    """

    def __new__(
        cls,
        *,
        max_depth: int = 1000,
        max_size: int | None = None,
        partial_strings: bool = True,
        preview_string_limit: int | None = None,
        events: bool = False,
        on_event: Callable[[Event], object] | None = None,
    ) -> Self: ...
    def feed(self, fragment: str) -> None:
        """Scan ``fragment``; raises :class:`tooljson.MalformedJSONError` in the fragment that holds
        the first bad character."""
    def finish(self) -> Any:
        """The value, exactly as ``json.loads`` gives it for the joined text (again on later calls);
        :class:`tooljson.IncompleteJSONError` for a text cut off, :class:`tooljson.MalformedJSONError`
        for an invalid one."""
    def preview(self) -> Any:
        """The best value for the text so far, filled in place; never raises."""
    def events(self) -> list[Event]:
        """The structural events since the last call (``events=True``)."""
    def open_path(self) -> tuple[str | int, ...] | None:
        """The path of the value being filled now: the deepest open array or object, or the string
        still being read. ``None`` when no value is open. Every other value in the preview is
        complete."""
    @property
    def status(self) -> ParseStatus:
        """Where the text stands: complete, incomplete or malformed, with the error's position and
        message."""
    @property
    def text(self) -> str:
        """The text fed so far."""

@final
class GrowingText:
    """A caller's growing buffer, read as it grows (the native half of :mod:`tooljson.compat`).

    ``read(data, start)`` reads ``data[start:]`` (``data`` a ``bytes``, read as UTF-8 without a
    ``str`` made of it, or a ``str``) and returns ``False`` once the text is refused (malformed,
    nested deeper than ``max_depth``, bytes that are not UTF-8); a character cut off at the end of
    the bytes is held until the rest arrives.
    """

    def __new__(cls, *, partial_strings: bool, max_depth: int, binary: bool = False) -> Self: ...
    def read(self, data: bytes | str, start: int) -> bool: ...
    @property
    def failed(self) -> bool:
        """The text was refused (malformed, too deep, not UTF-8): nothing more is read."""
    @property
    def binary(self) -> bool:
        """Made for a ``bytes`` buffer."""
    @property
    def length(self) -> int:
        """The length of the buffer a :class:`ResumeCache` last had it read, in its units (bytes or
        characters)."""
    def snapshot(
        self, *, string_text: bool = False
    ) -> tuple[Literal["string", "key", "number", "value"], str | int | None, str | None, Any, Any] | None:
        """Where the text ends, and a copy of the value to hand out, as ``(kind, member, text,
        value, innermost)``; ``None`` when the text was refused or ends inside a character.

        ``kind`` is "string" (inside a string value), "key" (an object key), "number" or "value"
        (anything else); ``member`` is where the value being read goes in the deepest open
        container (the key last read, or the array position), ``None`` when no container is open;
        ``text`` is the number's text so far, complete or not (``12``, ``12.``, ``-``), or with
        ``string_text=True`` the open string value's content; ``value`` is the value with every
        open array and object replaced by a shallow copy (complete members are shared), or the
        whole value when none is open; ``innermost`` is the copy of the deepest open container
        (``None`` when none is open). The number or string being read is not in ``value``.
        """
    @property
    def has_inf_nan(self) -> bool:
        """Whether an ``N`` or an ``I`` was read, anywhere in the text (inside a string too)."""
    @property
    def has_lone_surrogate(self) -> bool:
        """A surrogate escape that is not half of a pair has been read (one at the end still
        waiting for its low half does not count)."""
    @property
    def status(self) -> ParseStatus: ...

@disjoint_base
class ToolCallAccumulator:
    """Tool-call argument buffers keyed by content-block index, parsed as the fragments arrive.

    A drop-in replacement of :class:`tooljson.pure.ToolCallAccumulator`. An index is any hashable
    object (an int block index, an item id string, a ``(choice, index)`` tuple), compared as a dict
    compares keys (``1``, ``1.0`` and ``True`` name the same block); an unhashable one raises
    ``TypeError``. ``preview(index)`` and ``events(index)`` behave as :meth:`Parser.preview` and
    :meth:`Parser.events` for that block; ``on_event`` is called with ``(index, event)``. Without
    ``on_event``, the events that ``finish(index)`` causes can still be collected by one more
    ``events(index)``.
    """

    def __new__(
        cls,
        *,
        max_depth: int = 1000,
        max_size: int | None = None,
        partial_strings: bool = True,
        preview_string_limit: int | None = None,
        events: bool = False,
        on_event: Callable[[Any, Event], object] | None = None,
        models: Any = None,
        on_error: Any = None,
    ) -> Self:
        """``models`` and ``on_error`` are for :class:`tooljson.ToolCallAccumulator`'s ``__init__``;
        this class does nothing with them."""
    def _route_events(self, router: Callable[[Any, Event], object]) -> None:
        """Hand every structural event to ``router`` from now on (before any block opens)."""
    def start(self, index: Hashable, name: str, tool_id: str) -> None:
        """Begin the tool call of block ``index`` (fragments sent before it are kept)."""
    def add_delta(self, index: Hashable, fragment: str) -> None:
        """Add one ``input_json_delta`` fragment; never raises for bad JSON: ``status(index)`` shows
        it at once, ``finish(index)`` raises it."""
    def finish(self, index: Hashable) -> dict[str, Any]:
        """``{"name", "id", "input"}`` for block ``index`` (``{}`` for no text) and forget the index;
        ``KeyError`` for an index never started."""
    def preview(self, index: Hashable) -> Any:
        """:meth:`Parser.preview` for block ``index``."""
    def events(self, index: Hashable) -> list[Event]:
        """:meth:`Parser.events` for block ``index``."""
    def open_path(self, index: Hashable) -> tuple[str | int, ...] | None:
        """:meth:`Parser.open_path` for block ``index``."""
    def text(self, index: Hashable) -> str:
        """The text of block ``index`` so far."""
    def status(self, index: Hashable) -> ParseStatus:
        """:attr:`Parser.status` for block ``index``."""
    def discard(self, index: Hashable) -> None:
        """Forget block ``index`` without parsing it."""
    def __contains__(self, index: object, /) -> bool: ...
    def __len__(self) -> int: ...
    @property
    def indices(self) -> list[Any]:
        """The indices held: started or sent fragments, and not yet finished or discarded."""

def loads(text: str, *, max_depth: int = 1000, max_size: int | None = None) -> Any:
    """One-shot strict parse: what ``json.loads`` returns, tooljson's errors
    (:class:`tooljson.IncompleteJSONError`, :class:`tooljson.MalformedJSONError`)."""

def utf8_size(text: str) -> int:
    """``len(text.encode("utf-8", "surrogatepass"))``, counted without encoding where the build can
    read the ``str``'s own storage."""

@final
class ResumeCache:
    """The buffers recently read by the drop-in functions, each with the :class:`GrowingText` that
    read it; safe across threads.

    ``read(data, strings=...)`` takes out the entry whose buffer is the longest prefix of ``data``
    (usually the last call's) and has it read what ``data`` adds, or makes a new one; ``give`` puts
    it back as the most recently used. At most ``max_entries`` are kept, holding at most
    ``max_chars`` of text together; the least recently used go first.
    """

    def __new__(cls, *, max_depth: int, max_entries: int = 8, max_chars: int = 33554432) -> Self: ...
    def read(self, data: bytes | bytearray | str, *, strings: bool) -> GrowingText: ...
    def give(self, entry: GrowingText) -> None: ...
    def clear(self) -> None: ...
    def __len__(self) -> int: ...
    @property
    def max_entries(self) -> int: ...
    @property
    def max_chars(self) -> int: ...
    @property
    def chars(self) -> int:
        """The kept buffers' lengths added up."""

@final
class CallFloor:
    """The benchmarks' floor, not part of the API: ``take`` does nothing with its one ``str``, so
    timed beside :meth:`ToolCallAccumulator.add_delta` in one process it gives the cost of merely
    calling a method of this module with a ``str``."""

    def __new__(cls) -> Self: ...
    def take(self, fragment: str) -> None: ...
