"""accelerate(openai client) against the SDK's own helpers, over the stand-in with the real client.

The same request goes to ``chat.completions.stream`` (or ``responses.stream``) of the plain client
and of the accelerated copy; the stand-in answers both with the same stream (its randomness is
seeded by the request). They must yield the same event classes in the same order with the same
fields, and (for well-formed arguments) the same final completion / response. The preview fields
(``parsed_arguments`` / ``parsed`` of delta events) follow tooljson's rules instead, checked on
every delta: a shown key never goes away, a value never changes type, and the last preview is the
final value. Where the SDK raises by design, both raise the same; where it raises on malformed
arguments, the accelerated stream goes on and gives the verdict.
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import openai
import pydantic
import pytest
import tooljson
from helper_streams import assert_grows, copy_json
from helpers import assert_same_json
from openai.lib.streaming.chat import AsyncChatCompletionStream, ChatCompletionStream
from tooljson.acceleration import AcceleratedOpenAIStream
from tooljson.standin import StandInServer
from tooljson.standin.reply import Reply, Text, ToolUse
from tooljson.standin.scenario import Scenario, object_schema


class Weather(pydantic.BaseModel):
    city: str
    unit: str


class Report(pydantic.BaseModel):
    title: str
    rows: list[dict[str, Any]]
    total: float


PARIS = '{"city": "Paris", "unit": "celsius"}'
TOKYO = '{"city": "\\u6771\\u4eac \\ud83d\\ude80", "unit": "fahrenheit"}'
BROKEN = '{"city": "Oslo", "unit": "cel\\qsius"}'


def _rows(count: int, *, escaped: bool) -> str:
    """Records as users' arguments look: escapes, non-ASCII (escaped or not), numbers, literals."""
    rows = [
        {"id": n, "name": f'caf\u00e9 "{n}"', "price": n * 1.25, "tags": ["a\nb", "\u00fc"], "ok": n % 3 == 0}
        for n in range(count)
    ]
    return json.dumps({"title": "Stock \u00e9t\u00e9", "rows": rows, "total": 12.5}, ensure_ascii=escaped)


REPORT_10K = _rows(80, escaped=True)
REPORT_100K = _rows(1000, escaped=False)
SCHEMA = object_schema({"city": {"type": "string"}, "unit": {"type": "string"}}, ["city", "unit"])
REPORT_SCHEMA = object_schema(
    {"title": {"type": "string"}, "rows": {"type": "array"}, "total": {"type": "number"}}
)


def _scenario(
    name: str,
    blocks: tuple[Any, ...],
    stop: str = "tool_use",
    choices: int = 1,
    alternatives: tuple[Reply, ...] = (),
) -> Scenario:
    reply = Reply(blocks=blocks, stop_reason=stop, alternatives=alternatives)  # type: ignore[arg-type]
    return Scenario(name, name, "Go.", [], lambda body, turn: reply, choices=choices)


def _calls(*texts: str, name: str = "get_weather", whole: bool = False) -> tuple[ToolUse, ...]:
    return tuple(ToolUse(name, text, whole=whole) for text in texts)


def _tool(name: str, *, strict: bool, schema: dict[str, Any] = SCHEMA) -> dict[str, Any]:
    function: dict[str, Any] = {"name": name, "parameters": schema}
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


@dataclass
class Case:
    scenario: Scenario
    request: dict[str, Any] = field(default_factory=dict)
    # What both helpers raise by design, or what only the SDK's raises (malformed arguments).
    both_raise: type[BaseException] | None = None
    sdk_raises: bool = False
    verdicts: list[str] | None = None


def _request(**extra: Any) -> dict[str, Any]:
    return {"model": "gpt-test", "messages": [{"role": "user", "content": "Go."}], **extra}


STRICT = [_tool("get_weather", strict=True)]
LOOSE = [_tool("get_weather", strict=False)]
CASES: dict[str, Case] = {
    "parallel_strict": Case(_scenario("parallel", _calls(PARIS, TOKYO)), _request(tools=STRICT)),
    "parallel_loose": Case(_scenario("parallel", _calls(PARIS, TOKYO)), _request(tools=LOOSE)),
    "two_choices": Case(
        _scenario(
            "choices",
            _calls(PARIS),
            choices=2,
            alternatives=(Reply(blocks=_calls(TOKYO, PARIS), stop_reason="tool_use"),),
        ),
        _request(tools=STRICT, n=2),
    ),
    "whole_arguments": Case(_scenario("whole", _calls(PARIS, TOKYO, whole=True)), _request(tools=STRICT)),
    "content_and_calls": Case(
        _scenario(
            "mixed", (Text("Let me look \u00e9 up."), *_calls(TOKYO), Text("and more"), *_calls(PARIS))
        ),
        _request(tools=[_tool("get_weather", strict=True), _tool("other", strict=False)]),
    ),
    "pydantic_tool": Case(
        _scenario("pydantic", _calls(PARIS, TOKYO, name="Weather")),
        _request(tools=[openai.pydantic_function_tool(Weather)]),
    ),
    "response_format": Case(
        _scenario("format", (Text(REPORT_10K),), stop="end_turn"), _request(response_format=Report)
    ),
    "response_format_100k": Case(
        _scenario("format", (Text(REPORT_100K),), stop="end_turn"), _request(response_format=Report)
    ),
    "arguments_10k": Case(
        _scenario("big", _calls(REPORT_10K, name="report")),
        _request(tools=[_tool("report", strict=True, schema=REPORT_SCHEMA)]),
    ),
    "arguments_100k": Case(
        _scenario("big", _calls(REPORT_100K, name="report")),
        _request(tools=[_tool("report", strict=True, schema=REPORT_SCHEMA)]),
    ),
    "length": Case(
        _scenario("length", _calls(PARIS, PARIS[:21]), stop="max_tokens"),
        _request(tools=STRICT),
        both_raise=openai.LengthFinishReasonError,
        verdicts=["complete", "truncated"],
    ),
    "length_loose": Case(
        _scenario("length", _calls(PARIS, PARIS[:21]), stop="max_tokens"),
        _request(tools=LOOSE),
        both_raise=openai.LengthFinishReasonError,
        verdicts=["complete", "truncated"],
    ),
    "malformed_strict": Case(
        _scenario("malformed", _calls(BROKEN, PARIS)),
        _request(tools=STRICT),
        sdk_raises=True,
        verdicts=["malformed", "complete"],
    ),
    "malformed_loose": Case(
        _scenario("malformed", _calls(BROKEN, PARIS)),
        _request(tools=LOOSE),
        verdicts=["malformed", "complete"],
    ),
}
# Cut the way the API cuts (1-32 characters), and finer; the long streams only the first way.
FRAGMENTS = [(1, 32), (1, 3)]
LONG = {"response_format", "response_format_100k", "arguments_10k", "arguments_100k"}
# Previews copied (to check each against the next): every one up to this many per call, then evenly
# spaced ones (copying every preview of a 100 KB value costs the test quadratic time).
PREVIEWS_COPIED = 1500
PREVIEWS = {"tool_calls.function.arguments.delta": "parsed_arguments", "content.delta": "parsed"}


# The chunk events of a stream whose whole snapshot is compared at the time it came (every one of a
# short stream; dumping a long one's per chunk would cost the test quadratic time).
SNAPSHOTS_COMPARED = 400


def without_previews(snapshot: Any) -> Any:
    """A completion snapshot as a dict, without the fields that hold previews."""
    data = snapshot.model_dump(warnings=False)
    for choice in data["choices"]:
        choice["message"].pop("parsed", None)
        for call in choice["message"].get("tool_calls") or ():
            call["function"].pop("parsed_arguments", None)
    return data


# No generated repr: on CPython 3.11 the end of an ``asyncio.run`` whose result holds a Run builds the
# result's repr (the event loop's SIGINT handler names the task), and a Run holds every event with
# its snapshot.
@dataclass(repr=False)
class Run:
    events: list[Any] = field(default_factory=list)
    # Each event's fields at the time it came, previews apart; the previews, copied, by call.
    fields: list[dict[str, Any]] = field(default_factory=list)
    previews: dict[Any, list[Any]] = field(default_factory=dict)
    # What each .done event says the value is, by the same key.
    done: dict[Any, Any] = field(default_factory=dict)
    counts: dict[Any, int] = field(default_factory=dict)
    last: dict[Any, Any] = field(default_factory=dict)
    final: Any = None
    error: BaseException | None = None
    stream: Any = None
    keep_previews: bool = False
    stride: int = 1

    def take(self, event: Any, choice_of: Callable[[Any], Any]) -> None:
        self.events.append(event)
        preview = PREVIEWS.get(event.type)
        fields = {name: value for name, value in vars(event).items() if name not in ("snapshot", preview)}
        if event.type == "chunk":
            fields["chunk"] = event.chunk.to_dict()
            if len(self.events) < SNAPSHOTS_COMPARED:
                fields["snapshot"] = without_previews(event.snapshot)
        elif "snapshot" in vars(event):
            fields["snapshot"] = event.snapshot
        key = (choice_of(event), getattr(event, "index", None))
        if preview is not None and self.keep_previews:
            seen = self.previews.setdefault(key, [])
            self.counts[key] = count = self.counts.get(key, 0) + 1
            if count % self.stride == 0 or len(seen) < PREVIEWS_COPIED // self.stride:
                seen.append(copy_json(getattr(event, preview)))
            # The live value: once its text is whole it no longer changes.
            self.last[key] = getattr(event, preview)
        elif event.type == "tool_calls.function.arguments.done":
            self.done[key] = event.arguments
        elif event.type == "content.done":
            self.done[key] = event.content
        self.fields.append(fields)


def _choice_tracker() -> Callable[[Any], Any]:
    """The choice a derived event belongs to: the one of the chunk event right before it."""
    current: list[Any] = [None]

    def choice_of(event: Any) -> Any:
        if event.type == "chunk":
            current[0] = event.chunk.choices[0].index if event.chunk.choices else None
        return current[0]

    return choice_of


def _stride(case: str) -> int:
    return 64 if case.endswith("100k") else 1


def _consume(manager: Any, keep_previews: bool = False, stride: int = 1) -> Run:
    run = Run(keep_previews=keep_previews, stride=stride)
    choice_of = _choice_tracker()
    try:
        with manager as stream:
            run.stream = stream
            for event in stream:
                run.take(event, choice_of)
            run.final = stream.get_final_completion()
    except Exception as error:  # noqa: BLE001 - what the helper raised is compared
        run.error = error
    return run


async def _aconsume(manager: Any, keep_previews: bool = False, stride: int = 1) -> Run:
    run = Run(keep_previews=keep_previews, stride=stride)
    choice_of = _choice_tracker()
    try:
        async with manager as stream:
            run.stream = stream
            async for event in stream:
                run.take(event, choice_of)
            run.final = await stream.get_final_completion()
    except Exception as error:  # noqa: BLE001 - what the helper raised is compared
        run.error = error
    return run


def _both(case: Case, sizes: tuple[int, int], *, asynchronous: bool, stride: int = 1) -> tuple[Run, Run]:
    # Seed 0 starts the two-choice stream with choice 0: the SDK's helper fails on one that starts
    # with choice 1 (its first snapshot has room for one choice), and so does the accelerated one.
    with StandInServer(case.scenario, fragment_sizes=sizes, seed=0) as server:
        url = server.base_url + "/v1"
        if asynchronous:

            async def main() -> tuple[Run, Run]:
                async with openai.AsyncOpenAI(base_url=url, api_key="k", max_retries=0) as client:
                    fast = tooljson.accelerate(client)
                    return (
                        await _aconsume(client.chat.completions.stream(**case.request)),
                        await _aconsume(fast.chat.completions.stream(**case.request), True, stride),
                    )

            return anyio.run(main)
        with openai.OpenAI(base_url=url, api_key="k", max_retries=0) as client:
            fast = tooljson.accelerate(client)
            return (
                _consume(client.chat.completions.stream(**case.request)),
                _consume(fast.chat.completions.stream(**case.request), True, stride),
            )


def _assert_previews_grow(run: Run) -> None:
    for previews in run.previews.values():
        shown = [p for p in previews if p is not None]
        for before, after in zip(shown, shown[1:]):
            assert_grows(before, after, whole_strings=True)


# The 100 KB streams only synchronously: their time is the SDK helper's own re-parse per chunk (about
# 10 s each here), and the async stream shares every line of the state with the sync one, which the
# shorter streams check both ways.
@pytest.mark.parametrize(
    ("name", "sizes", "asynchronous"),
    [
        pytest.param(
            name, sizes, asynchronous, marks=[pytest.mark.sdk_quadratic] if name.endswith("100k") else []
        )
        for name in CASES
        for sizes in FRAGMENTS
        for asynchronous in (False, True)
        if (name not in LONG or sizes == FRAGMENTS[0]) and not (asynchronous and name.endswith("100k"))
    ],
    ids=lambda v: (
        v
        if isinstance(v, str)
        else ("async" if v is True else "sync")
        if isinstance(v, bool)
        else f"{v[0]}-{v[1]}"
    ),
)
def test_chat_stream_matches_the_sdk_helper(
    name: str, asynchronous: bool, sizes: tuple[int, int], caplog: pytest.LogCaptureFixture
) -> None:
    case = CASES[name]
    with caplog.at_level(logging.WARNING, logger="tooljson"):
        sdk, ours = _both(case, sizes, asynchronous=asynchronous, stride=_stride(name))
    assert isinstance(ours.stream, AcceleratedOpenAIStream)
    assert isinstance(ours.stream, AsyncChatCompletionStream if asynchronous else ChatCompletionStream)
    assert not isinstance(sdk.stream, AcceleratedOpenAIStream)
    if case.sdk_raises:
        # The SDK's helper gives up on the malformed arguments; ours reads to the end.
        assert sdk.error is not None and isinstance(sdk.error, ValueError)
        assert ours.error is None, ours.error
        count = len(sdk.events)
        assert [type(e) for e in ours.events[:count]] == [type(e) for e in sdk.events]
        warnings = [r for r in caplog.records if r.name == "tooljson"]
        assert len(warnings) == 1 and "malformed" in warnings[0].getMessage()
    else:
        if case.both_raise is None:
            assert sdk.error is None, sdk.error
        assert type(sdk.error) is type(ours.error), (sdk.error, ours.error)
        assert [type(e) for e in ours.events] == [type(e) for e in sdk.events]
        assert [e.type for e in ours.events] == [e.type for e in sdk.events]
        for mine, theirs in zip(ours.fields, sdk.fields):
            assert mine == theirs
        if case.both_raise is not None:
            assert isinstance(ours.error, case.both_raise)
            assert ours.error.completion.to_dict() == sdk.error.completion.to_dict()  # type: ignore[union-attr]
        else:
            assert ours.final == sdk.final
            assert ours.final.model_dump(warnings=False) == sdk.final.model_dump(warnings=False)
            assert without_previews(ours.stream.current_completion_snapshot) == without_previews(
                sdk.stream.current_completion_snapshot
            )
    for mine, theirs in zip(ours.events, sdk.events):
        if mine.type == "tool_calls.function.arguments.done":
            assert_same_json(
                mine.parsed_arguments
                if not isinstance(mine.parsed_arguments, pydantic.BaseModel)
                else mine.parsed_arguments.model_dump(),
                theirs.parsed_arguments
                if not isinstance(theirs.parsed_arguments, pydantic.BaseModel)
                else theirs.parsed_arguments.model_dump(),
            )
    _assert_previews_grow(ours)
    if case.both_raise is None and not case.sdk_raises:
        # The last preview of each call (strict) or content (response_format) is its final value.
        for key, last in ours.last.items():
            if last is not None:
                assert_same_json(last, json.loads(ours.done[key]))
    if case.verdicts is not None:
        assert [ours.stream.turn.state(call) for call in ours.stream.tool_calls] == case.verdicts
    else:
        assert all(ours.stream.turn.state(call) == "complete" for call in ours.stream.tool_calls)


@pytest.mark.parametrize(
    "make",
    [
        lambda: openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", max_retries=0),
        lambda: openai.AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", max_retries=0),
        lambda: openai.AzureOpenAI(
            api_key="k", api_version="2024-10-21", azure_endpoint="http://127.0.0.1:9"
        ),
        lambda: openai.AsyncAzureOpenAI(
            api_key="k", api_version="2024-10-21", azure_endpoint="http://127.0.0.1:9"
        ),
    ],
    ids=["OpenAI", "AsyncOpenAI", "AzureOpenAI", "AsyncAzureOpenAI"],
)
def test_accelerate_copies_an_openai_client_and_changes_only_its_stream_helpers(
    make: Callable[[], Any],
) -> None:
    from openai.lib.streaming.chat import AsyncChatCompletionStreamManager, ChatCompletionStreamManager
    from openai.lib.streaming.responses import AsyncResponseStreamManager, ResponseStreamManager
    from tooljson.acceleration import openai_streams

    client = make()
    fast = tooljson.accelerate(client)
    asynchronous = isinstance(client, openai.AsyncOpenAI)
    assert type(fast) is type(client) and fast is not client
    assert fast.api_key == client.api_key and str(fast.base_url) == str(client.base_url)
    # The original's helpers are the SDK's; the copy's return the accelerated managers (nothing is sent yet).
    helpers = [
        (
            lambda c: c.chat.completions.stream(model="m", messages=[]),
            AsyncChatCompletionStreamManager if asynchronous else ChatCompletionStreamManager,
        ),
        (
            lambda c: c.beta.chat.completions.stream(model="m", messages=[]),
            AsyncChatCompletionStreamManager if asynchronous else ChatCompletionStreamManager,
        ),
        (
            lambda c: c.responses.stream(model="m", input="hi"),
            AsyncResponseStreamManager if asynchronous else ResponseStreamManager,
        ),
    ]

    def unsent(manager: Any) -> Any:
        # An async manager holds the request's coroutine, never awaited here: close it.
        for value in vars(manager).values():
            if inspect.iscoroutine(value):
                value.close()
        return manager

    for open_helper, sdk_manager in helpers:
        plain, accelerated = unsent(open_helper(client)), unsent(open_helper(fast))
        assert type(plain) is sdk_manager
        assert (
            isinstance(accelerated, sdk_manager) and type(accelerated).__module__ == openai_streams.__name__
        )
        for copy in (fast.with_options(timeout=5), fast.copy()):
            assert type(unsent(open_helper(copy))) is type(accelerated)
    assert "stream" not in vars(client.chat.completions) and "stream" not in vars(client.responses)
    # Everything else is the SDK's own object.
    assert type(fast.chat.completions).create is type(client.chat.completions).create


def test_accelerate_refuses_what_is_not_a_client() -> None:
    with pytest.raises(TypeError, match="openai client"):
        tooljson.accelerate(object())  # type: ignore[type-var]


@pytest.mark.parametrize(
    "option", [{"truncation": "stop"}, {"truncation": "retry"}, {"max_tokens_cap": 1000}]
)
def test_the_tool_runners_options_are_refused_for_an_openai_client(option: dict[str, Any]) -> None:
    # They set what anthropic's tool runner does with a cut-off call; ignoring them would surprise.
    with openai.OpenAI(api_key="k") as client:
        with pytest.raises(TypeError, match="anthropic's tool runner"):
            tooljson.accelerate(client, **option)
        # Unset, they are no concern of an openai client.
        assert "stream" in vars(tooljson.accelerate(client).chat.completions)
