"""The HTTP API and page: `POST /tag`, `GET /health`, `GET /` (static files in ./static).

Why Starlette on uvicorn: an ASGI app is a plain object that tests drive in-process
(Starlette's TestClient) and that any ASGI server can run; both are small pure-Python
packages (aiohttp brings half a dozen compiled ones), and Starlette ships static-file
serving that refuses paths outside its directory.

Tagging is CPU-bound NumPy work, so it runs on one dedicated thread and never blocks the
event loop; requests that arrive while it is busy are tagged together in the next batch
(same task set, up to `Limits.batch_tokens`), which is what makes concurrent clients
cheaper than serial ones.  Every bad request gets a 4xx JSON `{"error": ...}`:
413 for a body or token count over the limit, 408 past the timeout, 400 for invalid JSON,
422 for wrong types, unknown fields, tasks or formats.  No request names a file.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import senna
from senna.api import Tagger
from senna.document import Document
from senna.integrations import view
from senna.integrations.allennlp import document_json
from senna.io.output import OutputOptions, format_document
from senna.runtime.pipeline import Pipeline
from senna.tasks import TASKS, normalize_tasks

STATIC = Path(__file__).resolve().parent / "static"
ALL_TASKS = tuple(TASKS)
FORMATS = ("json", "allennlp", "conll", "conllu", "senna")
FIELDS = {"text", "tokens", "tasks", "format"}
TOKENS_ACCEPTED = ("'tokens' must be a list of strings, one token each, or a list of such "
                   "lists (one per sentence)")


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int = 256 * 1024
    max_tokens: int = 5000
    timeout_s: float = 10.0
    batch_tokens: int = 20000


class BadRequest(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def sentence_json(sent, tasks: tuple[str, ...]) -> dict:
    """The page's view of one sentence: tokens with the requested tasks' tags (not those
    of tasks run only because a requested one reads them), spans, frames."""
    toks = [{"text": w, "start": s, "end": e} for w, (s, e) in
            zip(view.words(sent), view.offsets(sent), strict=True)]
    out: dict = {"tokens": toks}
    for task in view.TOKEN_TASKS:
        if task in tasks:
            for tok, tag in zip(toks, view.tags(sent, task) or [], strict=False):
                tok[task] = tag
    for task in view.SPAN_TASKS:
        if task in tasks:
            out[TASKS[task].span_field or task] = [list(s) for s in view.spans(sent, task)]
    if any(TASKS[t].per_predicate for t in tasks):
        out["frames"] = [{"predicate": p, "verb": toks[p]["text"], "tags": tags,
                          "arguments": [list(a) for a in view.arguments(tags)]}
                         for p, tags in view.frames(sent)]
    return out


def render(docs: list[Document], tasks: tuple[str, ...], fmt: str) -> dict:
    """The response body: the documents' sentences in one list (or text in `fmt`)."""
    if fmt == "json":
        return {"tasks": list(tasks),
                "sentences": [sentence_json(s, tasks) for d in docs for s in d.sentences]}
    if fmt == "allennlp":
        return {"sentences": [obj for d in docs for obj in document_json(d)]}
    opts = OutputOptions(tasks)
    return {"format": fmt, "output": "".join(format_document(d, fmt, opts) for d in docs)}


class Service:
    """Loaded models, one tagging thread, and the batching queue in front of it."""

    def __init__(self, tagger: Tagger, limits: Limits):
        self.base = tagger
        self.limits = limits
        self.taggers: dict[tuple[str, ...], Tagger] = {tagger.tasks: tagger}
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="senna-tag")
        self.queue: asyncio.Queue | None = None
        self.worker: asyncio.Task | None = None
        self.tagged = {"requests": 0, "batches": 0}   # shown by /health

    def tagger(self, tasks: tuple[str, ...]) -> Tagger:
        """A tagger for a subset of the served tasks, sharing the loaded models."""
        if tasks not in self.taggers:
            pipe = Pipeline(self.base.pipeline.root, tasks, models=self.base.pipeline.models)
            pipe.models = {t: pipe.models[t] for t in pipe.order}   # only those it runs
            self.taggers[tasks] = Tagger(pipe)
        return self.taggers[tasks]

    async def start(self) -> None:
        self.queue = asyncio.Queue()
        self.worker = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self.worker:
            self.worker.cancel()
        self.executor.shutdown(wait=False, cancel_futures=True)

    async def tag(self, docs: list[Document], tasks: tuple[str, ...]) -> list[Document]:
        fut = asyncio.get_running_loop().create_future()
        await self.queue.put((tasks, docs, fut))
        return await fut

    async def _run(self) -> None:
        """Take the first waiting request and every other one with the same tasks (up to
        `batch_tokens`), tag them in one call on the tagging thread, hand out results."""
        loop = asyncio.get_running_loop()
        held: list = []
        while True:
            first = held.pop(0) if held else await self.queue.get()
            batch, size = [first], ntokens(first[1])
            while not self.queue.empty():
                held.append(self.queue.get_nowait())
            keep = []
            for item in held:
                if item[0] == first[0] and size + ntokens(item[1]) <= self.limits.batch_tokens:
                    batch.append(item)
                    size += ntokens(item[1])
                else:
                    keep.append(item)
            held = keep
            batch = [item for item in batch if not item[2].done()]   # timed out meanwhile
            if not batch:
                continue
            tagger = self.tagger(first[0])
            try:
                docs = await loop.run_in_executor(
                    self.executor, tagger.tag_documents, [d for item in batch for d in item[1]])
            except Exception as e:   # noqa: BLE001 - handed to each waiting request
                for item in batch:
                    if not item[2].done():
                        item[2].set_exception(e)
                continue
            self.tagged["requests"] += len(batch)
            self.tagged["batches"] += 1
            tagged = iter(docs)
            for item in batch:
                mine = [next(tagged) for _ in item[1]]
                if not item[2].done():
                    item[2].set_result(mine)


def ntokens(docs: list[Document]) -> int:
    return sum(len(view.words(s)) for d in docs for s in d.sentences)


async def read_json(request: Request, limits: Limits, deadline: float) -> dict:
    """The body as a JSON object, within the size limit and the deadline."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limits.max_body_bytes:
        raise BadRequest(413, f"body over {limits.max_body_bytes} bytes")
    body = bytearray()
    stream = request.stream().__aiter__()
    while True:
        try:
            chunk = await asyncio.wait_for(stream.__anext__(), deadline - time.monotonic())
        except StopAsyncIteration:
            break
        except TimeoutError:
            raise BadRequest(408, f"body not received within {limits.timeout_s:g} s") from None
        body += chunk
        if len(body) > limits.max_body_bytes:
            raise BadRequest(413, f"body over {limits.max_body_bytes} bytes")
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BadRequest(400, f"invalid JSON: {e}") from None
    if not isinstance(data, dict):
        raise BadRequest(422, "the body must be a JSON object, e.g. {\"text\": \"...\"}")
    return data


def parse_request(data: dict, service: Service
                  ) -> tuple[list[Document], tuple[str, ...], str]:
    """Validate fields; the untagged documents (one per sentence given as tokens, whose
    offsets index its words joined by spaces), tasks and format."""
    unknown = set(data) - FIELDS
    if unknown:
        raise BadRequest(422, f"unknown field(s) {sorted(unknown)}; expected {sorted(FIELDS)}")
    if ("text" in data) == ("tokens" in data):
        raise BadRequest(422, "give exactly one of 'text' (a string) or 'tokens' "
                              "(a list of strings, or a list of such lists, one per sentence)")
    served = service.base.tasks
    tasks = data.get("tasks", list(served))
    if isinstance(tasks, str):
        tasks = tasks.split(",")
    if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks) or not tasks:
        raise BadRequest(422, "'tasks' must be a non-empty list of task names")
    try:
        tasks = normalize_tasks(tasks)
    except ValueError as e:
        raise BadRequest(422, str(e)) from None
    if not set(tasks) <= set(served):
        raise BadRequest(422, f"this server runs {', '.join(served)}; "
                              f"not {', '.join(sorted(set(tasks) - set(served)))}")
    fmt = data.get("format", "json")
    if fmt not in FORMATS:
        raise BadRequest(422, f"'format' must be one of {', '.join(FORMATS)}")
    if "text" in data:
        if not isinstance(data["text"], str):
            raise BadRequest(422, "'text' must be a string")
        docs = [service.base.document(data["text"])]
    else:
        sents = data["tokens"]
        if isinstance(sents, list) and all(isinstance(w, str) for w in sents):
            sents = [sents]
        if not isinstance(sents, list) or not all(
                isinstance(s, list) and all(isinstance(w, str) for w in s) for s in sents):
            raise BadRequest(422, TOKENS_ACCEPTED)
        docs = []
        for k, s in enumerate(sents):
            try:
                docs += [service.base.document(s)] if s else []
            except ValueError as e:   # one token per word (senna.text.tokenize.pretokenized_tokens)
                raise BadRequest(422, f"{TOKENS_ACCEPTED}; sentence {k + 1}: {e}") from None
    n = ntokens(docs)
    if n > service.limits.max_tokens:
        raise BadRequest(413, f"{n} tokens; the limit is {service.limits.max_tokens} "
                              "per request")
    return docs, tasks, fmt


def create_app(tagger: Tagger | None = None, limits: Limits = Limits(),
               model_dir: str | None = None, tasks=ALL_TASKS) -> Starlette:
    """The ASGI app; loads the models once (or takes a loaded tagger)."""
    service = Service(tagger or senna.load(model_dir, tasks), limits)
    service.base.pipeline.preload()   # the first request then waits no longer than others
    gc.freeze()   # the models' millions of objects: full collections need not scan them

    async def tag(request: Request) -> JSONResponse:
        deadline = time.monotonic() + limits.timeout_s
        try:
            data = await read_json(request, limits, deadline)
            docs, tasks, fmt = parse_request(data, service)
            try:
                tagged = await asyncio.wait_for(service.tag(docs, tasks),
                                                deadline - time.monotonic())
            except TimeoutError:
                raise BadRequest(408, f"tagging took over {limits.timeout_s:g} s; "
                                      "send less text per request") from None
        except BadRequest as e:
            return error(e.status, str(e))
        return JSONResponse(render(tagged, tasks, fmt))

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "tasks": list(service.base.tasks),
                             "version": senna.__version__, "tagged": service.tagged,
                             "limits": {"max_body_bytes": limits.max_body_bytes,
                                        "max_tokens": limits.max_tokens,
                                        "timeout_s": limits.timeout_s}})

    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def not_found(request: Request, exc: Exception) -> JSONResponse:
        status = getattr(exc, "status_code", 404)
        return error(status, getattr(exc, "detail", None) or "not found")

    async def server_error(request: Request, exc: Exception) -> JSONResponse:
        return error(500, f"internal error: {type(exc).__name__}")

    @asynccontextmanager
    async def lifespan(app: Starlette):
        await service.start()
        yield
        await service.stop()

    routes = [Route("/", index), Route("/tag", tag, methods=["POST"]),
              Route("/health", health), Mount("/static", StaticFiles(directory=STATIC))]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={404: not_found, 405: not_found, Exception: server_error})
    app.state.service = service
    return app
