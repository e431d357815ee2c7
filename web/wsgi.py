"""The production server: waitress, with the caps a Raspberry Pi on an open table network needs.

Werkzeug's development server starts one thread per connection with no limit and no timeout: 3,000
slow-header connections grew to 3,002 threads and 476 MB. Waitress keeps connections in one event loop
and runs requests on a fixed pool of threads; on top of it:

- at most ``PER_ADDRESS_CONNECTIONS`` open connections per client address (``connection_limit`` in all);
- a request whose headers have not arrived ``HEADER_TIMEOUT`` seconds after its first byte (or a
  connection that sent nothing at all in that time) is closed; idle keep-alive connections after
  ``IDLE_TIMEOUT``;
- live pages (server-sent events) each hold a worker thread, so they are capped in all and per address,
  and each stream ends after ``LIVE_STREAM_SECONDS`` (the browser reconnects by itself): a flood of
  ``/events`` can never take the threads that serve the pages and the changes;
- a connection's output buffer is let go every ``OUTPUT_BUFFER_BYTES``: a live page never holds all it was sent.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from waitress.server import TcpWSGIServer

THREADS = 32                   # worker threads: requests are short; live pages take LIVE_STREAMS of them
LIVE_STREAMS = 24              # live pages in all (twenty phones and the host screen) ...
LIVE_STREAMS_PER_ADDRESS = 4   # ... and per address (one phone: a page, a reload, a second tab)
LIVE_STREAM_SECONDS = 600.0
CONNECTIONS = 200
PER_ADDRESS_CONNECTIONS = 24   # a browser opens about six at once
HEADER_TIMEOUT = 10.0
IDLE_TIMEOUT = 30.0
# Waitress keeps every byte a connection has sent in its in-memory output buffer until the buffer has taken this
# many (its ``outbuf_high_watermark``, 16 MB by default), then starts a new one (waitress issue 265): a live page's
# stream of 50 KB dashboards held up to 16 MB, and twenty open pages grew `companion serve --demo` by 3.5 MB a second
# to 512 MB in 90 s (338 MB with no page open). With 256 KB a page holds at most that and one dashboard more. The
# watermark is also where a response waits for a slow reader, which a large download (the store's export) still does
# in 256 KB steps.
OUTPUT_BUFFER_BYTES = 256 * 1024

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WSGIApp = Callable[[Environ, StartResponse], Iterable[bytes]]


class LiveStreamLimit:
    """WSGI middleware: caps the server-sent event streams (any path ending in ``/events``)."""

    def __init__(self, app: WSGIApp, total: int = LIVE_STREAMS, per_address: int = LIVE_STREAMS_PER_ADDRESS,
                 lifetime: float = LIVE_STREAM_SECONDS) -> None:
        self.app = app
        self.total = total
        self.per_address = per_address
        self.lifetime = lifetime
        self._lock = threading.Lock()
        self._open: dict[str, int] = defaultdict(int)
        self.stopping = threading.Event()  # set at shutdown: each stream ends at its next chunk

    @property
    def open_streams(self) -> int:
        with self._lock:
            return sum(self._open.values())

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        if not str(environ.get("PATH_INFO", "")).endswith("/events"):
            return self.app(environ, start_response)
        address = str(environ.get("REMOTE_ADDR") or "?")
        with self._lock:
            if sum(self._open.values()) >= self.total or self._open[address] >= self.per_address:
                body = b'{"error": "Too many live pages are open; close some and reload."}'
                start_response("503 Service Unavailable", [("Content-Type", "application/json"),
                                                           ("Content-Length", str(len(body))),
                                                           ("Retry-After", "10")])
                return [body]
            self._open[address] += 1
        try:
            inner = self.app(environ, start_response)
        except BaseException:
            self._release(address)
            raise
        return self._bounded(inner, address)

    def _bounded(self, inner: Iterable[bytes], address: str) -> Iterator[bytes]:
        deadline = time.monotonic() + self.lifetime
        try:
            for chunk in inner:
                if self.stopping.is_set():
                    break
                yield chunk
                if time.monotonic() > deadline:
                    break  # the page reconnects (EventSource retry) and gets a fresh slot
        finally:
            close = getattr(inner, "close", None)
            if close is not None:
                close()
            self._release(address)

    def _release(self, address: str) -> None:
        with self._lock:
            self._open[address] -= 1
            if self._open[address] <= 0:
                del self._open[address]


class TableServer(TcpWSGIServer):
    """Waitress's TCP server with a per-address connection cap and a header timeout."""

    live_limit: LiveStreamLimit | None = None

    per_address = PER_ADDRESS_CONNECTIONS
    header_timeout = HEADER_TIMEOUT
    refused = 0  # connections closed at once for going over the per-address cap

    def handle_accept(self) -> None:
        try:
            accepted = self.accept()
            if accepted is None:
                return
            conn, addr = accepted
        except OSError:
            return
        host = addr[0] if isinstance(addr, tuple) else str(addr)
        same = sum(1 for ch in list(self.active_channels.values()) if getattr(ch, "addr", (None,))[0] == host)
        if same >= self.per_address:
            self.refused += 1
            conn.close()
            return
        self.channel_class(self, conn, addr, self.adj, map=self._map)

    def maintenance(self, now: float) -> None:
        super().maintenance(now)  # idle keep-alive connections (channel_timeout)
        for channel in list(self.active_channels.values()):
            request = channel.request
            if request is not None and not request.headers_finished:
                started = getattr(request, "first_byte_at", None)
                if started is None:
                    request.first_byte_at = now
                elif now - started > self.header_timeout:
                    channel.will_close = True  # headers trickling in: slowloris
            elif request is None and not channel.requests and channel.last_activity == channel.creation_time \
                    and now - channel.creation_time > self.header_timeout:
                channel.will_close = True  # connected, never sent a byte


def make_table_server(app: WSGIApp, host: str, port: int, *, threads: int = THREADS,
                      live_streams: int = LIVE_STREAMS) -> TableServer:
    limited = LiveStreamLimit(app, total=min(live_streams, threads - 4))
    server = TableServer(limited, host=host, port=port, threads=threads, connection_limit=CONNECTIONS,
                         channel_timeout=IDLE_TIMEOUT, cleanup_interval=1, send_bytes=1,
                         asyncore_use_poll=True, ident="companion", clear_untrusted_proxy_headers=True,
                         max_request_header_size=16 * 1024, max_request_body_size=1024 * 1024,
                         outbuf_high_watermark=OUTPUT_BUFFER_BYTES, expose_tracebacks=False)
    server.live_limit = limited
    return server
