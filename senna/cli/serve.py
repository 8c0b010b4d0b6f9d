"""`senna serve [--host 127.0.0.1] [--port 8080]`: the HTTP API and page (extra `serve`);
see senna.serve.app."""

from __future__ import annotations

import argparse
import sys

from senna.cli.args import (
    Parser,
    UsageError,
    add_model_options,
    chosen_model_dir,
    missing_extra,
    task_folders,
)
from senna.serve.limits import Limits

DEFAULTS = Limits()
# (option, Limits field, type, metavar, help): the limits a user sets, defaults from Limits
LIMIT_OPTIONS = (
    ("--max-body", "max_body_bytes", int, "BYTES", "largest request body"),
    ("--max-tokens", "max_tokens", int, "N", "most tokens per request"),
    ("--max-roles", "max_roles", int, "N", "most SRL role tags per request: predicates x "
     "words of their sentence, the size of SRL's output"),
    ("--timeout", "timeout_s", float, "SECONDS", "longest a request may take, body and "
     "tagging; its work stops then"),
    ("--max-pending", "max_pending", int, "N", "requests in progress at once; more wait up "
     "to a second, then get a 503"),
    ("--client-pending", "client_pending", int, "N", "requests in progress at once from one "
     "client address; more wait up to a second, then get a 503"),
    ("--client-idle", "client_idle", int, "N", "idle connections (no request yet, or between "
     "requests) of one client address; over it its longest-idle one is closed"),
    ("--client-connections", "client_connections", int, "N", "connections of one client "
     "address, idle or not; over it its longest-idle one (or the new one) is closed"),
    ("--max-idle", "max_idle", int, "N", "idle connections of all clients; over it the "
     "longest-idle one of the address with the most is closed"),
    ("--max-connections", "max_connections", int, "N", "connections of all clients; over it "
     "an idle one is closed, or the new one if none is idle"),
    ("--header-timeout", "header_timeout_s", float, "SECONDS", "a connection's request line "
     "and headers must arrive within this time, else it is closed"),
    ("--keep-alive", "keep_alive_s", float, "SECONDS", "idle time before a keep-alive "
     "connection is closed"),
    ("--refusal-delay", "refusal_delay_s", float, "SECONDS", "a refused request (400, 413, "
     "422) is answered after this delay, or after twice as long as refusing it took"),
)


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna serve",
                description="Serve the tagger: POST /tag (JSON), GET /health, GET / (page).")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    p.add_argument("--tasks", help="tasks to load and serve (default all built-in ones, the "
                                   "parser where its model is there, or the task of the "
                                   "model whose own folder --model-dir is)")
    add_model_options(p, "a folder of models holding pos/ chunk/ ...")
    for option, field, kind, metavar, what in LIMIT_OPTIONS:
        p.add_argument(option, dest=field, type=kind, default=getattr(DEFAULTS, field),
                       metavar=metavar, help=f"{what} (default %(default)s)")
    p.add_argument("--threads", type=int, metavar="N",
                   help="BLAS threads per tagging thread (default 1; 0: the library's default)")
    return p


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    models = task_folders(a.models, "senna serve")
    a.model_dir = chosen_model_dir(a, "senna serve")
    if (min(a.max_body_bytes, a.max_tokens, a.max_roles, a.max_pending, a.client_pending,
            a.client_idle, a.client_connections, a.max_idle, a.max_connections) < 1
            or min(a.timeout_s, a.header_timeout_s, a.keep_alive_s) <= 0
            or a.refusal_delay_s < 0 or not 0 <= a.port < 65536):
        raise UsageError("--max-body, --max-tokens, --max-roles, --max-pending, the "
                         "client and connection limits and the timeouts must be positive, "
                         "--refusal-delay 0 or more, --port in 0..65535", "senna serve")
    try:   # the extra itself, before any model loads (senna.serve may be imported already)
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401

        from senna.serve.app import create_app
        from senna.serve.server import run
    except ImportError as e:   # pragma: no cover - depends on the installation
        raise missing_extra("serve needs Starlette and uvicorn", "serve", "starlette uvicorn",
                            e) from None
    limits = Limits(**{field: getattr(a, field) for _, field, *_ in LIMIT_OPTIONS})
    app = create_app(limits=limits, model_dir=a.model_dir,
                     tasks=None if a.tasks is None else a.tasks.split(","), models=models,
                     threads=a.threads)
    print(f"senna serve: http://{a.host}:{a.port}/ (tasks {','.join(app.state.service.base.tasks)}"
          "; Ctrl-C stops)", file=sys.stderr)
    run(app, a.host, a.port, limits)
    return 0
