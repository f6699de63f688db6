"""pydantic-ai's stream events to calls.

What ``agent.run_stream_events(...)`` yields and an ``event_stream_handler`` receives, whatever model
is behind it: ``PartStartEvent`` with a ``ToolCallPart`` begins a call (``tool_call_id``,
``tool_name``, and perhaps its first ``args``); ``PartDeltaEvent`` with a ``ToolCallPartDelta``
brings ``args_delta`` (a piece of JSON text), and perhaps more of the name (``tool_name_delta``) or
the id; ``PartEndEvent`` ends it. Calls are keyed by the part's ``index`` in its model response.

One run spans several model responses (the model calls tools, gets their results, answers again),
and part indexes restart at each: a ``PartStartEvent`` whose index is not above the highest one of
the response being read begins the next response, unless that part is still open (a second start
for an open part replaces it, and a call replaced so ends where it stood). Calls of earlier responses stay in ``calls``
(``ToolCall.key`` is ``(response number, part index)``, counted from 0); any left open then end
where they stand.

pydantic-ai 2.78 stamps each of these events with its ``origin`` (the run, the request step, and which attempt
and execution of that step streamed it). There a start of another origin begins the next response, and the
events of a response that a later attempt or execution of the same step replaced (``supersedes``: they can
still arrive after their successor's) are dropped, as pydantic-ai tells its consumers to. Without an origin
the restart of part indexes above is the only sign.

A model that gives arguments as a dict (pydantic-ai merges dict ``args_delta`` s key by key) has
them taken whole: the merged dict becomes the call's text (``json.dumps``) when the call ends, so
its preview stays empty until then.

The events carry no stop reason: from them alone a call cut off at the token limit is
``incomplete`` (``is_invalid``), never ``truncated``. pydantic-ai itself raises ``IncompleteToolCall``
at the end of such a run, which is where that reason shows.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tooljson.errors import MalformedEvent
from tooljson.providers.adapter import Adapter, CallOperations
from tooljson.providers.content import ContentAssembler
from tooljson.providers.source import Source

if TYPE_CHECKING:
    from tooljson.calls import ToolBlock, ToolCall

__all__ = ["SOURCE", "PydanticAIAdapter", "PydanticAIAssembler", "recognise"]


def recognise(event: Any) -> bool:
    """Whether ``event`` is one of pydantic-ai's stream events (they say their ``event_kind``)."""
    fields = getattr(event, "__dict__", None)
    return isinstance(fields, dict) and isinstance(fields.get("event_kind"), str)


class PydanticAIAdapter(Adapter):
    """pydantic-ai stream events, read for one accumulator; keeps which model response of the run is
    being read, its highest part index, its calls, and the dict arguments taken whole."""

    provider = "pydantic-ai"

    def __init__(self, calls: CallOperations) -> None:
        super().__init__(calls)
        self.response = 0
        self._highest = -1
        self._current: list[ToolBlock] = []
        # Part indexes (of any kind) started and not ended in the response being read.
        self._unended: set[int] = set()
        self._whole: dict[Any, dict[str, Any]] = {}
        self._origin: Any = None
        # (run_id, run_step) -> the latest (attempt, execution_attempt) seen for that step.
        self._latest: dict[tuple[Any, Any], tuple[Any, Any]] = {}

    def reset(self) -> None:
        self.response = 0
        self._highest = -1
        self._current = []
        self._unended = set()
        self._whole = {}
        self._origin = None
        self._latest = {}

    def feed(self, event: Any) -> list[ToolCall]:
        """Apply one event (events other than parts' pass); return the calls it ended."""
        kind = event.event_kind
        origin = getattr(event, "origin", None)
        if origin is not None and self._superseded(origin):
            return []
        if kind == "part_delta":
            delta = event.delta
            if delta.part_delta_kind != "tool_call":
                return []
            block = self.calls.open_call((self.response, event.index))
            if block is None:
                self.calls.warnings.append(
                    f"a tool call delta for part {event.index!r}, which is not an open call: ignored"
                )
                return []
            if delta.tool_name_delta:
                block.name += delta.tool_name_delta
            if delta.tool_call_id and not block.id:
                block.id = delta.tool_call_id
            self._arguments(block, delta.args_delta)
            return []
        if kind == "part_start":
            finished: list[ToolCall] = []
            if origin is not None and self._origin is not None and origin != self._origin:
                finished = self._next_response()
            elif event.index <= self._highest and event.index not in self._unended:
                finished = self._next_response()
            if origin is not None:
                self._origin = origin
            self._highest = max(self._highest, event.index)
            self._unended.add(event.index)
            part = event.part
            if part.part_kind != "tool-call":
                return finished
            key = (self.response, event.index)
            if self.calls.open_call(key) is not None:
                # "A new start for the same index replaces the part": the first one ends as it stands.
                finished += self._end(key)
            block = self.calls.begin_call(self.provider, key, part.tool_call_id, part.tool_name, "tool-call")
            self._current.append(block)
            self._arguments(block, part.args)
            return finished
        if kind == "part_end":
            self._unended.discard(event.index)
            return self._end((self.response, event.index))
        return []

    def _superseded(self, origin: Any) -> bool:
        """Whether a later attempt or execution of ``origin``'s request step has been seen (noting
        ``origin`` as the latest when it is)."""
        step = (origin.run_id, origin.run_step)
        rank = (origin.attempt, origin.execution_attempt)
        latest = self._latest.get(step)
        if latest is not None and latest > rank:
            return True
        self._latest[step] = rank
        return False

    def _arguments(self, block: ToolBlock, arguments: Any) -> None:
        if isinstance(arguments, str):
            if arguments:
                self.calls.add_fragment(block, arguments)
        elif isinstance(arguments, dict):
            self._whole.setdefault(block.key, {}).update(arguments)
        elif arguments is not None:
            raise MalformedEvent(f"tool call arguments must be str or dict, not {type(arguments).__name__}")

    def _end(self, key: Any) -> list[ToolCall]:
        whole = self._whole.pop(key, None)
        block = self.calls.open_call(key)
        if whole is not None and block is not None:
            try:
                text = json.dumps(whole, ensure_ascii=False)
            except (TypeError, ValueError) as error:
                raise MalformedEvent(
                    f"the arguments of part {key[1]!r} are not JSON data: {error}"
                ) from error
            self.calls.add_fragment(block, text)
        call = self.calls.end_call(key)
        return [] if call is None else [call]

    def _next_response(self) -> list[ToolCall]:
        """The run moved on to its next model response: what the last one left open ends."""
        finished: list[ToolCall] = []
        for block in self._current:
            if self.calls.open_call(block.key) is block:
                finished += self._end(block.key)
        self.response += 1
        self._highest = -1
        self._current = []
        self._unended = set()
        return finished


class PydanticAIAssembler(ContentAssembler):
    """pydantic-ai events: text parts by part index (the events never say the response ended).
    ``content`` is LangChain's standard content blocks, as for LangChain streams."""

    def feed(self, event: Any) -> None:
        kind = getattr(event, "event_kind", None)
        if kind in ("part_start", "part_delta"):
            part = event.part if kind == "part_start" else event.delta
            part_kind = getattr(part, "part_kind", None) or getattr(part, "part_delta_kind", None)
            if part_kind == "text":
                self._piece(
                    event.index, getattr(part, "content", None) or getattr(part, "content_delta", None)
                )

    @property
    def content(self) -> list[dict[str, Any]]:
        return self.standard_content()


def _answer(call: ToolCall, content: Any, is_error: bool, value: Any) -> dict[str, Any]:
    raise ValueError(
        "pydantic-ai runs its tools and sends their results itself: a call it streamed is not answered by tooljson"
    )


SOURCE = Source(
    name="pydantic-ai",
    title="pydantic-ai",
    recognise=recognise,
    adapter=PydanticAIAdapter,
    assembler=PydanticAIAssembler,
    # pydantic-ai's stream events carry no stop reason: nothing there says a call was cut off.
    cut_off=frozenset(),
    end_event="the end of the run",
    answer=_answer,
    streams="tooljson.frameworks.pydantic_ai.streams",
    extra="pydantic-ai",
    modules=("pydantic_ai",),
    distributions={"pydantic_ai": "pydantic-ai-slim"},
)
