"""What tooljson knows about one source of tool calls, in one object: :class:`Source`.

A source is a provider's API or a framework's stream (the registry, :mod:`tooljson.providers.registry`,
lists them). Its package defines everything about it and its ``__init__`` exports one ``SOURCE``; the
registry lists those, and everything else asks the registry:

=========================  ===================================================================
who asks                   what it reads
=========================  ===================================================================
the accumulator            :attr:`Source.recognise`, :attr:`Source.adapter`, :meth:`Source.is_cut_off`,
                           the default source's :attr:`Source.hot_path`
the turn reader            :attr:`Source.assembler`, :attr:`Source.end_event`, :attr:`Source.describe_error`
:mod:`tooljson.results`    :attr:`Source.answer`
the proxy                  :attr:`Source.stream_paths`, :attr:`Source.framing`
recordings                 :attr:`Source.check`
the stand-in               :attr:`Source.wire` (a module path it imports when it starts)
the command line, extras   :attr:`Source.extra`, :attr:`Source.modules`
the shared tests           :attr:`Source.streams`
=========================  ===================================================================

Nothing here imports a provider's SDK, and neither does a source module at import time: events are
read by attribute or by key, so an SDK object and the same event as a plain dict take one path.
"""

from __future__ import annotations

import importlib.util
import re
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from tooljson.errors import MissingExtra

if TYPE_CHECKING:
    from tooljson.calls import ToolCall
    from tooljson.providers.adapter import Adapter, CallOperations

__all__ = ["Assembler", "Framing", "Source", "missing"]


class Assembler(Protocol):
    """The assistant content of one response, as a :class:`~tooljson.TurnReader` keeps it beside its
    accumulator (see :mod:`tooljson.providers.content`)."""

    usage: dict[str, Any]
    stopped: bool
    error: dict[str, Any] | None

    @property
    def thinking_chars(self) -> int: ...

    def feed(self, event: Any) -> None: ...

    def set_call(self, call: ToolCall) -> None: ...

    @property
    def content(self) -> list[dict[str, Any]]: ...

    @property
    def text(self) -> str: ...


class Framing(Protocol):
    """A streamed body's bytes to events, for a source whose wire is not server-sent events (Bedrock's
    eventstream). :meth:`feed` returns the events the bytes completed and the error lines the stream
    carried (each ends the response: the reader is interrupted with it)."""

    def feed(self, data: bytes) -> tuple[list[Any], list[str]]: ...


def _no_answer(call: ToolCall, content: Any, is_error: bool, value: Any) -> dict[str, Any]:
    raise ValueError(
        f"calls of {call.provider!r} are not answered by tooljson: its framework sends the results"
    )


@dataclass(frozen=True, eq=False)
class Source:
    """One source of tool calls and everything tooljson knows about it.

    - ``name``: what calls carry as ``provider`` and ``TurnReader.provider`` says; ``title``: how
      messages name it.
    - ``recognise(event)``: whether an event is this source's. Cheap, and never raising: it is asked
      of events of every source, in the registry's order, until one says yes; exact (the source's own
      shapes), since an event no source recognises is refused.
    - ``marks``: dict keys any one of which shows a dict is this source's, once its stream is known
      to be (``type_prefix``: the same for the start of a dict's ``type``); a quick check before
      ``recognise`` on each dict of a long stream.
    - ``assembler(warnings)``: a new content assembler for one response (``warnings``: the reader's
      list of tolerated oddities). ``adapter``: what reads its events for one accumulator.
    - ``hot_path(accumulator, event)``: a function that reads this source's most frequent events
      (argument fragments) in the fewest steps and hands any other event to ``accumulator.route``;
      the registry's default source's is :meth:`tooljson.ToolCallAccumulator.feed` (``None``: the
      accumulator routes every event).
    - ``cut_off``: its words for "the output hit the token limit"; ``refused``: its words for "the
      model made a call that is not one" (Gemini's ``MALFORMED_FUNCTION_CALL``); ``end_event``: the
      event whose absence shows a response did not end.
    - ``answer(call, content, is_error, value)``: a tool result in its shape (``content`` the text,
      ``value`` the JSON value it stands for, for the shapes that carry one).
    - ``check(event)``: what is wrong with a recorded plain-dict event (``None``: nothing).
    - ``stream_paths``: the request paths (regular expressions searched in the path; a ``model``
      group where the path names the model) whose streamed answers, of ``media_type``, the proxy reads; ``framing()``: the decoder of a wire that is not
      server-sent events; ``whole(body)``: the events an answer that was not streamed (parsed JSON)
      stands for, for a source whose whole answers the proxy reads too.
    - ``describe_error(exception)``: an error its client raised while streaming, in a line (``None``
      when it is not one of its). ``stop_reason_of(event)``: the stop reason one of its events
      carries (``None``: none), for a reader of the raw stream that keeps no accumulator (an SDK
      helper watching the chunks it passes on).
    - ``telemetry_name``: who served the stream, in the OpenTelemetry GenAI conventions' words
      (``gen_ai.provider.name``); ``None`` for a framework's stream, which does not say.
    - ``wire``: the module (a dotted path, imported only by the stand-in when it starts) whose
      ``WIRE`` (:class:`tooljson.standin.wire.Wire`) is this source's API as the stand-in speaks it;
      ``None`` for a source the stand-in does not speak (a framework's stream).
    - ``streams``: the module (a dotted path, imported only by tests) that writes this source's
      events for given calls, so that a registered source gets every shared behaviour test:
      ``events(calls, *, cut_off=False)`` (the dicts of one response whose calls stream the given
      argument fragments, stopped normally or at the token limit), ``as_sdk_objects(events)`` (the
      same as its SDK yields them), ``NORMAL_STOP`` and ``CUT_OFF_STOP`` (its stop reasons for the
      two) and ``ARGUMENT_TEXT`` (whether its wire carries arguments as JSON text cut anywhere).
    - ``extra``: the optional part of tooljson that brings ``modules``, what reading it beyond
      ``feed`` needs (``distributions``: the distribution that installs a module, where its name is
      not the module's); ``accelerated``: its SDK's stream helpers are served by
      :func:`tooljson.accelerate` (the ``accelerate`` extra brings its SDK).
    """

    name: str
    title: str
    recognise: Callable[[Any], bool]
    assembler: Callable[[list[str]], Assembler]
    marks: frozenset[str] = frozenset()
    type_prefix: str | None = None
    adapter: type[Adapter] | None = None
    hot_path: Callable[[CallOperations, Any], list[ToolCall]] | None = None
    cut_off: frozenset[str] = frozenset()
    refused: frozenset[str] = frozenset()
    end_event: str = "the end of the response"
    answer: Callable[[ToolCall, Any, bool, Any], dict[str, Any]] = _no_answer
    check: Callable[[dict[str, Any]], str | None] | None = None
    stream_paths: tuple[str, ...] = ()
    media_type: str = "text/event-stream"
    framing: Callable[[], Framing] | None = None
    whole: Callable[[Any], list[Any]] | None = None
    describe_error: Callable[[BaseException], str | None] | None = None
    stop_reason_of: Callable[[Any], str | None] | None = None
    telemetry_name: str | None = None
    wire: str | None = None
    streams: str | None = None
    extra: str | None = None
    modules: tuple[str, ...] = ()
    distributions: dict[str, str] = field(default_factory=dict)
    accelerated: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "_paths", tuple(re.compile(path) for path in self.stream_paths))

    def cuts_off(self, event: Any) -> bool:
        """Whether ``event`` carries this source's word for the token limit as its stop reason."""
        return self.stop_reason_of is not None and self.stop_reason_of(event) in self.cut_off

    def is_cut_off(self, stop_reason: Any) -> bool:
        """Whether ``stop_reason`` is this source's word for the token limit."""
        return stop_reason in self.cut_off

    def streams_at(self, path: str) -> bool:
        """Whether a ``POST`` to ``path`` (without its query) is answered by one of this source's streams."""
        return any(pattern.search(path) is not None for pattern in self._patterns())

    def model_at(self, path: str) -> str | None:
        """The model a request's ``path`` names, for a source whose paths name it (a ``model`` group
        in one of its ``stream_paths``); ``None`` otherwise."""
        for pattern in self._patterns():
            found = pattern.search(path)
            if found is not None and "model" in pattern.groupindex:
                return urllib.parse.unquote(found.group("model"))
        return None

    def require(self, what: str) -> None:
        """Raise :class:`~tooljson.errors.MissingExtra` unless every one of :attr:`modules` can be
        imported; ``what`` names the part that needs them, as the start of the message ("X needs
        langchain-core: pip install 'tooljson[langchain]'"), as :func:`tooljson.extras.require` says it."""
        absent = missing(*self.modules)
        if not absent:
            return
        names = [self.distributions.get(module, module) for module in absent]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        raise MissingExtra(
            f"{what} needs {listed}: pip install 'tooljson[{self.extra or 'all'}]'", name=absent[0]
        )

    def _patterns(self) -> tuple[re.Pattern[str], ...]:
        # Set in __post_init__ on the frozen dataclass, so not a declared field (mypy).
        patterns: tuple[re.Pattern[str], ...] = getattr(self, "_paths")  # noqa: B009
        return patterns


def names(sources: Iterable[Source]) -> tuple[str, ...]:
    """The names of ``sources``, in order."""
    return tuple(source.name for source in sources)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        # A module half-imported or stubbed out in sys.modules counts as absent.
        return False


def missing(*modules: str) -> list[str]:
    """The ones of ``modules`` that cannot be imported."""
    return [module for module in modules if not _installed(module)]
