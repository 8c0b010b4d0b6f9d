"""The HTTP API and page: `POST /tag`, `GET /health`, `GET /` (static files in ./static).

Why Starlette on uvicorn: an ASGI app is a plain object that tests drive in-process
(Starlette's TestClient) and that any ASGI server can run; both are small pure-Python
packages (aiohttp brings half a dozen compiled ones), and Starlette ships static-file
serving that refuses paths outside its directory.

The event loop only reads bodies, parses JSON and checks fields and cheap limits (body
bytes; whitespace-separated words against the token limit), so that a client can never
hold it: tokenising and rendering run in a small thread pool, tagging on the one tagging
thread (senna.serve.worker), and at most `Limits.max_pending` requests are in progress.
Every refused request gets a JSON `{"error": ...}`: 413 for a body, token count or SRL
output over the limit, 408 for a body not received in time, 503 past the timeout or when
busy (with Retry-After), 400 for invalid JSON, 422 for wrong types, unknown fields, tasks
or formats.  No request names a file.  docs/reliability.md, "Server limits", has the
numbers and the reasons.
"""

from __future__ import annotations

import asyncio
import gc
import json
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import senna
from senna.api import Tagger
from senna.document import Document
from senna.io.allennlp import document_json
from senna.io.output import OutputOptions, format_document
from senna.runtime.folders import model_folders
from senna.serve.limits import BadRequest, Limits
from senna.serve.worker import Expired, Job, Tagging
from senna.tasks import TASKS, normalize_tasks

__all__ = ["BadRequest", "Limits", "create_app"]

STATIC = Path(__file__).resolve().parent / "static"
ALL_TASKS = tuple(TASKS)
FORMATS = ("json", "allennlp", "conll", "conllu", "senna")
FIELDS = {"text", "tokens", "tasks", "format"}
TOKENS_ACCEPTED = ("'tokens' must be a list of strings, one token each, or a list of such "
                   "lists (one per sentence)")
REFUSED = (400, 413, 422)   # answered after Limits.refusal_delay_s
POOL_THREADS = 4   # tokenising and rendering (bounded by the body limit each)

T = TypeVar("T")
Source = str | list[list[str]]   # a request's raw text, or its sentences as tokens
SURROGATE = re.compile("[\ud800-\udfff]")   # what a JSON \uD800 escape alone decodes to


def error(status: int, message: str, retry_after: int | None = None) -> Response:
    """`{"error": message}`, ASCII-escaped: a message quoting a request's field may hold a
    lone surrogate, which UTF-8 cannot encode."""
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return Response(json.dumps({"error": message}), status_code=status, headers=headers,
                    media_type="application/json")


def render(docs: list[Document], tasks: tuple[str, ...], fmt: str) -> dict:
    """The response body.  `json`: `{"documents": [...]}`, one `Document.to_dict(tasks)`
    per text (a request's text, or each sentence given as tokens), exactly the object
    `senna --format json` prints as a line for it; `allennlp`: the sentences in one list;
    the text formats: `{"format", "output"}`."""
    if fmt == "json":
        return {"documents": [d.to_dict(tasks) for d in docs]}
    if fmt == "allennlp":
        return {"sentences": [obj for d in docs for obj in document_json(d)]}
    opts = OutputOptions(tasks)
    return {"format": fmt, "output": "".join(format_document(d, fmt, opts) for d in docs)}


def body_bytes(docs: list[Document], tasks: tuple[str, ...], fmt: str) -> bytes:
    """`render` serialised as Starlette's JSONResponse does (run off the event loop)."""
    return json.dumps(render(docs, tasks, fmt), ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode("utf-8")


def documents(tagger: Tagger, source: Source, max_tokens: int) -> list[Document]:
    """The untagged documents (one per sentence given as tokens, whose offsets index its
    words joined by spaces); a 413 past `max_tokens` (run off the event loop)."""
    if isinstance(source, str):
        docs = [tagger.document(source)]
    else:
        docs = []
        for k, s in enumerate(source):
            try:
                docs += [tagger.document(s)] if s else []
            except ValueError as e:   # one token per word (senna.text.tokenize.pretokenized_tokens)
                raise BadRequest(422, f"{TOKENS_ACCEPTED}; sentence {k + 1}: {e}") from None
    n = sum(len(s.words) for d in docs for s in d.sentences)
    if n > max_tokens:
        raise BadRequest(413, f"{n} tokens; the limit is {max_tokens} per request")
    return docs


class Service:
    """Loaded models, the tagging threads, the pool that tokenises and renders, and the
    slots of the requests in progress."""

    def __init__(self, tagger: Tagger, limits: Limits):
        self.base = tagger
        self.limits = limits
        self.tagging = Tagging(tagger, limits)
        self.pool = ThreadPoolExecutor(POOL_THREADS, thread_name_prefix="senna-serve")
        self.slots = asyncio.Semaphore(limits.max_pending)
        self.pending = 0   # requests holding a slot (shown by /health)
        self.clients: dict[str, asyncio.Semaphore] = {}   # each address's own slots
        self.users: Counter[str] = Counter()   # requests of each address waiting or in one
        self.abandoned = 0   # requests whose client went away before the answer

    async def start(self) -> None:
        self.tagging.start()

    async def stop(self) -> None:
        self.tagging.stop()
        self.pool.shutdown(wait=False, cancel_futures=True)

    async def off_loop(self, fn: Callable, *args):
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    @asynccontextmanager
    async def admitted(self, deadline: float, client: str) -> AsyncIterator[None]:
        """A slot for one request of `client`, among its own (`client_pending`) and all
        (`max_pending`): waits up to `busy_wait_s` (or the deadline), then a 503."""
        wait = max(min(self.limits.busy_wait_s, deadline - time.monotonic()), 0)
        mine = self.clients.setdefault(client, asyncio.Semaphore(self.limits.client_pending))
        self.users[client] += 1
        held: list[asyncio.Semaphore] = []
        try:
            try:
                async with asyncio.timeout(wait):
                    for slots in (mine, self.slots):
                        await slots.acquire()
                        held.append(slots)
            except TimeoutError:
                what = (f"{self.limits.client_pending} requests of this client" if not held
                        else f"{self.limits.max_pending} requests")
                raise BadRequest(503, f"busy: {what} in progress; try again shortly",
                                 retry_after=1) from None
            self.pending += 1
            try:
                yield
            finally:
                self.pending -= 1
        finally:
            for slots in held:
                slots.release()
            self.users[client] -= 1
            if not self.users[client]:
                del self.users[client], self.clients[client]

    async def respond(self, source: Source, tasks: tuple[str, ...], fmt: str,
                      deadline: float, client: str = "") -> bytes:
        """Tokenise, tag, render: the response body.  Cancelled (the client has gone, or
        the deadline passed), its queued or running job is marked so that its work stops."""
        docs = await self.off_loop(documents, self.base, source, self.limits.max_tokens)
        job = Job(tasks, docs, deadline, asyncio.get_running_loop().create_future(), client)
        self.tagging.submit(job)
        try:
            tagged = await job.future
        except asyncio.CancelledError:
            job.abandoned = True
            raise
        return await self.off_loop(body_bytes, tagged, tasks, fmt)


class ClientGone(Exception):
    """The client closed, or half-closed, its connection before its answer."""


async def gone(request: Request) -> None:
    """Returns once the client has gone: the ASGI server's `http.disconnect` (uvicorn sends
    it for a connection closed or half-closed; the body has been read already)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def unless_gone(request: Request, work: Coroutine[Any, Any, T], timeout: float) -> T:
    """`work`'s result within `timeout` (else a TimeoutError); a ClientGone, with `work`
    cancelled or never started, once the client has gone."""
    watch = asyncio.ensure_future(gone(request))
    await asyncio.sleep(0)   # a client gone already is seen before any work starts
    if watch.done():
        work.close()
        raise ClientGone
    task = asyncio.ensure_future(work)
    try:
        done, _ = await asyncio.wait({task, watch}, timeout=max(timeout, 0),
                                     return_when=asyncio.FIRST_COMPLETED)
    finally:
        watch.cancel()
        task.cancel()   # no-op when done
    if task in done:
        return task.result()
    if watch in done:
        raise ClientGone
    raise TimeoutError


async def read_json(request: Request, limits: Limits, deadline: float) -> dict:
    """The body as a JSON object, within the size limit and the deadline."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limits.max_body_bytes:
        raise BadRequest(413, f"body over {limits.max_body_bytes} bytes")
    body = bytearray()
    try:
        loop = asyncio.get_running_loop()   # whose clock need not be time.monotonic's
        async with asyncio.timeout_at(loop.time() + deadline - time.monotonic()):
            try:
                async for chunk in request.stream():
                    body += chunk
                    if len(body) > limits.max_body_bytes:
                        raise BadRequest(413, f"body over {limits.max_body_bytes} bytes")
            except ClientDisconnect:
                raise ClientGone from None
    except TimeoutError:
        raise BadRequest(408, f"body not received within {limits.timeout_s:g} s") from None
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BadRequest(400, f"invalid JSON: {e}") from None
    except RecursionError:   # the parser recurses once per level of nesting
        raise BadRequest(400, "invalid JSON: nested too deeply (a request needs 3 levels)"
                         ) from None
    if not isinstance(data, dict):
        raise BadRequest(422, "the body must be a JSON object, e.g. {\"text\": \"...\"}")
    return data


def parse_request(data: dict, served: tuple[str, ...], limits: Limits
                  ) -> tuple[Source, tuple[str, ...], str]:
    """Validate fields and the token limit as far as it can be checked without tokenising
    (every whitespace-separated word is at least one token): the text or sentences of
    tokens, tasks and format."""
    unknown = set(data) - FIELDS
    if unknown:
        raise BadRequest(422, f"unknown field(s) {sorted(unknown)}; expected {sorted(FIELDS)}")
    if ("text" in data) == ("tokens" in data):
        raise BadRequest(422, "give exactly one of 'text' (a string) or 'tokens' "
                              "(a list of strings, or a list of such lists, one per sentence)")
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
        source = data["text"]
        if not isinstance(source, str):
            raise BadRequest(422, "'text' must be a string")
        # split stops after max_tokens words: its cost does not grow with the text
        over = len(source.split(maxsplit=limits.max_tokens)) > limits.max_tokens
    else:
        source = data["tokens"]
        if isinstance(source, list) and all(isinstance(w, str) for w in source):
            source = [source]
        if not isinstance(source, list) or not all(
                isinstance(s, list) and all(isinstance(w, str) for w in s) for s in source):
            raise BadRequest(422, TOKENS_ACCEPTED)
        over = sum(map(len, source)) > limits.max_tokens
    check_unicode(source)
    if over:
        raise BadRequest(413, f"over {limits.max_tokens} words; the limit is "
                              f"{limits.max_tokens} tokens per request")
    return source, tasks, fmt


def check_unicode(source: Source) -> None:
    """A 400 for a lone surrogate (an escape such as \\ud800 without its pair): such a
    string is no Unicode text, and no tokeniser or encoder may be handed it."""
    texts = [source] if isinstance(source, str) else [w for s in source for w in s]
    for k, text in enumerate(texts):
        found = None if text.isascii() else SURROGATE.search(text)
        if found:
            where = (f"'text' at character {found.start()}" if isinstance(source, str)
                     else f"'tokens' in token {k + 1}")
            raise BadRequest(400, f"invalid Unicode: a lone surrogate U+{ord(found.group()):04X}"
                                  f" in {where}; send text as UTF-8 (a surrogate escape "
                                  "must be followed by its pair)")


def create_app(tagger: Tagger | None = None, limits: Limits | None = None,
               model_dir: str | None = None, tasks: Sequence[str] | None = None,
               models: Mapping[str, str] | None = None,
               threads: int | None = None) -> Starlette:
    """The ASGI app; loads the models once (or takes a loaded tagger).  `tasks`: default
    every task, or the task of the model whose own folder `model_dir` is; `models`: task
    -> a model's own folder; `threads`: BLAS threads while tagging (senna.load)."""
    limits = limits or Limits()
    if tagger is None:
        where = model_folders(model_dir, models)
        # the parser is served by default only where its model is (none is shipped yet)
        tasks = tasks or where.default_tasks(tuple(t for t in ALL_TASKS if not TASKS[t].tree
                                                   or where.of(t).is_dir()))
        tagger = senna.load(model_dir, tasks, models=models, threads=threads)
    service = Service(tagger, limits)
    service.base.pipeline.preload()   # the first request then waits no longer than others
    gc.freeze()   # the models' millions of objects: full collections need not scan them

    async def tag(request: Request) -> Response:
        start = time.monotonic()
        deadline = start + limits.timeout_s
        try:
            data = await read_json(request, limits, deadline)
            source, tasks, fmt = parse_request(data, service.base.tasks, limits)
            client = request.client.host if request.client else ""
            async with service.admitted(deadline, client):
                try:
                    body = await unless_gone(
                        request, service.respond(source, tasks, fmt, deadline, client),
                        deadline - time.monotonic())
                except (TimeoutError, Expired):
                    raise BadRequest(503, f"tagging took over {limits.timeout_s:g} s; "
                                          "send less text per request") from None
        except ClientGone:   # nobody reads the answer: none is made
            service.abandoned += 1
            return error(503, "the client closed the connection")
        except BadRequest as e:
            if e.status in REFUSED:
                await asyncio.sleep(max(limits.refusal_delay_s, 2 * (time.monotonic() - start)))
            return error(e.status, str(e), e.retry_after)
        return Response(body, media_type="application/json")

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "tasks": list(service.base.tasks),
                             "version": senna.__version__, "tagged": service.tagging.stats,
                             "pending": service.pending, "abandoned": service.abandoned,
                             "limits": limits.shown()})

    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        return error(status, getattr(exc, "detail", None) or "not found")

    async def server_error(request: Request, exc: Exception) -> Response:
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
