"""A tiny OTLP/HTTP trace receiver on loopback, for the proxy's telemetry tests.

It takes ``POST /v1/traces`` bodies (protobuf ``ExportTraceServiceRequest``), decodes them with
``opentelemetry-proto`` and keeps every span with its resource; it answers as a collector does. It
can be told to refuse (``status``), to be slow (``delay``), or be stopped mid-run (:meth:`stop`:
its port then refuses connections).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan


def value_of(value: AnyValue) -> Any:
    """An attribute's value as Python's."""
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [value_of(item) for item in value.array_value.values]
    return getattr(value, kind) if kind else None


@dataclass
class ReceivedSpan:
    name: str
    kind: int
    trace_id: bytes
    span_id: bytes
    parent_span_id: bytes
    attributes: dict[str, Any]
    status_code: int
    status_message: str
    resource: dict[str, Any]


class Receiver:
    """The receiver, as a context manager; ``url`` is its base URL (``/v1/traces`` appended by the
    proxy), ``spans`` what it was sent, ``requests`` how many export requests came."""

    def __init__(self, *, status: int = 200, delay: float = 0.0) -> None:
        self.status = status
        self.delay = delay
        self.spans: list[ReceivedSpan] = []
        self.requests = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                with receiver.lock:
                    receiver.requests += 1
                if receiver.delay:
                    time.sleep(receiver.delay)
                if self.path != "/v1/traces" or self.headers.get("content-type") != "application/x-protobuf":
                    self.send_error(404 if self.path != "/v1/traces" else 415)
                    return
                if receiver.status != 200:
                    self.send_error(receiver.status)
                    return
                request = ExportTraceServiceRequest.FromString(body)
                with receiver.lock:
                    receiver.spans += list(_spans(request))
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def stop(self) -> None:
        """The collector goes away: its port refuses connections from now on."""
        self.server.shutdown()
        self.server.server_close()

    def __exit__(self, *exc: object) -> None:
        if self.thread.is_alive():
            self.stop()
        self.thread.join(5)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[ReceivedSpan]:
        """The spans received once there are ``count`` (``AssertionError`` after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                if len(self.spans) >= count:
                    return list(self.spans)
            assert time.monotonic() < deadline, f"{len(self.spans)} spans received, {count} expected"
            time.sleep(0.02)


def _spans(request: ExportTraceServiceRequest) -> Any:
    for resource_spans in request.resource_spans:
        resource = {item.key: value_of(item.value) for item in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield ReceivedSpan(
                    name=span.name,
                    kind=span.kind,
                    trace_id=span.trace_id,
                    span_id=span.span_id,
                    parent_span_id=span.parent_span_id,
                    attributes={item.key: value_of(item.value) for item in span.attributes},
                    status_code=span.status.code,
                    status_message=span.status.message,
                    resource=resource,
                )


SERVER = ProtoSpan.SpanKind.SPAN_KIND_SERVER
INTERNAL = ProtoSpan.SpanKind.SPAN_KIND_INTERNAL
