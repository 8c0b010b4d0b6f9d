"""Running the app on uvicorn, with a connection layer that no client can exhaust.

uvicorn (0.29 to 0.55 at least) times out only idle keep-alive connections
(`timeout_keep_alive`, armed when a response is complete and stopped by the first byte of
the next request): a client that opens a connection and sends part of a request line, or
of its headers, holds it open for as long as it likes.  Its one bound on connections,
`limit_concurrency`, counts every open socket, those that never sent a byte included, and
answers each request beyond it with a 503 (logging a line for each): one client holding
a thousand idle sockets, reopening each one the moment it is closed, had every other
client's requests refused.  So `limit_concurrency` is off, and `GuardedProtocol`, a
subclass of uvicorn's h11 protocol passed as its `http` class, keeps its own books:

* a connection is *idle* from its opening until its request line and headers have
  arrived, and again between requests; it is *in progress* from then until its response
  is complete;
* per client address at most `client_idle` idle connections and `client_connections` in
  all; over either, that address's longest-idle connection is closed (the new one, if
  none of its others is idle);
* over all clients at most `max_idle` idle connections and `max_connections` in all; over
  either, the longest-idle connection of the address holding the most idle ones is closed.

An idle connection is cheap to close and to reopen, so closing one never costs a request
its place; requests in progress are bounded by the app (`max_pending`, per client
`client_pending`).  The request line and headers must arrive within `header_timeout`
seconds of the connection's opening or of its previous response, else the connection is
closed; the body has its own deadline in the app (`Limits.timeout_s`, a 408).  Closings
are logged as one line at most every `LOG_EVERY_S` seconds, with their count.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

from senna.serve.limits import Limits

SHUTDOWN_S = 5     # at Ctrl-C, requests in progress get this long to finish
LOG_EVERY_S = 60   # at most one log line about closed connections per minute
log = logging.getLogger("senna.serve")


@dataclass
class Connections:
    """The open connections by client address, oldest first, each idle or in progress."""

    limits: Limits
    peers: dict[str, list[GuardedProtocol]] = field(default_factory=dict)
    total: int = 0
    idle: int = 0
    closed: int = 0          # closed over a limit since the last log line
    logged_at: float = float("-inf")

    def opened(self, conn: GuardedProtocol) -> None:
        conn.idle_since = time.monotonic()
        self.peers.setdefault(conn.peer, []).append(conn)
        self.total += 1
        self.idle += 1
        mine = self.peers[conn.peer]
        lim = self.limits
        if sum(c.idle_since is not None for c in mine) > lim.client_idle \
                or len(mine) > lim.client_connections:
            self.close(self.longest_idle(mine) or conn, "per client")
        while (self.idle > lim.max_idle or self.total > lim.max_connections) and self.idle:
            peer = max(self.peers.values(), key=lambda cs: sum(c.idle_since is not None
                                                               for c in cs))
            self.close(self.longest_idle(peer) or conn, "over all clients")
        if self.total > lim.max_connections and conn.registered:
            self.close(conn, "over all clients")   # every other one has a request in progress

    @staticmethod
    def longest_idle(conns: list[GuardedProtocol]) -> GuardedProtocol | None:
        idle = [c for c in conns if c.idle_since is not None]
        return min(idle, key=lambda c: c.idle_since) if idle else None  # type: ignore[arg-type,return-value]

    def busy(self, conn: GuardedProtocol) -> None:
        if conn.idle_since is not None and conn.registered:
            self.idle -= 1
        conn.idle_since = None

    def rested(self, conn: GuardedProtocol) -> None:
        if conn.idle_since is None and conn.registered:
            self.idle += 1
        conn.idle_since = time.monotonic()

    def lost(self, conn: GuardedProtocol) -> None:
        """Forget `conn` (once: closing it here and losing it later both call this)."""
        if not conn.registered:
            return
        conn.registered = False
        mine = self.peers[conn.peer]
        mine.remove(conn)
        if not mine:
            del self.peers[conn.peer]
        self.total -= 1
        self.idle -= conn.idle_since is not None

    def close(self, conn: GuardedProtocol, why: str) -> None:
        self.lost(conn)
        conn.transport.close()
        self.closed += 1
        now = time.monotonic()
        if now - self.logged_at >= LOG_EVERY_S:
            log.warning("senna serve: closed %d idle or surplus connection(s) over the "
                        "connection limits (%s: --client-idle %d, --client-connections %d, "
                        "--max-idle %d, --max-connections %d); next report in %d s at most",
                        self.closed, why, self.limits.client_idle,
                        self.limits.client_connections, self.limits.max_idle,
                        self.limits.max_connections, LOG_EVERY_S)
            self.closed, self.logged_at = 0, now


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol, counted in `book` (idle or in progress, per client address)
    and closing a connection whose request line and headers take longer than
    `header_timeout` seconds."""

    header_timeout: float = 10.0
    book: Connections

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        self.peer = self.client[0] if self.client else ""
        self.idle_since: float | None = None
        self.registered = True
        self.book.opened(self)
        if self.registered:
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

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle:   # a request line and headers have arrived
            self.book.busy(self)

    def on_response_complete(self) -> None:
        self._await_headers()   # first: a pipelined request it starts has arrived in time
        self.book.rested(self)
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self.book.lost(self)
        super().connection_lost(exc)


def protocol(limits: Limits) -> type[GuardedProtocol]:
    """The protocol class for these limits, with its own books (uvicorn takes a class)."""
    return type("GuardedProtocol", (GuardedProtocol,),
                {"header_timeout": limits.header_timeout_s, "book": Connections(limits)})


def server(app: Starlette, host: str, port: int, limits: Limits):
    """A uvicorn server for `app` with the connection limits of `limits` (not started)."""
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                            http=protocol(limits), timeout_keep_alive=limits.keep_alive_s,
                            limit_concurrency=None, timeout_graceful_shutdown=SHUTDOWN_S)
    return uvicorn.Server(config)


def run(app: Starlette, host: str, port: int, limits: Limits) -> None:
    """Serve `app` until interrupted, with the connection limits of `limits`."""
    server(app, host, port, limits).run()
