"""LangChain, LangGraph and pydantic-ai streams through the reader, with the real frameworks against
the stand-in over loopback.

ChatAnthropic (the stand-in's Messages endpoint) and ChatOpenAI (its Chat Completions and Responses
endpoints) are streamed sync and async; every chunk goes to a ``TurnReader``. After every chunk each open call's
preview follows the stable-preview rules; at the end ``reader.message()`` equals LangChain's own
merge of all chunks (``add_ai_message_chunks``, compared by ``model_dump``) except ``tool_calls`` /
``invalid_tool_calls``, which hold what the strict parse of each call's joined arguments (the
oracle: ``json.loads``) says: valid calls only when it parsed to an object, every other one invalid
with the reason. pydantic-ai's Anthropic model runs an agent on the same scenarios.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import anthropic
import pytest

pytest.importorskip("langchain_anthropic")
pytest.importorskip("langchain_openai")
pytest.importorskip("pydantic_ai")
pytest.importorskip("langgraph")

from helper_streams import assert_grows
from helpers import assert_same_json, expected_input
from langchain_anthropic import ChatAnthropic
from langchain_core.messages.ai import AIMessageChunk, add_ai_message_chunks
from langchain_openai import ChatOpenAI
from tooljson.standin import StandInServer, get_scenario
from tooljson.standin.scenario import Scenario
from tooljson.turn import TurnReader

# ChatOpenAI on Chat Completions ("openai") and on the Responses API ("openai-responses", whose stream
# langchain-openai 1.8 completes from function_call_arguments.done when argument deltas were skipped).
MODELS = ("anthropic", "openai", "openai-responses")
SCENARIOS = ("parallel_calls", "max_tokens", "invalid_json", "whole_arguments", "empty_input")
# What LangChain's tool_calls say of each call and what tooljson's say (the documented difference).
CUT_OFF = {
    "max_tokens": {"anthropic": "max_tokens", "openai": "length", "openai-responses": "max_output_tokens"}
}


def _function_tools(scenario: Scenario) -> list[dict[str, Any]]:
    return [tool for tool in scenario.tools if "input_schema" in tool]


def chat_model(kind: str, server: StandInServer, scenario: Scenario) -> Any:
    """The framework's model on the stand-in, with the scenario's tools bound in the model's own format."""
    tools = _function_tools(scenario)
    if kind == "anthropic":
        llm: Any = ChatAnthropic(  # type: ignore[call-arg]
            model="claude-standin",
            base_url=server.base_url,
            api_key="key",
            max_tokens=scenario.first_max_tokens,
        )
        return llm.bind_tools(tools)
    llm = ChatOpenAI(
        model="gpt-standin",
        base_url=server.base_url + "/v1",
        api_key="key",
        max_tokens=scenario.first_max_tokens,
        use_responses_api=kind == "openai-responses",
    )  # type: ignore[arg-type]
    return llm.bind_tools(
        [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t["description"],
                    "parameters": t["input_schema"],
                },
            }
            for t in tools
        ]
    )


class Followed:
    """A stream followed chunk by chunk: the chunks, and every open call's preview after each."""

    def __init__(self) -> None:
        self.reader = TurnReader()
        self.chunks: list[Any] = []
        self.previews: dict[Any, list[Any]] = {}

    def take(self, chunk: Any) -> None:
        self.chunks.append(chunk[0] if isinstance(chunk, tuple) else chunk)
        self.reader.feed(chunk)
        accumulator = self.reader.accumulator
        for block in self.reader.blocks:
            if block.call is None and block.chars:
                self.previews.setdefault(block.key, []).append(
                    copy.deepcopy(accumulator.preview(block.index))
                )


def _followed_sync(kind: str, name: str) -> Followed:
    scenario = get_scenario(name)
    followed = Followed()
    with StandInServer(scenario) as server:
        for chunk in chat_model(kind, server, scenario).stream(scenario.prompt):
            followed.take(chunk)
        assert server.failures == []
    return followed


def _followed_async(kind: str, name: str) -> Followed:
    scenario = get_scenario(name)
    followed = Followed()

    async def run(server: StandInServer) -> None:
        async for chunk in chat_model(kind, server, scenario).astream(scenario.prompt):
            followed.take(chunk)

    with StandInServer(scenario) as server:
        asyncio.run(run(server))
        assert server.failures == []
    return followed


def check_followed(followed: Followed, kind: str, name: str) -> None:
    """Previews grew; the message is LangChain's merged one with the strict verdict on every call."""
    reader = followed.reader
    merged = add_ai_message_chunks(followed.chunks[0], *followed.chunks[1:])
    message = reader.message()
    assert type(message) is AIMessageChunk
    ours, theirs = message.model_dump(), merged.model_dump()
    for field in ("tool_calls", "invalid_tool_calls"):
        ours.pop(field), theirs.pop(field)
    assert ours == theirs
    valid = {call["id"]: call for call in message.tool_calls}
    invalid = {call["id"]: call for call in message.invalid_tool_calls}
    assert len(valid) + len(invalid) == len(merged.tool_call_chunks) == len(reader.calls)
    cut_off_word = CUT_OFF.get(name, {}).get(kind)
    for piece in merged.tool_call_chunks:
        oracle = expected_input(piece["args"] or "")
        call = next(call for call in reader.calls if call.id == piece["id"])
        # Parallel calls never mix: each call holds exactly its own pieces.
        assert call.raw_json == (piece["args"] or "") and call.name == piece["name"]
        previews = followed.previews.get(call.key, [])
        for before, after in zip(previews, previews[1:]):
            assert_grows(before, after, whole_strings=False)
        if oracle.accepted and isinstance(oracle.value, dict):
            assert piece["id"] in valid and piece["id"] not in invalid
            assert_same_json(valid[piece["id"]]["args"], oracle.value)
            for preview in previews:
                assert_grows(preview, oracle.value, whole_strings=False)
            continue
        assert piece["id"] in invalid and piece["id"] not in valid
        entry = invalid[piece["id"]]
        assert entry["args"] == piece["args"] and entry["name"] == piece["name"]
        if cut_off_word is not None:
            assert reader.state(call) == "truncated" and reader.stop_reason == cut_off_word
            assert entry["error"].startswith("cut off at the token limit")
        else:
            assert reader.state(call) == "malformed" and entry["error"].startswith("malformed: ")


@pytest.mark.parametrize("kind", MODELS)
@pytest.mark.parametrize("name", SCENARIOS)
def test_langchain_stream_through_the_reader(kind: str, name: str) -> None:
    check_followed(_followed_sync(kind, name), kind, name)


@pytest.mark.parametrize("kind", MODELS)
@pytest.mark.parametrize("name", ("parallel_calls", "max_tokens", "invalid_json"))
def test_langchain_astream_through_the_reader(kind: str, name: str) -> None:
    check_followed(_followed_async(kind, name), kind, name)


def test_a_cut_off_call_langchain_calls_valid_is_invalid_here() -> None:
    followed = _followed_sync("anthropic", "max_tokens")
    merged = add_ai_message_chunks(followed.chunks[0], *followed.chunks[1:])
    # LangChain's partial parse closes the cut-off text and calls it valid; tooljson does not.
    assert [call["name"] for call in merged.tool_calls] == ["write_note"]
    message = followed.reader.message()
    assert message.tool_calls == []
    assert [call["name"] for call in message.invalid_tool_calls] == ["write_note"]


def _graph(kind: str, server: StandInServer, scenario: Scenario) -> Any:
    from langgraph.graph import END, START, MessagesState, StateGraph

    model = chat_model(kind, server, scenario)

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_edge(START, "model")
    graph.add_edge("model", END)
    return graph.compile()


@pytest.mark.parametrize("kind", MODELS)
def test_langgraph_messages_mode_pairs(kind: str) -> None:
    scenario = get_scenario("parallel_calls")
    followed = Followed()
    with StandInServer(scenario) as server:
        stream = _graph(kind, server, scenario).stream(
            {"messages": [("user", scenario.prompt)]}, stream_mode="messages"
        )
        for pair in stream:
            assert isinstance(pair, tuple) and len(pair) == 2
            if isinstance(pair[0], AIMessageChunk):
                followed.take(pair)
            else:
                followed.reader.feed(pair)  # the node's other messages pass without effect
    assert [followed.reader.state(call) for call in followed.reader.calls] == ["complete", "complete"]
    check_followed(followed, kind, "parallel_calls")


# --- pydantic-ai


def _agent(client: Any, scenario: Scenario) -> Any:
    """An agent with the scenario's tools on pydantic-ai's Anthropic model, speaking through ``client``
    (an ``AsyncAnthropic`` the test closes)."""
    from pydantic_ai import Agent, Tool
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider
    from pydantic_ai.settings import ModelSettings

    def tool_for(name: str) -> Any:
        def run(**arguments: Any) -> str:
            return f"{name} done"

        return run

    tools = [
        Tool.from_schema(
            tool_for(t["name"]), name=t["name"], description=t["description"], json_schema=t["input_schema"]
        )
        for t in _function_tools(scenario)
    ]
    model = AnthropicModel("claude-standin", provider=AnthropicProvider(anthropic_client=client))
    return Agent(model, tools=tools, model_settings=ModelSettings(max_tokens=scenario.first_max_tokens))


def _agent_events(name: str) -> tuple[list[Any], TurnReader]:
    scenario = get_scenario(name)
    reader = TurnReader()
    events: list[Any] = []
    previews: dict[Any, list[Any]] = {}

    async def run(server: StandInServer) -> None:
        async with anthropic.AsyncAnthropic(base_url=server.base_url, api_key="key") as client:
            async with _agent(client, scenario).run_stream_events(scenario.prompt) as stream:
                async for event in stream:
                    events.append(event)
                    reader.feed(event)
                    for block in reader.blocks:
                        if block.call is None and block.chars:
                            previews.setdefault(block.key, []).append(
                                copy.deepcopy(reader.accumulator.preview(block.index))
                            )

    with StandInServer(scenario) as server:
        asyncio.run(run(server))
    for snapshots in previews.values():
        for before, after in zip(snapshots, snapshots[1:]):
            assert_grows(before, after, whole_strings=False)
    return events, reader


def _joined_arguments(events: list[Any]) -> dict[tuple[int, int], str]:
    """Each tool call's arguments joined straight from the events, keyed by (response, part index)."""
    joined: dict[tuple[int, int], str] = {}
    response, highest = 0, -1
    for event in events:
        if event.event_kind == "part_start":
            if event.index <= highest:
                response, highest = response + 1, -1
            highest = max(highest, event.index)
            if event.part.part_kind == "tool-call":
                joined[(response, event.index)] = event.part.args if isinstance(event.part.args, str) else ""
        elif event.event_kind == "part_delta" and event.delta.part_delta_kind == "tool_call":
            joined[(response, event.index)] += event.delta.args_delta or ""
    return joined


@pytest.mark.parametrize("name", ("parallel_calls", "invalid_json", "max_tokens"))
def test_pydantic_ai_events_through_the_reader(name: str) -> None:
    events, reader = _agent_events(name)
    joined = _joined_arguments(events)
    assert {call.key for call in reader.calls} == set(joined)
    for call in reader.calls:
        oracle = expected_input(joined[call.key])
        assert call.raw_json == joined[call.key]
        if oracle.accepted:
            assert_same_json(call.input, oracle.value)
            assert reader.state(call) == "complete"
        else:
            # No stop reason in pydantic-ai's events: a cut-off call is incomplete, never truncated.
            assert reader.state(call) in ("incomplete", "malformed") and reader.accumulator.is_invalid(call)


def test_pydantic_ai_calls_of_earlier_responses_stay() -> None:
    events, reader = _agent_events("parallel_calls")
    responses = {call.key[0] for call in reader.calls}
    starts = [event for event in events if event.event_kind == "part_start"]
    assert starts[0].index == 0 and any(later.index == 0 for later in starts[1:])  # indexes restarted
    assert responses == {0} and len(reader.calls) == 2
    import pydantic_ai.messages

    if hasattr(pydantic_ai.messages, "ModelResponseOrigin"):
        # pydantic-ai 2.78 stamps the run's events with their origin: one per model response here.
        assert len({(start.origin.run_step, start.origin.attempt) for start in starts}) == 2


def test_pydantic_ai_sync_handler() -> None:
    scenario = get_scenario("parallel_calls")
    reader = TurnReader()

    async def handler(context: Any, stream: Any) -> None:
        async for event in stream:
            reader.feed(event)

    with StandInServer(scenario) as server:
        client = anthropic.AsyncAnthropic(base_url=server.base_url, api_key="key")
        try:
            _agent(client, scenario).run_sync(scenario.prompt, event_stream_handler=handler)
        finally:
            # run_sync leaves its event loop open and current, for the next call: close it here.
            loop = asyncio.get_event_loop_policy().get_event_loop()
            loop.run_until_complete(client.close())
            loop.close()
            asyncio.set_event_loop(None)
    assert [reader.state(call) for call in reader.calls] == ["complete", "complete"]
    assert all(isinstance(call.input, dict) and call.input for call in reader.calls)
