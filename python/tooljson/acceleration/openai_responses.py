"""The ``openai`` Responses helper's state, with every call's arguments read once by a turn reader.

The SDK's ``ResponseStreamState`` concatenates a function call's arguments and builds a
``response.function_call_arguments.delta`` event per fragment through the SDK's generic model
construction; at ``response.completed`` it parses each strict tool's arguments with ``json.loads``
(a pydantic tool's with pydantic), and a strict tool's malformed arguments raise there.
:class:`AcceleratedResponseStreamState` hands every event to a :class:`~tooljson.TurnReader` first
(one scan of each fragment: ``stream.turn`` has the preview and the verdicts), adds an argument
fragment to the snapshot and makes its event directly, and leaves every other event to the SDK's
own code. A strict tool whose arguments did not parse leaves the stream going: its
``parsed_arguments`` in the final response is ``None``, the reader's verdict says why and one warning
on the ``"tooljson"`` logger names the call.
"""

from __future__ import annotations

from typing import Any

from openai._models import build
from openai.lib._parsing._responses import parse_response
from openai.lib.streaming.responses import _responses as sdk_responses
from openai.lib.streaming.responses._events import ResponseFunctionCallArgumentsDeltaEvent

from tooljson.acceleration.models import model_maker
from tooljson.acceleration.reporting import UnparsedReport
from tooljson.turn import TurnReader

__all__ = ["AcceleratedResponseStreamState"]

_DELTA_TYPE = "response.function_call_arguments.delta"
# The fields the SDK gives the delta event, in the class's order; the fast way needs every field given.
_DELTA_FIELDS = ("delta", "item_id", "output_index", "sequence_number", "type", "snapshot")
_arguments_delta = (
    model_maker(ResponseFunctionCallArgumentsDeltaEvent, build, ("d", "fc_1", 0, 3, _DELTA_TYPE, "d"))
    if tuple(ResponseFunctionCallArgumentsDeltaEvent.model_fields) == _DELTA_FIELDS
    else None
)


class AcceleratedResponseStreamState(sdk_responses.ResponseStreamState[Any]):
    """``ResponseStreamState`` with each call's arguments read once (see the module's docstring)."""

    def __init__(self, *, input_tools: Any, text_format: Any, reader: TurnReader) -> None:
        super().__init__(input_tools=input_tools, text_format=text_format)
        self.reader = reader
        self._report = UnparsedReport(
            reader,
            "arguments of %s %r (call id %s, output %s) are %s; the stream goes on and parsed_arguments is None",
        )

    def handle_event(self, event: Any) -> list[Any]:
        calls = self.reader.feed(event)
        if calls:
            self._report.report(calls)
        kind = event.type
        if kind == _DELTA_TYPE and _arguments_delta is not None:
            output = self._output_items.get(event.output_index)
            if output is not None and output.type == "function_call" and isinstance(event.delta, str):
                output.arguments += event.delta
                return [
                    _arguments_delta(
                        event.delta,
                        event.item_id,
                        event.output_index,
                        event.sequence_number,
                        _DELTA_TYPE,
                        output.arguments,
                    )
                ]
        if kind == "response.completed":
            return self._complete(event)
        return super().handle_event(event)

    def _complete(self, event: Any) -> list[Any]:
        """``response.completed`` by the SDK's code, without parsing again arguments that did not parse."""
        unparsed = {
            call.id for call in self.reader.calls if not call.ok and call.block_type == "function_call"
        }
        if not unparsed:
            return super().handle_event(event)
        tools = self._input_tools
        names = {call.name for call in self.reader.calls if call.id in unparsed}
        # The SDK parses the arguments of the tools it is given: the names with a call that did not
        # parse are left out, and their calls that did parse get the SDK's value afterwards.
        self._input_tools = [tool for tool in tools if tool.get("name") not in names]
        try:
            events = super().handle_event(event)
        finally:
            self._input_tools = tools
        response: Any = self._completed_response
        if response is not None:
            for item in response.output:
                if item.type == "function_call" and item.name in names and item.call_id not in unparsed:
                    parsed: Any = parse_response(
                        text_format=self._text_format, input_tools=tools, response=_only(response, item)
                    )
                    item.parsed_arguments = parsed.output[0].parsed_arguments
        return events


def _only(response: Any, item: Any) -> Any:
    """A copy of ``response`` whose output is ``item`` alone."""
    copy = response.model_copy()
    copy.output = [item]
    return copy
