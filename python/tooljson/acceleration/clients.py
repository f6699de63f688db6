"""An accelerated client: a copy of an ``anthropic`` or ``openai`` client whose helper streams are
tooljson's.

The copy is made by the client's own ``copy()`` (what ``with_options()`` does), so it is of the same
class, with the same options, sharing the same connection pool. Only attributes of the copy's own
objects are set, never a class attribute: the ``stream`` methods (anthropic: ``messages.stream`` and
``beta.messages.stream``; openai: ``chat.completions.stream``, ``beta.chat.completions.stream``
where the SDK has it, and ``responses.stream``) wrap the SDK's method (the SDK builds the request and
its manager; the accelerated manager takes them over), ``beta.messages.tool_runner`` and
``beta.messages.thread`` wrap the SDK's too (the runner and thread it returns are taken over in
place), and ``copy`` / ``with_options`` make copies that are accelerated in turn. The original client
and every other client are left as they were.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

from tooljson.acceleration.runner import accelerated_runner
from tooljson.acceleration.streams import StreamOptions, accelerated_manager
from tooljson.acceleration.threads import Acceleration, accelerated_thread

__all__ = ["accelerated_copy"]


Takeover = Callable[[Any, StreamOptions], Any]


def _take_over_method(resource: Any, name: str, take_over: Callable[[Any], Any]) -> None:
    """Serve ``resource.<name>(...)`` by tooljson: the SDK's method, what it returns taken over."""
    sdk_method = getattr(type(resource), name).__get__(resource)

    @functools.wraps(sdk_method)
    def method(*args: Any, **kwargs: Any) -> Any:
        return take_over(sdk_method(*args, **kwargs))

    vars(resource)[name] = method


def _accelerate_stream(
    resource: Any, options: StreamOptions, takeover: Takeover = accelerated_manager
) -> None:
    """``resource.stream(...)``: the SDK's manager taken over by an accelerated one."""
    _take_over_method(resource, "stream", lambda manager: takeover(manager, options))


def _accelerate_threads(resource: Any, acceleration: Acceleration) -> None:
    """``beta.messages.tool_runner(...)`` and ``beta.messages.thread(...)``: the runner and thread the
    SDK returns taken over in place (:mod:`.runner`, :mod:`.threads`)."""
    if callable(getattr(type(resource), "tool_runner", None)):
        _take_over_method(resource, "tool_runner", lambda runner: accelerated_runner(runner, acceleration))
    if callable(getattr(type(resource), "thread", None)):
        _take_over_method(resource, "thread", lambda thread: accelerated_thread(thread, acceleration))


def _install(client: Any, acceleration: Acceleration) -> None:
    sdk_copy = type(client).copy.__get__(client)

    @functools.wraps(sdk_copy)
    def copy(*args: Any, **kwargs: Any) -> Any:
        copied = sdk_copy(*args, **kwargs)
        _install(copied, acceleration)
        return copied

    state = vars(client)
    # with_middleware() calls copy() too, so it is covered.
    state["copy"] = state["with_options"] = copy
    if is_openai_client(client):
        _install_openai(client, acceleration.stream)
        return
    _accelerate_stream(client.messages, acceleration.stream)
    beta = getattr(client, "beta", None)
    if beta is not None and hasattr(beta, "messages"):
        _accelerate_stream(beta.messages, acceleration.stream)
        _accelerate_threads(beta.messages, acceleration)


def is_openai_client(client: Any) -> bool:
    """Whether ``client`` is an openai SDK client (openai is never imported to find out)."""
    if "openai" not in sys.modules:
        return False
    from openai._base_client import BaseClient

    return isinstance(client, BaseClient)


def _install_openai(client: Any, options: StreamOptions) -> None:
    from tooljson.acceleration.openai_streams import accelerated_openai_manager

    _accelerate_stream(client.chat.completions, options, accelerated_openai_manager)
    beta_chat = getattr(getattr(client, "beta", None), "chat", None)
    if beta_chat is not None and callable(getattr(getattr(beta_chat, "completions", None), "stream", None)):
        _accelerate_stream(beta_chat.completions, options, accelerated_openai_manager)
    _accelerate_stream(client.responses, options, accelerated_openai_manager)


def _check_client(client: Any) -> None:
    if is_openai_client(client):
        if not callable(getattr(getattr(getattr(client, "chat", None), "completions", None), "stream", None)):
            raise TypeError(
                f"{type(client).__qualname__} has no chat.completions.stream(): tooljson.accelerate cannot serve it"
            )
        return
    from anthropic._base_client import BaseClient

    messages = getattr(client, "messages", None)
    if not isinstance(client, BaseClient) or not callable(getattr(messages, "stream", None)):
        raise TypeError(
            "tooljson.accelerate takes an anthropic client with a Messages API (Anthropic, AsyncAnthropic, "
            "AnthropicBedrock, AnthropicVertex, ...) or an openai client (OpenAI, AsyncOpenAI, AzureOpenAI, ...), "
            f"not {type(client).__qualname__}"
        )
    if not callable(getattr(client, "copy", None)):
        raise TypeError(f"{type(client).__qualname__} has no copy(): tooljson.accelerate cannot copy it")


def accelerated_copy(client: Any, acceleration: Acceleration) -> Any:
    """A copy of ``client`` (same class, options and connection pool) whose ``messages.stream``,
    ``beta.messages.stream``, ``beta.messages.tool_runner`` and ``beta.messages.thread`` are
    tooljson's; ``client`` itself is left as it was."""
    _check_client(client)
    # The class's own copy(), also for a client that is already accelerated (new options replace the old).
    copied = type(client).copy(client)
    # copy() leaves this constructor option out; the accelerated client must validate as the original does.
    if hasattr(client, "_strict_response_validation"):
        copied._strict_response_validation = client._strict_response_validation  # noqa: SLF001 - the SDK keeps it private
    _install(copied, acceleration)
    return copied
