"""The OpenAI Agents SDK: its run stream read as calls, and the one line that makes its tool calls safe.

Reading. ``Runner.run_streamed(...).stream_events()`` yields three kinds of event:
``RawResponsesStreamEvent`` (``type == "raw_response_event"``), whose ``data`` is a Responses stream
event, whichever model made it; ``RunItemStreamEvent`` and ``AgentUpdatedStreamEvent``, which say
what the run did with what the model sent and bring no argument text: they pass. The ``data`` are
read by :class:`~tooljson.providers.responses.ResponsesAdapter`'s own code: :class:`AgentsAdapter`
only unwraps them and says what differs in a run.

* One run is several model responses (each opens with ``response.created``). One reader takes a
  whole run: ``response.created`` begins the next response without dropping the calls of the
  earlier ones (``ToolCall.key`` is ``(response number, output_index)``, counted from 0), and each
  call's verdict follows the stop of its own response. A call the last response left open when
  the next one begins ends where it stands.
* The Responses model (``OpenAIResponsesModel``) passes the server's events on: a call cut off at
  the token limit is followed by ``response.incomplete`` with ``max_output_tokens``, so it is
  *truncated*; the SDK then ends the run with ``ModelBehaviorError``, after yielding that event.
* The Chat Completions model (``OpenAIChatCompletionsModel``, and LiteLLM's model in the SDK)
  rewrites chunks into Responses events: every item's id is ``"__fake_id__"`` (calls are told apart
  by ``output_index``, never by that id), a call ends at ``response.output_item.done`` (there is no
  ``function_call_arguments.done``), and ``response.completed`` comes even after
  ``finish_reason: "length"``: the stop reason is lost on the way, so a cut-off call is
  *incomplete* (``is_invalid``), never *truncated*, and never *malformed*: its text is a valid
  prefix.

Safety. The SDK parses a call's arguments once, with ``json.loads``, just before it runs the tool
(``tool.py``, ``_parse_function_tool_json_input``); text that does not parse raises
``ModelBehaviorError``, which the default failure handler answers with "An error occurred while
running the tool. Please try again." That text does not tell the model what it got wrong, and a
call cut off on the Chat Completions model gets the same answer and the run goes on.
:func:`guard` (``agent = guard(agent)``) gives every function tool of an agent a tool input
guardrail, :func:`arguments_guardrail`, which the SDK runs before it parses anything:

* arguments that parse strictly (or are empty, which the SDK takes as ``{}``) pass unchanged;
* malformed arguments are answered, without running the tool, with the ``INVALID_JSON``
  convention and where the text went wrong: ``{"INVALID_JSON": "<the raw text>", "error":
  "invalid escape: line 1 column 37 (char 36)"}``;
* arguments that end before they are whole (cut off) are never run and never answered with
  ``INVALID_JSON``: the run ends with ``ModelBehaviorError``, as the SDK ends it itself on the
  Responses model's ``response.incomplete``, with a message that says so and to raise
  ``max_tokens``.

Nothing here imports the SDK at import time: events are read by attribute or by key.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from tooljson import _native
from tooljson.errors import IncompleteJSONError, MalformedEvent
from tooljson.invalid_json import invalid_json_text
from tooljson.providers import Provider, event_field
from tooljson.providers.adapter import CallOperations
from tooljson.providers.responses import ResponsesAdapter, ResponsesAssembler
from tooljson.providers.responses import check_event as check_responses_event
from tooljson.providers.source import Source

if TYPE_CHECKING:
    from tooljson.calls import ToolBlock, ToolCall

__all__ = [
    "AGENT_EVENT_TYPES",
    "AgentsAdapter",
    "AgentsAssembler",
    "SOURCE",
    "arguments_guardrail",
    "check_arguments",
    "check_recorded",
    "guard",
]

AGENT_EVENT_TYPES = frozenset({"raw_response_event", "run_item_stream_event", "agent_updated_stream_event"})
"""The ``type`` of every event ``stream_events()`` yields."""

_RAW = "raw_response_event"


def recognise(event: Any) -> bool:
    """Whether ``event`` is one the SDK's ``stream_events()`` yields (never raising, whatever ``type`` holds)."""
    kind = event_field(event, "type")
    return type(kind) is str and kind in AGENT_EVENT_TYPES


def _data(event: Any) -> Any:
    data = event_field(event, "data")
    if data is None:
        raise MalformedEvent("a raw_response_event without data")
    return data


class AgentsAdapter(ResponsesAdapter):
    """The SDK's stream events, read for one accumulator over a whole run: the Responses events
    they carry are read by :class:`~tooljson.providers.responses.ResponsesAdapter`, keyed by
    ``(response number, output_index)``; keeps which response is being read and how each stopped."""

    provider: Provider = "openai-agents"

    def __init__(self, calls: CallOperations) -> None:
        super().__init__(calls)
        self.response = 0
        # Whether an event of the response being read has been seen (a response.created after
        # one begins the next response).
        self._begun = False
        self._stop_reasons: dict[int, str] = {}

    def reset(self) -> None:
        super().reset()
        self.response = 0
        self._begun = False
        self._stop_reasons = {}

    def feed(self, event: Any) -> list[ToolCall]:
        """Apply one event (run-item and agent-updated events pass); return the calls it ended."""
        kind = event_field(event, "type")
        if kind == _RAW:
            finished = super().feed(_data(event))
            self._begun = True
            return finished
        if not (type(kind) is str and kind in AGENT_EVENT_TYPES):
            self.calls.warnings.append(f"unknown Agents SDK stream event type {kind!r}: ignored")
        return []

    def begins_response(self, event: Any) -> bool:
        # One reader reads a whole run: no event of it begins another reader's response.
        return False

    def key(self, output_index: Any) -> Any:
        return (self.response, output_index)

    def created(self) -> list[ToolCall]:
        """The run's next model response begins: what the last one left open ends where it stands."""
        finished: list[ToolCall] = []
        if self._begun:
            for block in self._open_blocks():
                call = self.calls.end_call(block.key)
                if call is not None:
                    finished.append(call)
            self.response += 1
        self._by_item.clear()
        return finished

    def stopped(self, reason: str) -> list[ToolCall]:
        self._stop_reasons[self.response] = reason
        return self.calls.stop_response(reason, blocks=self._open_blocks())

    def stop_reason_for(self, call: ToolCall | ToolBlock) -> str | None:
        """The stop reason of the call's own response."""
        key = call.key
        return self._stop_reasons.get(key[0]) if isinstance(key, tuple) else None

    def _open_blocks(self) -> list[ToolBlock]:
        """The calls of the response being read that are still open."""
        return [
            block
            for block in self.calls.blocks
            if block.provider == self.provider
            and block.key[0] == self.response
            and self.calls.open_call(block.key) is block
        ]


class AgentsAssembler(ResponsesAssembler):
    """The content of a run: the Responses output items of every model response, in order (text
    and calls keyed by ``(response number, output_index)``); ``stopped`` says whether the latest
    response ended."""

    def __init__(self, warnings: list[str] | None = None) -> None:
        super().__init__(warnings)
        self.response = 0
        self._begun = False

    def feed(self, event: Any) -> None:
        if event_field(event, "type") != _RAW:
            return
        data = _data(event)
        if event_field(data, "type") == "response.created":
            if self._begun:
                self.response += 1
            self.stopped = False
        self._begun = True
        super().feed(data)

    def position(self, event: Any) -> Any:
        return (self.response, event_field(event, "output_index"))


# --- the safety line


def check_arguments(tool_name: str, call_id: str, arguments: str) -> str | None:
    """What to answer a call with instead of running it: ``None`` when its arguments parse strictly
    (or are empty, which the SDK reads as ``{}``), the ``INVALID_JSON`` text when they are malformed.

    Raises the SDK's ``ModelBehaviorError`` when they end before they are whole: a call cut off is
    never run, and answering it as broken JSON would not tell the model it ran out of tokens.
    """
    if not arguments:
        return None
    try:
        _native.loads(arguments)
    except IncompleteJSONError as error:
        from agents.exceptions import ModelBehaviorError

        raise ModelBehaviorError(
            f"the arguments of tool call {tool_name!r} (id {call_id}) end before they are whole, after "
            f"{len(arguments)} characters ({error.msg}): the output was cut off, most likely at the "
            "token limit; raise ModelSettings.max_tokens and run again"
        ) from error
    except ValueError as error:
        # A JSONDecodeError subclass with its position; a plain ValueError past the digit limit.
        return invalid_json_text(arguments, error)
    return None


def _check(data: Any) -> Any:
    from agents.tool_guardrails import ToolGuardrailFunctionOutput

    context = data.context
    answer = check_arguments(context.tool_name, context.tool_call_id, context.tool_arguments)
    if answer is None:
        return ToolGuardrailFunctionOutput.allow()
    # What the run's tool_input_guardrail_results keep: the verdict, in tooljson's word.
    return ToolGuardrailFunctionOutput.reject_content(answer, output_info="malformed")


_GUARDRAIL_NAME = "tooljson_arguments"


def arguments_guardrail() -> Any:
    """The tool input guardrail :func:`guard` adds, for one tool: ``function_tool(...,
    tool_input_guardrails=[arguments_guardrail()])``. Needs ``openai-agents`` (the ``agents`` extra)."""
    SOURCE.require("tooljson.frameworks.openai_agents.arguments_guardrail()")
    from agents.tool_guardrails import ToolInputGuardrail

    return ToolInputGuardrail(guardrail_function=_check, name=_GUARDRAIL_NAME)


def guard(agent: Any) -> Any:
    """A copy of ``agent`` whose function tools each check their arguments before the SDK parses
    them (:func:`arguments_guardrail`, first among the tool's input guardrails): malformed
    arguments are answered with ``INVALID_JSON`` and where they went wrong, and a cut-off call
    ends the run with ``ModelBehaviorError`` instead of running. The tools are copied, so the
    originals (and other agents holding them) are unchanged; other tools, handoffs and MCP tools
    are left as they are (guard each agent a run can hand off to). Guarding twice adds nothing.
    Needs ``openai-agents`` (the ``agents`` extra)."""
    SOURCE.require("tooljson.frameworks.openai_agents.guard()")
    from agents import FunctionTool

    guardrail = arguments_guardrail()
    tools = []
    for tool in agent.tools:
        present = list(tool.tool_input_guardrails or []) if isinstance(tool, FunctionTool) else None
        if present is None or any(getattr(each, "name", None) == _GUARDRAIL_NAME for each in present):
            tools.append(tool)
            continue
        guarded = copy.copy(tool)
        guarded.tool_input_guardrails = [guardrail, *present]
        tools.append(guarded)
    return agent.clone(tools=tools)


def check_recorded(event: dict[str, Any]) -> str | None:
    """What is wrong with a recorded event of a run (the SDK's event as a plain dict, its ``data``
    the Responses event's), or ``None``."""
    kind = event.get("type")
    if kind == _RAW:
        data = event.get("data")
        if not isinstance(data, dict):
            return "a raw_response_event without its data (a Responses event as an object)"
        return check_responses_event(data)
    return (
        None
        if type(kind) is str and kind in AGENT_EVENT_TYPES
        else f"not an event of the Agents SDK's run stream: type {kind!r}"
    )


def _describe_error(error: BaseException) -> str | None:
    # The SDK's own errors end a run: its ModelBehaviorError says why in its message.
    if type(error).__module__.startswith("agents."):
        return f"{type(error).__name__}: {error}"
    return None


SOURCE = Source(
    name="openai-agents",
    title="the Agents SDK",
    recognise=recognise,
    adapter=AgentsAdapter,
    assembler=AgentsAssembler,
    # What the Responses model passes on; the Chat Completions model passes on no stop reason at all.
    cut_off=frozenset({"max_output_tokens"}),
    end_event="response.completed",
    check=check_recorded,
    describe_error=_describe_error,
    streams="tooljson.frameworks.openai_agents.streams",
    extra="agents",
    modules=("agents",),
    distributions={"agents": "openai-agents"},
)
