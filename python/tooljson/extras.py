"""The optional parts of tooljson and the packages each needs, checked before a part does anything.

``pip install tooljson`` brings the parser, the accumulator, the turn reader and the plain replay,
with no dependency. The extras bring the rest (declared in ``pyproject.toml``; a test keeps the two
lists equal):

* ``stream``: ``anthropic`` (the client of the tool loop and the demo), ``jsonschema`` (tool input
  validated against ``input_schema``), ``pydantic`` (handlers that declare a model);
* ``ui``: ``rich`` (the live terminal view), ``starlette`` and ``uvicorn`` (the browser view);
* ``proxy``: ``aiohttp`` (the async HTTP client the proxy relays with), ``httptools`` (the server's
  HTTP parsing, in C) and the views;
* ``accelerate``: the ``anthropic`` 2.x and ``openai`` 3.x SDKs whose stream helpers
  :func:`tooljson.accelerate` serves;
* ``providers``: ``openai`` and ``boto3`` (their stand-ins and ``demo --provider``);
* ``langchain``: ``langchain-core`` (the message :meth:`tooljson.TurnReader.message` builds; reading
  LangChain's chunks needs nothing);
* ``pydantic-ai``: ``pydantic-ai-slim`` (reading its events needs nothing: the extra pins the
  version the reader is tested with);
* ``agents``: ``openai-agents`` (reading its run stream needs nothing; :func:`~tooljson.frameworks.openai_agents.guard`
  builds the SDK's tool input guardrail);
* ``litellm``: ``litellm`` (its chunks are Chat Completions chunks, read without it: the extra pins
  the version they are tested with);
* ``all``: every one of them.

:func:`require` raises :class:`~tooljson.errors.MissingExtra` with one line naming the extra to
install, so a command or the loop fails before it sends a request or draws anything.
"""

from __future__ import annotations

import importlib.util

from tooljson.errors import MissingExtra

__all__ = ["DISTRIBUTIONS", "EXTRAS", "LOOP_MODULES", "missing", "require"]

EXTRAS: dict[str, tuple[str, ...]] = {
    "stream": ("anthropic", "jsonschema", "pydantic"),
    "ui": ("rich", "starlette", "uvicorn"),
    "proxy": ("aiohttp", "httptools", "rich", "starlette", "uvicorn"),
    "accelerate": ("anthropic", "openai"),
    "providers": ("openai", "boto3"),
    "langchain": ("langchain_core",),
    "pydantic-ai": ("pydantic_ai",),
    "agents": ("agents",),
    "litellm": ("litellm",),
}
"""The importable packages each extra brings (the ``all`` extra is their union). A package in several
extras is named by the first that brings it."""

DISTRIBUTIONS: dict[str, str] = {
    "langchain_core": "langchain-core",
    "pydantic_ai": "pydantic-ai-slim",
    "agents": "openai-agents",
}
"""The distribution that installs a module, where its name is not the module's (what messages name)."""

LOOP_MODULES = ("anthropic", "jsonschema")
"""What a run of the tool loop in the demo and the views needs: the SDK's client, and jsonschema for
the scenarios' input schemas."""

_EXTRA_OF: dict[str, str] = {}
for _extra, _modules in EXTRAS.items():
    for _module in _modules:
        _EXTRA_OF.setdefault(_module, _extra)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        # A module half-imported or stubbed out in sys.modules counts as absent.
        return False


def missing(*modules: str) -> list[str]:
    """The ones of ``modules`` that cannot be imported."""
    return [module for module in modules if not _installed(module)]


def require(what: str, *modules: str) -> None:
    """Raise :class:`MissingExtra` unless every one of ``modules`` can be imported.

    ``what`` names the part that needs them, as the start of the message: ``"python -m tooljson
    web"`` gives "python -m tooljson web needs starlette and uvicorn: pip install 'tooljson[ui]'".
    """
    absent = missing(*modules)
    if not absent:
        return
    extras = ",".join(sorted({_EXTRA_OF.get(module, "all") for module in absent}))
    names = [DISTRIBUTIONS.get(module, module) for module in absent]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    raise MissingExtra(f"{what} needs {listed}: pip install 'tooljson[{extras}]'", name=absent[0])
