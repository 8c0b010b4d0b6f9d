"""`senna serve [--host 127.0.0.1] [--port 8080]`: the HTTP API and page (extra `serve`);
see senna.serve.app."""

from __future__ import annotations

import argparse
import sys

from senna.cli.args import Parser, UsageError, missing_extra


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna serve",
                description="Serve the tagger: POST /tag (JSON), GET /health, GET / (page).")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    p.add_argument("--tasks", default="pos,chunk,ner,pt0,srl",
                   help="tasks to load and serve (default all five)")
    p.add_argument("--model-dir", metavar="DIR", help="models' root (default: shipped models)")
    p.add_argument("--max-body", type=int, default=256 * 1024, metavar="BYTES",
                   help="largest request body (default 262144)")
    p.add_argument("--max-tokens", type=int, default=5000,
                   help="most tokens per request (default 5000)")
    p.add_argument("--max-roles", type=int, default=1_000_000, metavar="N",
                   help="most SRL role tags per request: predicates x words of their "
                        "sentence, the size of SRL's output (default 1000000)")
    p.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                   help="longest a request may take, body and tagging (default 10); "
                        "its work stops then")
    p.add_argument("--max-pending", type=int, default=64, metavar="N",
                   help="requests in progress at once; more wait up to a second, then get "
                        "a 503 (default 64)")
    p.add_argument("--header-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="a connection's request line and headers must arrive within this "
                        "time, else it is closed (default 10)")
    p.add_argument("--keep-alive", type=float, default=5.0, metavar="SECONDS",
                   help="idle time before a keep-alive connection is closed (default 5)")
    p.add_argument("--refusal-delay", type=float, default=0.25, metavar="SECONDS",
                   help="a refused request (400, 413, 422) is answered after this delay, or "
                        "after twice as long as refusing it took (default 0.25)")
    p.add_argument("--threads", type=int, metavar="N",
                   help="BLAS threads (default 1; see senna --help); set before NumPy loads")
    return p


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    if (min(a.max_body, a.max_tokens, a.max_roles, a.max_pending) < 1
            or min(a.timeout, a.header_timeout, a.keep_alive) <= 0 or a.refusal_delay < 0
            or not 0 <= a.port < 65536):
        raise UsageError("--max-body, --max-tokens, --max-roles, --max-pending and the "
                         "timeouts must be positive, --refusal-delay 0 or more, --port in "
                         "0..65535", "senna serve")
    try:
        from senna.serve.app import Limits, create_app
        from senna.serve.server import run
    except ImportError as e:   # pragma: no cover - depends on the installation
        raise missing_extra("serve needs Starlette and uvicorn", "serve", "starlette uvicorn",
                            e) from None
    limits = Limits(max_body_bytes=a.max_body, max_tokens=a.max_tokens, max_roles=a.max_roles,
                    timeout_s=a.timeout, max_pending=a.max_pending,
                    header_timeout_s=a.header_timeout, keep_alive_s=a.keep_alive,
                    refusal_delay_s=a.refusal_delay)
    app = create_app(limits=limits, model_dir=a.model_dir, tasks=a.tasks.split(","))
    print(f"senna serve: http://{a.host}:{a.port}/ (tasks {','.join(app.state.service.base.tasks)}"
          "; Ctrl-C stops)", file=sys.stderr)
    run(app, a.host, a.port, limits)
    return 0
