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
    p.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                   help="longest a request may take, body and tagging (default 10)")
    p.add_argument("--threads", type=int, metavar="N",
                   help="BLAS threads (default 1; see senna --help); set before NumPy loads")
    return p


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    if min(a.max_body, a.max_tokens) < 1 or a.timeout <= 0 or not 0 <= a.port < 65536:
        raise UsageError("--max-body, --max-tokens and --timeout must be positive, "
                         "--port in 0..65535", "senna serve")
    try:
        import uvicorn

        from senna.serve.app import Limits, create_app
    except ImportError as e:   # pragma: no cover - depends on the installation
        raise missing_extra("serve needs Starlette and uvicorn", "serve", "starlette uvicorn",
                            e) from None
    limits = Limits(a.max_body, a.max_tokens, a.timeout)
    app = create_app(limits=limits, model_dir=a.model_dir, tasks=a.tasks.split(","))
    print(f"senna serve: http://{a.host}:{a.port}/ (tasks {','.join(app.state.service.base.tasks)}"
          "; Ctrl-C stops)", file=sys.stderr)
    uvicorn.run(app, host=a.host, port=a.port, log_level="warning", access_log=False)
    return 0
