"""The optional parts of tooljson and the packages each needs, checked before a part does anything.

``pip install tooljson`` brings the parser, the accumulator, the turn reader and the plain replay,
with no dependency. The extras bring the rest (declared in ``pyproject.toml``; a test keeps the two
lists equal):

* ``stream``: ``anthropic`` (the client of the tool loop and the demo), ``jsonschema`` (tool input
  validated against ``input_schema``), ``pydantic`` (handlers that declare a model);
* ``ui``: ``rich`` (the live terminal view), ``starlette`` and ``uvicorn`` (the browser view);
* ``proxy``: ``aiohttp`` (the async HTTP client the proxy relays with), ``httptools`` (the server's
  HTTP parsing, in C) and the views;
* ``accelerate``: the SDKs whose stream helpers :func:`tooljson.accelerate` serves (the sources
  marked ``accelerated``: ``anthropic`` 2.x and ``openai`` 3.x);
* each source's own (:attr:`tooljson.providers.source.Source.extra` and ``modules``): ``providers``
  (``openai`` and ``boto3``, their stand-ins and ``demo --provider``), ``langchain``
  (``langchain-core``, the message :meth:`tooljson.TurnReader.message` builds; reading LangChain's
  chunks needs nothing), ``pydantic-ai`` (``pydantic-ai-slim``: reading its events needs nothing,
  the extra pins the version the reader is tested with), ``agents`` (``openai-agents``: reading its
  run stream needs nothing, ``guard`` builds the SDK's tool input guardrail), ...;
* ``litellm``: ``litellm`` (its chunks are Chat Completions chunks, read without it: the extra pins
  the version they are tested with);
* ``otel``: ``opentelemetry-api`` and ``opentelemetry-instrumentation`` (:mod:`tooljson.otel`'s
  spans), ``opentelemetry-sdk`` and ``opentelemetry-exporter-otlp-proto-http`` (the proxy's export
  to a collector);
* ``instruments``: nothing (what ``opentelemetry-instrument``'s loader asks an instrumentation for:
  the libraries it instruments; tooljson instruments itself);
* ``ag-ui``: ``ag-ui-protocol`` (:mod:`tooljson.protocols.ag_ui` yields its event models; the AI
  SDK's UI message stream, :mod:`tooljson.protocols.ai_sdk`, needs nothing);
* ``instructor``: ``instructor`` 1.x, whose partial streaming :func:`tooljson.accelerate` serves
  (not part of ``all``: instructor 1.17 holds openai below the ``accelerate`` extra's versions);
* ``all``: every one of them but ``instructor``.

:func:`require` raises :class:`~tooljson.errors.MissingExtra` with one line naming the extra to
install, so a command or the loop fails before it sends a request or draws anything.
"""

from __future__ import annotations

import functools
from typing import Any

from tooljson.errors import MissingExtra
from tooljson.providers.source import missing

# DISTRIBUTIONS and EXTRAS are made on first use, by __getattr__ below.
__all__ = ["DISTRIBUTIONS", "EXTRAS", "LOOP_MODULES", "NOT_IN_ALL", "missing", "require"]  # noqa: F822

_PARTS: dict[str, tuple[str, ...]] = {
    "stream": ("anthropic", "jsonschema", "pydantic"),
    "ui": ("rich", "starlette", "uvicorn"),
    "proxy": ("aiohttp", "httptools", "rich", "starlette", "uvicorn"),
    "otel": (
        "opentelemetry.trace",
        "opentelemetry.sdk",
        "opentelemetry.exporter.otlp.proto.http",
        "opentelemetry.instrumentation",
    ),
    # Asked for by opentelemetry-instrument's loader (the libraries an instrumentation instruments):
    # tooljson instruments itself.
    "instruments": (),
    "instructor": ("instructor",),
    # LiteLLM's chunks are Chat Completions chunks, read without it: the extra pins the tested version.
    "litellm": ("litellm",),
    # tooljson.protocols.ag_ui yields the AG-UI package's own event models (the AI SDK side needs nothing).
    "ag-ui": ("ag_ui",),
}
# The extras of tooljson's own parts; each source's extra is its own (Source.extra, Source.modules).

NOT_IN_ALL = ("instructor",)
"""The extras ``all`` leaves out: instructor 1.17 pins jiter below 0.15, which holds openai at 3.3,
below the ``accelerate`` extra's openai 3.51."""

_PART_DISTRIBUTIONS: dict[str, str] = {
    "opentelemetry.trace": "opentelemetry-api",
    "opentelemetry.sdk": "opentelemetry-sdk",
    "opentelemetry.exporter.otlp.proto.http": "opentelemetry-exporter-otlp-proto-http",
    "opentelemetry.instrumentation": "opentelemetry-instrumentation",
    "ag_ui": "ag-ui-protocol",
}
# The distribution that installs a module of tooljson's own parts, where its name is not the module's
# (what messages name). A dotted module is looked for as Python finds it, which imports its parent
# packages (OpenTelemetry's are namespace packages: that imports nothing of it).

LOOP_MODULES = ("anthropic", "jsonschema")
"""What a run of the tool loop in the demo and the views needs: the SDK's client, and jsonschema for
the scenarios' input schemas."""


@functools.cache
def _tables() -> tuple[dict[str, tuple[str, ...]], dict[str, str], dict[str, str]]:
    # Read when first asked, not at import: the registry imports every source.
    from tooljson.providers.registry import DEFAULT, SOURCES

    extras = dict(_PARTS)
    # The accelerated SDK helpers: the SDKs of the sources that have one.
    extras["accelerate"] = tuple(
        dict.fromkeys(
            module
            for source in sorted(SOURCES, key=lambda source: source is not DEFAULT)
            if source.accelerated
            for module in source.modules
        )
    )
    for source in SOURCES:
        if source.extra is not None and source.extra not in _PARTS:
            extras[source.extra] = tuple(dict.fromkeys((*extras.get(source.extra, ()), *source.modules)))
    distributions = dict(_PART_DISTRIBUTIONS)
    distributions.update(
        (module, name) for source in SOURCES for module, name in source.distributions.items()
    )
    extra_of: dict[str, str] = {}
    for extra, modules in extras.items():
        for module in modules:
            extra_of.setdefault(module, extra)
    return extras, distributions, extra_of


def __getattr__(name: str) -> Any:
    if name == "EXTRAS":
        return _tables()[0]
    if name == "DISTRIBUTIONS":
        return _tables()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def require(what: str, *modules: str) -> None:
    """Raise :class:`MissingExtra` unless every one of ``modules`` can be imported.

    ``what`` names the part that needs them, as the start of the message: ``"python -m tooljson
    web"`` gives "python -m tooljson web needs starlette and uvicorn: pip install 'tooljson[ui]'".
    """
    absent = missing(*modules)
    if not absent:
        return
    _, distributions, extra_of = _tables()
    extras = ",".join(sorted({extra_of.get(module, "all") for module in absent}))
    names = [distributions.get(module, module) for module in absent]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    raise MissingExtra(f"{what} needs {listed}: pip install 'tooljson[{extras}]'", name=absent[0])
