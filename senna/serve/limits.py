"""What one request, and the server as a whole, may cost (docs/reliability.md, "Server
limits"), and the error a request gets when it asks for more."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Limits:
    """Per request: body bytes, tokens and SRL role tags (predicates x words of their
    sentences, which is what SRL costs and what its output holds); the time from the first
    byte of the body to the response.  Per server: requests in progress (`max_pending`,
    beyond it one waits up to `busy_wait_s`, then gets a 503), tokens per batch of small
    requests, and when a request counts as large (more than `small_tokens` tokens, or a cost
    over `small_cost`: senna.serve.worker.Job.cost; tagged on a second thread).  Per client
    address: requests in progress (`client_pending`).  Connections (senna.serve.server):
    idle ones (no request line and headers yet, or between requests) and all, per client
    address and over all clients; `header_timeout_s` to send the request line and headers,
    `keep_alive_s` idle between requests.  A refused request (400, 413, 422) is answered
    after `refusal_delay_s`, or after twice as long as refusing it took if that is longer:
    the wait costs the server no CPU, and a client that sends bad requests in a loop then
    spends at most a third of its time making the server work."""

    max_body_bytes: int = 256 * 1024
    max_tokens: int = 5000
    max_roles: int = 1_000_000
    timeout_s: float = 10.0
    batch_tokens: int = 4000
    small_tokens: int = 500
    small_cost: float = 4000.0
    max_pending: int = 64
    client_pending: int = 16
    busy_wait_s: float = 1.0
    header_timeout_s: float = 10.0
    keep_alive_s: float = 5.0
    client_idle: int = 8
    client_connections: int = 64
    max_idle: int = 256
    max_connections: int = 1000
    refusal_delay_s: float = 0.25

    def shown(self) -> dict:
        """The limits as /health shows them."""
        return asdict(self)


class BadRequest(Exception):
    """A request the server refuses: its HTTP status and a one-line reason; `retry_after`
    (seconds) when the same request may succeed later."""

    def __init__(self, status: int, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
