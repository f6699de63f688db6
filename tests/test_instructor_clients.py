"""accelerate(instructor client) over the stand-in, with the real openai and anthropic clients.

The same request goes through the plain instructor client and through its accelerated copy; the
stand-in answers both with the same stream (cut the same way: its randomness is seeded by the
request). Every partial the accelerated copy yields must equal the plain client's, in the TOOLS and
JSON modes of ``from_openai`` and ``from_anthropic`` (ANTHROPIC_TOOLS), sync and async, through
``create_partial`` and ``create(response_model=Partial[M], stream=True)``. Where tooljson differs on
purpose, the difference is checked: the sync stream yields while the response is still open, a
stream cut off at the token limit raises ``IncompleteOutputException``, malformed text raises
:class:`tooljson.MalformedJSONError` at its first bad character.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

instructor = pytest.importorskip("instructor")

import anthropic
import anyio
import openai
import tooljson
from instructor import Mode, Partial
from instructor.core.exceptions import IncompleteOutputException, InstructorRetryException
from pydantic import BaseModel, ValidationError, field_validator
from tooljson.standin import StandInServer
from tooljson.standin.reply import Reply, Text, ToolUse
from tooljson.standin.scenario import Scenario


class Item(BaseModel):
    name: str
    price: float
    tags: list[str]

    @field_validator("name")
    @classmethod
    def titled(cls, value: str) -> str:
        return value.title()


class Order(BaseModel):
    customer: str
    items: list[Item]
    total: float
    note: str | None = None


ORDER = json.dumps(
    {
        "customer": "Ada L\u00f6vel\u00e6ce \U0001f680",
        "items": [
            {"name": f"caf\u00e9 {n}", "price": n * 1.25, "tags": ["a\nb", "\u00fc"]} for n in range(12)
        ],
        "total": 12.5,
        "note": None,
    },
    ensure_ascii=False,
)
# Cut after the customer and two items, inside the third one.
CUT = ORDER[: ORDER.index('"name": "caf\u00e9 2"') + 12]
BROKEN_AT = ORDER.index('"total"') - 1
BROKEN = ORDER[:BROKEN_AT] + "#" + ORDER[BROKEN_AT:]

# (provider, mode): the instructor modes tooljson serves for each client. instructor 1.17 reads
# Mode.TOOLS of from_anthropic as ANTHROPIC_TOOLS (which it deprecates: the client names the provider).
MODES = [("openai", Mode.TOOLS), ("openai", Mode.JSON), ("anthropic", Mode.TOOLS), ("anthropic", Mode.JSON)]


def _scenario(mode: Mode, text: str, stop: str) -> Scenario:
    block = Text(text) if mode in (Mode.JSON, Mode.ANTHROPIC_JSON) else ToolUse("Order", text)
    if stop == "done":
        stop = "end_turn" if mode in (Mode.JSON, Mode.ANTHROPIC_JSON) else "tool_use"
    reply = Reply(blocks=(block,), stop_reason=stop)  # type: ignore[arg-type]
    return Scenario("instructor", "A structured output.", "Go.", [], lambda body, turn: reply)


def _request() -> dict[str, Any]:
    return {
        "model": "m",
        "max_tokens": 1000,
        "messages": [{"role": "user", "content": "Go."}],
        "max_retries": 0,
    }


def _clients(provider: str, mode: Mode, url: str, *, asynchronous: bool) -> tuple[Any, Any]:
    """The SDK client (to close) and the instructor client made from it."""
    if provider == "openai":
        openai_class = openai.AsyncOpenAI if asynchronous else openai.OpenAI
        sdk = openai_class(base_url=url + "/v1", api_key="k", max_retries=0)
        return sdk, instructor.from_openai(sdk, mode=mode)
    anthropic_class = anthropic.AsyncAnthropic if asynchronous else anthropic.Anthropic
    sdk = anthropic_class(base_url=url, api_key="k", max_retries=0)
    return sdk, instructor.from_anthropic(sdk, mode=mode)


Call = Callable[[Any], Any]


def _by_create_partial(client: Any) -> Any:
    return client.create_partial(response_model=Order, **_request())


def _by_create(client: Any) -> Any:
    return client.chat.completions.create(response_model=Partial[Order], stream=True, **_request())


def _collect_sync(make: Callable[[], Any]) -> tuple[list[Any], BaseException | None]:
    partials: list[Any] = []
    try:
        for partial in make():
            partials.append(partial)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return partials, error
    return partials, None


async def _collect_async(make: Callable[[], Any]) -> tuple[list[Any], BaseException | None]:
    partials: list[Any] = []
    try:
        stream = make()
        if not hasattr(stream, "__aiter__"):
            stream = await stream
        async for partial in stream:
            partials.append(partial)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return partials, error
    return partials, None


def _both(
    provider: str, mode: Mode, text: str, stop: str, call: Call, *, asynchronous: bool
) -> tuple[Any, Any]:
    """(partials, error) of the plain client, then of the accelerated copy, on the same stream."""
    with StandInServer(_scenario(mode, text, stop), fragment_sizes=(1, 6)) as server:
        sdk, plain = _clients(provider, mode, server.base_url, asynchronous=asynchronous)
        fast = tooljson.accelerate(plain)
        if asynchronous:

            async def run() -> tuple[Any, Any]:
                async with sdk:
                    return await _collect_async(lambda: call(plain)), await _collect_async(lambda: call(fast))

            runs = anyio.run(run)
        else:
            with sdk:
                runs = _collect_sync(lambda: call(plain)), _collect_sync(lambda: call(fast))
        # instructor built both requests alike: the accelerated Partial[Order] has instructor's name,
        # schema and tool.
        requests = [request.body for request in server.requests]
        assert len(requests) == 2 and requests[0] == requests[1]
        return runs


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("call", [_by_create_partial, _by_create], ids=["create_partial", "create"])
@pytest.mark.parametrize(("provider", "mode"), MODES, ids=[f"{p}-{m.name}" for p, m in MODES])
def test_every_partial_equals_plain_instructors(
    provider: str, mode: Mode, call: Call, asynchronous: bool
) -> None:
    (theirs, their_error), (ours, our_error) = _both(
        provider, mode, ORDER, "done", call, asynchronous=asynchronous
    )
    assert their_error is None and our_error is None
    assert len(ours) > 100
    assert ours == theirs
    assert ours[-1] == Order.model_validate_json(ORDER)
    assert type(ours[-1]) is Order


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("provider", "mode"), MODES, ids=[f"{p}-{m.name}" for p, m in MODES])
def test_a_stream_cut_off_at_the_token_limit_raises_incomplete_output(
    provider: str, mode: Mode, asynchronous: bool
) -> None:
    (theirs, their_error), (ours, our_error) = _both(
        provider, mode, CUT, "max_tokens", _by_create_partial, asynchronous=asynchronous
    )
    # Plain instructor ends on the last partial, unvalidated and without a word.
    assert their_error is None
    assert theirs[-1].total is None
    assert ours == theirs
    assert isinstance(our_error, IncompleteOutputException)
    assert our_error.last_completion == theirs[-1]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("provider", "mode"), MODES, ids=[f"{p}-{m.name}" for p, m in MODES])
def test_malformed_text_raises_malformed_json_at_its_character(
    provider: str, mode: Mode, asynchronous: bool
) -> None:
    (theirs, their_error), (ours, our_error) = _both(
        provider, mode, BROKEN, "done", _by_create_partial, asynchronous=asynchronous
    )
    # Plain instructor: jiter's ValueError (wrapped in InstructorRetryException by the sync client,
    # which re-asks first).
    assert isinstance(their_error, (InstructorRetryException if not asynchronous else ValueError))
    assert isinstance(our_error, tooljson.MalformedJSONError)
    assert isinstance(our_error, json.JSONDecodeError)
    assert our_error.pos == BROKEN_AT
    assert our_error.doc.startswith(BROKEN[: BROKEN_AT + 1])
    if asynchronous:
        assert ours == theirs
    else:
        # The sync plain client yields nothing (it collects the stream in a list first).
        assert theirs == [] and len(ours) > 10


def test_the_sync_stream_yields_while_the_response_is_still_open() -> None:
    responses: list[Any] = []
    with StandInServer(_scenario(Mode.TOOLS, ORDER, "tool_use"), fragment_sizes=(1, 6)) as server:
        sdk, plain = _clients("openai", Mode.TOOLS, server.base_url, asynchronous=False)
        plain.on("completion:response", responses.append)
        fast = tooljson.accelerate(plain)
        stream = fast.create_partial(response_model=Order, **_request())
        first = next(iter(stream))
        assert isinstance(first, Order)
        assert not responses[-1].response.is_closed
        rest = list(stream)
        assert rest[-1] == Order.model_validate_json(ORDER)
        assert responses[-1].response.is_closed
        # The plain client has read the whole response before it returns.
        plain.create_partial(response_model=Order, **_request())
        assert responses[-1].response.is_closed
        sdk.close()


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("provider", "mode"), MODES, ids=[f"{p}-{m.name}" for p, m in MODES])
def test_a_complete_object_that_is_not_valid_raises_pydantics_error(
    provider: str, mode: Mode, asynchronous: bool
) -> None:
    text = json.dumps({"customer": "Ada", "items": [], "total": "much"})
    (theirs, their_error), (ours, our_error) = _both(
        provider, mode, text, "done", _by_create_partial, asynchronous=asynchronous
    )
    assert isinstance(our_error, ValidationError)
    # instructor validates with strict=True unless told otherwise.
    with pytest.raises(ValidationError) as expected:
        Order.model_validate(json.loads(text), strict=True)
    assert our_error.errors() == expected.value.errors()
    if asynchronous:
        assert ours == theirs
        assert isinstance(their_error, ValidationError)
        assert their_error.errors() == expected.value.errors()
    else:
        # The sync plain client prepares a re-ask (none here: max_retries=0), then wraps the error;
        # in anthropic's JSON mode preparing the re-ask of a stream fails first, in instructor.
        assert isinstance(their_error, InstructorRetryException)
        cause = their_error.__cause__
        if provider == "anthropic" and mode is Mode.JSON:
            assert isinstance(cause, AttributeError)
        else:
            assert isinstance(cause, ValidationError)
            assert cause.errors() == expected.value.errors()


def test_the_copy_is_the_same_class_and_the_original_is_left_alone() -> None:
    with openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="k") as sdk:
        _check_copy(instructor.from_openai(sdk, mode=Mode.TOOLS))


def _check_copy(client: Any) -> None:
    fast = tooljson.accelerate(client)
    assert type(fast) is type(client)
    assert fast.client is client.client
    assert fast.mode is client.mode
    assert "create_partial" not in vars(client)
    assert fast.chat.completions.create_partial is fast.create_partial


def test_an_unknown_instructor_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(instructor, "__version__", "1.18.0")
    with openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="k") as sdk:
        with pytest.raises(RuntimeError, match=r"instructor 1\.17 .* not instructor 1\.18\.0"):
            tooljson.accelerate(instructor.from_openai(sdk))


def test_an_unserved_mode_and_stream_options_are_refused() -> None:
    with openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="k") as sdk:
        with pytest.raises(TypeError, match="TOOLS, JSON"):
            tooljson.accelerate(instructor.from_openai(sdk, mode=Mode.MD_JSON))
        with pytest.raises(TypeError, match="partial_strings"):
            tooljson.accelerate(instructor.from_openai(sdk), partial_strings=True)


def test_the_deprecated_anthropic_tools_mode_is_served_too() -> None:
    with pytest.warns(DeprecationWarning, match="ANTHROPIC_TOOLS"):
        (theirs, their_error), (ours, our_error) = _both(
            "anthropic", Mode.ANTHROPIC_TOOLS, ORDER, "done", _by_create_partial, asynchronous=False
        )
    assert their_error is None and our_error is None
    assert ours == theirs
    assert ours[-1] == Order.model_validate_json(ORDER)
