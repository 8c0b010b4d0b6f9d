"""Running the app on uvicorn with timeouts for connections that stall.

uvicorn (0.29 to 0.54 at least) times out only idle keep-alive connections
(`timeout_keep_alive`, armed when a response is complete and stopped by the first byte of
the next request): a client that opens a connection and sends part of a request line, or
of its headers, holds it open for as long as it likes, and many such clients hold the
server's sockets.  Its settings have no header timeout (`h11_max_incomplete_event_size`
bounds the headers' size, not their time; `limit_concurrency` refuses connections beyond
a count with a 503).  `HeaderTimeoutProtocol` adds one: the request line and headers must
arrive within `header_timeout` seconds of the connection's opening or of its previous
response, else the connection is closed.  The body has its own deadline in the app
(`Limits.timeout_s`, a 408).
"""

from __future__ import annotations

import asyncio

from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

from senna.serve.limits import Limits

MAX_CONNECTIONS = 1000   # uvicorn's limit_concurrency: connections and requests at once
SHUTDOWN_S = 5           # at Ctrl-C, requests in progress get this long to finish


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request line and headers take
    longer than `header_timeout` seconds."""

    header_timeout: float = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        self._await_headers()

    def _await_headers(self) -> None:
        """Start the clock for the next request's headers: they have arrived once uvicorn
        has started a new request cycle."""
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_late,
                                                  self.cycle)

    def _headers_late(self, cycle: object) -> None:
        if self.cycle is cycle and not self.transport.is_closing():
            self.transport.close()

    def on_response_complete(self) -> None:
        self._await_headers()   # first: a pipelined request it starts has arrived in time
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        super().connection_lost(exc)


def protocol(header_timeout: float) -> type[HeaderTimeoutProtocol]:
    """The protocol class with this header timeout (uvicorn takes a class)."""
    return type("HeaderTimeoutProtocol", (HeaderTimeoutProtocol,),
                {"header_timeout": header_timeout})


def run(app: Starlette, host: str, port: int, limits: Limits) -> None:
    """Serve `app` until interrupted, with the connection timeouts of `limits`."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False,
                http=protocol(limits.header_timeout_s), timeout_keep_alive=limits.keep_alive_s,
                limit_concurrency=MAX_CONNECTIONS, timeout_graceful_shutdown=SHUTDOWN_S)
