"""The demo's last part for the openai APIs: the SDK's own stream helper on an accelerated client.

``python -m tooljson demo --provider openai`` (or ``responses``) ends with one request of a scenario
through ``tooljson.accelerate(client).chat.completions.stream(...)`` (or ``responses.stream``)
against the stand-in, the tools declared ``strict``: a line per event kind with how many came, a few
of the previews a call showed while it streamed, each call's value at its ``.done`` event and its
verdict. The scenarios shown are a well-formed one and one whose arguments do not parse, which the
SDK's helper would raise on and the accelerated one reads to the end.
"""

from __future__ import annotations

from collections import Counter
from typing import IO, Any

from tooljson.providers import Provider
from tooljson.standin import StandInServer, get_scenario
from tooljson.standin.clients import first_request, open_client
from tooljson.text import json_excerpt

__all__ = ["HELPER_PROVIDERS", "HELPER_SCENARIOS", "show_accelerated_helper"]

HELPER_PROVIDERS = ("openai", "responses")
"""The sources whose demo ends with the SDK's own stream helper on an accelerated client."""
HELPER_SCENARIOS = ("parallel_calls", "invalid_json")
# Previews shown per call: a few, evenly spread over its deltas.
_PREVIEWS_SHOWN = 4


def _strict(request: dict[str, Any], provider: str) -> dict[str, Any]:
    for tool in request.get("tools", []):
        if tool.get("type") == "function":
            (tool["function"] if provider == "openai" else tool)["strict"] = True
    return request


def _line(value: Any) -> str:
    return json_excerpt(value, 72)


def show_accelerated_helper(provider: Provider, name: str, out: IO[str]) -> None:
    """Stream ``name``'s first request through ``provider``'s accelerated helper and print what it gave."""
    import logging

    import tooljson

    scenario = get_scenario(name)
    request = _strict(first_request(scenario, provider), provider)
    helper = "chat.completions.stream" if provider == "openai" else "responses.stream"
    print(f"\n{name}: {helper}(...) on tooljson.accelerate(client), the tools strict", file=out)
    kinds: Counter[str] = Counter()
    previews: dict[Any, list[Any]] = {}
    done: list[str] = []
    # The warning the accelerated stream logs for arguments that do not parse goes to the demo's output.
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("  warning: %(message)s"))
    logger = logging.getLogger("tooljson")
    logger.addHandler(handler)
    try:
        with StandInServer(scenario, seed=0) as server, open_client(provider, server.base_url) as client:
            accelerated = tooljson.accelerate(client)
            manager = (
                accelerated.chat.completions.stream(**request)
                if provider == "openai"
                else accelerated.responses.stream(**request)
            )
            with manager as stream:
                for event in stream:
                    kinds[event.type] += 1
                    if event.type == "tool_calls.function.arguments.delta":
                        previews.setdefault(event.index, []).append(_line(event.parsed_arguments))
                    elif event.type == "response.function_call_arguments.delta":
                        block = next(b for b in stream.turn.blocks if b.key == event.output_index)
                        previews.setdefault(event.output_index, []).append(
                            _line(stream.turn.accumulator.preview(block.index))
                        )
                    elif event.type == "tool_calls.function.arguments.done":
                        done.append(
                            f"  call {event.index} {event.name}: parsed_arguments = {_line(event.parsed_arguments)}"
                        )
            turn, calls = stream.turn, stream.tool_calls
    finally:
        logger.removeHandler(handler)
    print("  events: " + ", ".join(f"{kind} ×{count}" for kind, count in kinds.items()), file=out)
    for index, shown in previews.items():
        step = max(1, len(shown) // _PREVIEWS_SHOWN)
        print(f"  call {index} while it streamed, {len(shown)} previews, a few of them:", file=out)
        for preview in shown[step - 1 :: step][:_PREVIEWS_SHOWN]:
            print(f"    {preview}", file=out)
    for line in done:
        print(line, file=out)
    for call in calls:
        print(f"  call {call.name} ({call.id}): {turn.state(call)}", file=out)
