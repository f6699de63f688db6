"""The proxy's spans: one per relayed response, its calls' spans under it, exported to a collector.

Telemetry is on with ``--otlp URL`` (a collector's OTLP/HTTP base URL, as ``OTEL_EXPORTER_OTLP_ENDPOINT``
takes it: traces go to ``URL/v1/traces``, or to URL itself when it already ends so), or when the
OpenTelemetry environment asks for it: ``OTEL_EXPORTER_OTLP_ENDPOINT`` or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` set, or ``OTEL_TRACES_EXPORTER`` naming ``otlp`` (or
``console``, spans printed on stdout); ``OTEL_TRACES_EXPORTER=none`` keeps it off unless ``--otlp``
says otherwise. ``OTEL_SERVICE_NAME`` names the service (``tooljson-proxy`` by default); the SDK
reads the rest (``OTEL_EXPORTER_OTLP_*`` headers, timeout, compression; ``OTEL_BSP_*``, the batch
queue).

Spans are exported by the SDK's ``BatchSpanProcessor`` on a thread of its own: the relay never
waits for the collector. A collector that is down, slow or refusing costs spans, never bytes: the
batch queue is bounded (``OTEL_BSP_MAX_QUEUE_SIZE``, 2048 spans), what does not fit is dropped, and
the SDK's error lines are replaced by one warning line on the ``tooljson`` logger. Stopping flushes
what it can within :data:`FLUSH_TIMEOUT` seconds.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tooljson.extras import require

if TYPE_CHECKING:
    from tooljson.proxy.observe import Observer

__all__ = [
    "DEFAULT_SERVICE_NAME",
    "FLUSH_TIMEOUT",
    "OTEL_MODULES",
    "ProxyTelemetry",
    "TelemetrySettings",
    "settings",
]

logger = logging.getLogger("tooljson")

DEFAULT_SERVICE_NAME = "tooljson-proxy"
FLUSH_TIMEOUT = 2.0
"""Seconds stopping the proxy gives the spans not exported yet (the servers' own grace)."""

OTEL_MODULES = (
    "opentelemetry.sdk",
    "opentelemetry.exporter.otlp.proto.http",
    "opentelemetry.instrumentation",
)
"""What exporting the proxy's spans needs installed (the otel extra)."""

_TRACES_PATH = "v1/traces"


@dataclass(frozen=True)
class TelemetrySettings:
    """Where the proxy's spans go: ``exporter`` ``"otlp"`` (to ``endpoint``, the traces URL; ``None``:
    the one the environment names) or ``"console"``."""

    exporter: str
    endpoint: str | None = None


def settings(otlp: str | None, environ: Mapping[str, str] | None = None) -> TelemetrySettings | None:
    """The telemetry ``--otlp`` and the OpenTelemetry environment ask for (``None``: none)."""
    environ = os.environ if environ is None else environ
    if otlp:
        url = otlp.rstrip("/")
        return TelemetrySettings("otlp", url if url.endswith("/" + _TRACES_PATH) else f"{url}/{_TRACES_PATH}")
    named = {
        name.strip().lower() for name in environ.get("OTEL_TRACES_EXPORTER", "").split(",") if name.strip()
    }
    if "none" in named:
        return None
    if (
        "otlp" in named
        or environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    ):
        return TelemetrySettings("otlp")
    if "console" in named:
        return TelemetrySettings("console")
    return None


class _OneWarning(logging.Handler):
    """Takes the OpenTelemetry loggers' lines while the proxy exports: the first warning or error
    becomes one warning line of the proxy's, the rest are dropped (the SDK logs each failed batch,
    with a traceback for some, again and again while a collector is away)."""

    def __init__(self, where: str) -> None:
        super().__init__(logging.WARNING)
        self.where = where
        self.told = False

    def emit(self, record: logging.LogRecord) -> None:
        if self.told:
            return
        self.told = True
        arguments = record.args if isinstance(record.args, tuple) else ()
        cause = next((argument for argument in arguments if isinstance(argument, BaseException)), None)
        try:
            said = type(cause).__name__ if cause is not None else record.getMessage().splitlines()[0][:120]
        except Exception:  # noqa: BLE001 - a line that cannot be formatted is still a failure
            said = "an export failed"
        logger.warning(
            "proxy: spans could not be exported to %s (%s); responses are relayed all the same, and spans are "
            "dropped while the collector does not take them",
            self.where,
            said,
        )


class ProxyTelemetry:
    """The proxy's tracer provider, its exporter, and the span of each response being read.

    The :class:`~tooljson.proxy.observe.Side` calls :meth:`begin` when a response it reads begins,
    reads its chunks inside :meth:`reading`, and calls :meth:`end` once the response ended; the
    server calls :meth:`close` when it stops.
    """

    def __init__(self, chosen: TelemetrySettings, *, capture_arguments: bool | None = None) -> None:
        require("exporting the proxy's spans", *OTEL_MODULES)
        from opentelemetry.sdk.resources import SERVICE_NAME, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

        from tooljson import otel
        from tooljson._native import __version__

        resource = Resource.create()
        if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
            resource = resource.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE_NAME}))
        exporter: SpanExporter
        if chosen.exporter == "console":
            exporter = ConsoleSpanExporter()
            where = "the console"
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter(endpoint=chosen.endpoint)
            where = getattr(exporter, "_endpoint", None) or chosen.endpoint or "the collector"
        self.endpoint = where
        # No exit hook of the SDK's: close() flushes within its bound, an exit hook would wait up to 30 s.
        self.provider = TracerProvider(resource=resource, shutdown_on_exit=False)
        self.provider.add_span_processor(BatchSpanProcessor(exporter))
        self.tracer = self.provider.get_tracer("tooljson.proxy", __version__)
        if capture_arguments is None:
            capture_arguments = os.environ.get(otel.CAPTURE_CONTENT_ENV, "").strip().lower() == "true"
        self.capture_arguments = capture_arguments
        self._spans: dict[int, Any] = {}
        self._sdk_logger = logging.getLogger("opentelemetry")
        self._saved_propagate = self._sdk_logger.propagate
        self._handler = _OneWarning(where)
        self._sdk_logger.addHandler(self._handler)
        self._sdk_logger.propagate = False
        self._closed = False

    def begin(self, observer: Observer, request: dict[str, Any]) -> None:
        """A relayed response begins: its span starts, and its reader's calls will be spans under it."""
        from opentelemetry.trace import SpanKind

        from tooljson import otel

        # The body's model, or the one the path names (request_summary reads it).
        model = request.get("model")
        if not isinstance(model, str):
            model = None
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "http.request.method": str(request.get("method", "")),
            "url.path": str(request.get("path", "")),
        }
        if model:
            attributes["gen_ai.request.model"] = model
        span = self.tracer.start_span(
            f"chat {model}" if model else "chat", kind=SpanKind.SERVER, attributes=attributes
        )
        self._spans[id(observer)] = span
        otel.trace_reader(observer.reader, self.tracer, capture_arguments=self.capture_arguments)

    @contextmanager
    def reading(self, observer: Observer) -> Iterator[None]:
        """Read inside: the response's span is the current span (the parent of its calls' spans)."""
        from opentelemetry import trace

        span = self._spans.get(id(observer))
        if span is None:
            yield
            return
        with trace.use_span(span, end_on_exit=False, record_exception=False, set_status_on_exception=False):
            yield

    def end(self, observer: Observer, state: str) -> None:
        """The response ended (``state``: ``"complete"``, or why it was cut): its span ends."""
        from opentelemetry.trace import Status, StatusCode

        from tooljson import otel

        span = self._spans.pop(id(observer), None)
        if span is None:
            return
        reader = observer.reader
        attributes: dict[str, Any] = {"tooljson.calls": len(reader.blocks), "tooljson.response.state": state}
        provider = otel.provider_name(reader.provider) if reader.provider is not None else None
        if provider is not None:
            attributes["gen_ai.provider.name"] = provider
        if reader.provider is not None:
            attributes["tooljson.source"] = reader.provider
        if reader.stop_reason is not None:
            attributes["gen_ai.response.finish_reasons"] = [str(reader.stop_reason)]
        if state != "complete" or reader.interruption is not None:
            attributes["error.type"] = "interrupted"
            span.set_status(Status(StatusCode.ERROR, reader.interruption or state))
        span.set_attributes(attributes)
        span.end()

    def close(self, timeout: float = FLUSH_TIMEOUT) -> None:
        """Flush the spans not exported yet and stop the exporter, within ``timeout`` seconds (what
        a collector that is slow or away does not take by then is dropped)."""
        if self._closed:
            return
        self._closed = True
        # The SDK's shutdown waits on the exporter, whose own timeout is longer: a thread of its own
        # that the process does not wait for, given ``timeout`` seconds.
        stopping = threading.Thread(target=self.provider.shutdown, name="tooljson-proxy-spans", daemon=True)
        stopping.start()
        stopping.join(timeout)
        if not stopping.is_alive():
            # An export still trying after the bound keeps its lines going to the one warning.
            self._sdk_logger.removeHandler(self._handler)
            self._sdk_logger.propagate = self._saved_propagate
