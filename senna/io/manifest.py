"""`manifest.json`: the size and SHA-256 of every file a model (or embeddings) directory
loads from, written whenever the directory is saved and checked whenever it is loaded.

Why: the load-time checks catch files that are broken (cut short, wrong shapes, values
out of range), but not files that are valid and different: tags reordered in config.json,
another gazetteer, a vocabulary edited by hand.  A tagger reading them exits 0 with wrong
tags.  The checksums make any change since the save an error that names the file.
Checking costs a read of the files and about 1.3 ms of CPU per MB of SHA-256 (23 ms for
the POS tagger and its embeddings), the files hashed in parallel (`verify`).  Directories
saved before manifests existed load with a one-line warning, and their vocabularies are
checked in full instead (a manifest vouches that the saved vocabularies had no
duplicates).

`senna manifest DIR ...` loads a model or embeddings directory with every check and then
writes its manifest (for directories saved by an older senna).

The sizes and the checksums are compared before any file is parsed: a vocabulary replaced
by a small gzip of gigabytes is refused by its size, not decompressed, and a config.json
edited to the same size is refused before it is read.
A model's sub-folders that hold models of their own (the parser's `pt0/` and `nml/`, an
ensemble's members, a model's own `embeddings/`) are recorded by their manifests, so a
sub-model deleted or replaced since the save is an error too; one added since (a tagger
trained into a parser's folder) loads with a warning until `senna manifest DIR` records it.

Every file a model names must be a regular file inside its folder: a FIFO, a device, a
symlink loop, a link leading out of the folder, a manifest entry with `..`, or JSON
nested beyond `JSON_DEPTH` is one error line naming the file.

A manifest protects against accidents (a bad copy, an edit, a file replaced), not against
someone who rewrites the manifest too.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import stat
import sys
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO

MANIFEST = "manifest.json"
FORMAT = "senna-manifest"
VERSION = 1
_BLOCK = 1 << 20
_WARNED: set[str] = set()
_QUIET = False
#: Largest JSON file of a model folder read (config.json, manifest.json, ensemble.json,
#: embeddings.json): the shipped parser's config.json, the largest, is 6 KB.
JSON_LIMIT = 16 << 20
#: Deepest nesting of arrays and objects in those files (the shipped ones nest 4 deep).
JSON_DEPTH = 64
#: Most files one manifest may list (a model folder holds a dozen or two).
MAX_FILES = 10_000
# a manifest entry: '/'-separated names, none empty, '.' or '..', no backslash
_ENTRY = re.compile(r"(?!\.{1,2}(/|$))[^/\\\0]+(/(?!\.{1,2}(/|$))[^/\\\0]+)*")


class ManifestError(ValueError):
    """A directory's files are not those it was saved with (or lead out of it)."""


def _stat(path: Path) -> os.stat_result:
    """os.stat, a symlink loop or an unreadable path as one ManifestError line."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        raise
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise ManifestError(f"{path}: a symlink loop") from None
        raise ManifestError(f"{path}: unreadable ({e.strerror or e})") from None


def regular(path: str | os.PathLike) -> int:
    """The size of `path`, which must be a regular file (after links): a FIFO would block
    its reader forever, a device or a directory is no model file.  FileNotFoundError when
    there is none; ManifestError otherwise."""
    path = Path(path)
    st = _stat(path)
    if not stat.S_ISREG(st.st_mode):
        what = "a directory" if stat.S_ISDIR(st.st_mode) else \
            "a FIFO" if stat.S_ISFIFO(st.st_mode) else "not a regular file"
        raise ManifestError(f"{path}: {what}, where a regular file is expected")
    return st.st_size


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """`path` opened for reading in binary, refused unless it is a regular file.  Opened
    without blocking (a FIFO put there after the check cannot hang the open) and checked
    again on the open file."""
    path = Path(path)
    regular(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise ManifestError(f"{path}: a symlink loop") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ManifestError(f"{path}: not a regular file, where one is expected")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_limited(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (refused, unread, if longer)."""
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise ManifestError(f"{path}: {size:,} bytes, more than the {limit:,} such a file "
                                "may have")
        data = f.read(size + 1)   # not limit + 1: read() sets aside what it is asked for
        if len(data) > size:       # grown since: read on, up to the limit
            data += f.read(limit + 1 - len(data))
    if len(data) > limit:
        raise ManifestError(f"{path}: more than the {limit:,} bytes such a file may have")
    return data


def _depth(text: str) -> int:
    """The deepest nesting of brackets in JSON text, strings skipped (a bound checked
    before parsing: the parser recurses once per level)."""
    depth = deepest = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        c = m.group()
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def read_json(path: str | os.PathLike, limit: int = JSON_LIMIT) -> Any:
    """A model folder's JSON file, read as a regular file of at most `limit` bytes, UTF-8,
    nested at most JSON_DEPTH deep: the one reader of config.json, manifest.json,
    ensemble.json and embeddings.json.  FileNotFoundError when it is missing, ManifestError
    (one line naming the file) for anything else wrong."""
    data = read_limited(path, limit)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ManifestError(f"{path}: corrupt (not UTF-8: {e})") from None
    if text.count("[") + text.count("{") > JSON_DEPTH and _depth(text) > JSON_DEPTH:
        raise ManifestError(f"{path}: corrupt (nested more than {JSON_DEPTH} deep)")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise ManifestError(f"{path}: corrupt ({e})") from None


def resolved(path: Path) -> Path:
    """path.resolve(), a symlink loop as one ManifestError line."""
    try:
        return path.resolve()
    except (RuntimeError, OSError) as e:
        raise ManifestError(f"{path}: a symlink loop ({e})") from None


def within(root: Path, relative: str, what: str, file: Path) -> Path:
    """root/relative, which `file` names (`what`: e.g. 'member'): ManifestError unless it
    is a relative path that stays inside `root` once links are followed."""
    if not isinstance(relative, str) or not relative:
        raise ManifestError(f"{file}: {what} must be a path relative to {root}, got "
                            f"{relative!r}")
    if os.path.isabs(relative):
        raise ManifestError(f"{file}: {what} {relative!r} is an absolute path; it must name a "
                            f"path inside {root}")
    path = root / relative
    if not resolved(path).is_relative_to(resolved(root)):
        raise ManifestError(f"{file}: {what} {relative!r} leads outside {root}; a model's "
                            "folder must hold what it names")
    return path


def digest(path: Path) -> dict[str, int | str]:
    """{"size", "sha256"} of a regular file."""
    h = hashlib.sha256()
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        while block := f.read(_BLOCK):
            h.update(block)
    return {"size": size, "sha256": h.hexdigest()}


def inside(root: Path, names: Iterable[str]) -> None:
    """ManifestError for a file of `root` that is a link leading out of it (a model directory
    must hold its own files: a link to /etc/passwd is no gazetteer) or a symlink loop."""
    top = resolved(root)
    for name in names:
        path = root / name
        if (path.is_symlink() or path.parent.is_symlink()) \
                and not resolved(path).is_relative_to(top):
            raise ManifestError(f"{path}: a link to {path.resolve()}, outside {root}; copy the "
                             "file into the directory")


def sub_manifests(root: Path, skip: Iterable[str] = ("vocab",)) -> list[str]:
    """The manifests of `root`'s sub-folders that hold a model (or embeddings) of their
    own ('pt0/manifest.json', ...), which root's manifest records."""
    out = []
    with contextlib.suppress(OSError):
        for sub in sorted(root.iterdir()):
            if sub.name not in skip and sub.is_dir() and (sub / MANIFEST).is_file():
                out.append(f"{sub.name}/{MANIFEST}")
    return out


def write_manifest(root: str | os.PathLike, names: Iterable[str]) -> None:
    """Record the files `names` (relative to `root`, '/'-separated) in root/manifest.json,
    replacing it atomically.  The one writer of manifests: every save goes through it."""
    root = Path(root)
    files = {name: digest(root / name) for name in sorted(set(names))}
    text = json.dumps({"format": FORMAT, "version": VERSION, "files": files}, indent=1) + "\n"
    tmp = root / (MANIFEST + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, root / MANIFEST)


def forget_sub_models(root: str | os.PathLike) -> None:
    """Rewrite root's manifest without its sub-folders' entries (`senna manifest DIR`
    then records the sub-models as they are now, each checked by its own manifest)."""
    root = Path(root)
    files = read_manifest(root)
    if files is not None and any(_is_sub(n) for n in files):
        kept = {n: v for n, v in files.items() if not _is_sub(n)}
        text = json.dumps({"format": FORMAT, "version": VERSION, "files": kept}, indent=1)
        tmp = root / (MANIFEST + ".tmp")
        tmp.write_text(text + "\n", encoding="utf-8")
        os.replace(tmp, root / MANIFEST)


def drop_manifest(root: str | os.PathLike) -> None:
    """Remove a directory's manifest before its files are rewritten: a save cut short then
    leaves a directory without one (loaded with a warning and checked in full), not one
    whose manifest disagrees with its files."""
    (Path(root) / MANIFEST).unlink(missing_ok=True)


def read_manifest(root: Path) -> dict[str, dict] | None:
    """name -> {"size", "sha256"}, or None when `root` has no manifest.  Every name must
    stay inside `root` (no absolute path, no '..', no link out of it): a manifest is never
    a way to stat or hash a file elsewhere."""
    file = root / MANIFEST
    try:
        data = read_json(file)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ManifestError(f"{file}: corrupt ({e})") from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("format") != FORMAT \
            or data.get("version") != VERSION or not isinstance(files, dict) \
            or not all(isinstance(v, dict) and isinstance(v.get("size"), int)
                       and isinstance(v.get("sha256"), str) for v in files.values()):
        raise ManifestError(f"{file}: not a {FORMAT} version {VERSION} file")
    if len(files) > MAX_FILES:
        raise ManifestError(f"{file}: lists {len(files):,} files, more than {MAX_FILES:,}")
    for name in files:
        if not _ENTRY.fullmatch(name):
            raise ManifestError(f"{file}: entry {name!r} is not a path inside {root}")
        within(root, name, "entry", file)
    return files


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """No load-time warnings about a directory (while its manifest is being written)."""
    global _QUIET
    _QUIET, before = True, _QUIET
    try:
        yield
    finally:
        _QUIET = before


def warn_once(root: Path, text: str) -> None:
    """`senna: warning: ROOT: TEXT` on stderr, once per directory and text (not while
    `quiet`)."""
    key = f"{root.resolve()}\0{text}"
    if key not in _WARNED and not _QUIET:
        _WARNED.add(key)
        print(f"senna: warning: {root}: {text}", file=sys.stderr)


def _is_sub(name: str) -> bool:
    """A sub-folder's manifest ('pt0/manifest.json'): a sub-model of its own."""
    return name.count("/") == 1 and name.endswith("/" + MANIFEST)


def _changed(root: Path, name: str, what: str) -> ManifestError:
    if _is_sub(name):
        return ManifestError(f"{root / name.rsplit('/', 1)[0]}: a sub-model {what} since "
                             f"{root} was saved; restore it, or `senna manifest {root}` "
                             "records it as it is")
    return ManifestError(f"{root / name}: changed since the model was saved ({what}); "
                         "retrain or restore it")


def precheck(root: str | os.PathLike, names: Iterable[str]) -> dict[str, dict] | None:
    """What can be checked before any file is parsed, and costs a stat a file: every file
    `names` (those the loader reads) is listed, and every listed file is there, a regular
    file, of its recorded size.  -> the manifest's entries, None (after a one-line warning)
    when there is none."""
    root = Path(root)
    files = read_manifest(root)
    if files is None:
        warn_once(root, f"no {MANIFEST} (saved by an older senna), so changed files cannot "
                        f"be told; `senna manifest {root}` adds one")
        return None
    for name in sorted(set(names) - set(files)):
        if _is_sub(name):   # e.g. a tagger trained into a parser's folder after the parser
            warn_once(root / name.rsplit("/", 1)[0],
                      f"a sub-model not in {root / MANIFEST} (added since the model was "
                      f"saved); `senna manifest {root}` records it")
            continue
        raise ManifestError(f"{root / name}: not in {MANIFEST}, so not saved with the model; "
                         "remove it or restore the model")
    for name, want in files.items():
        path = root / name
        try:
            size = regular(path)
        except FileNotFoundError:
            if _is_sub(name):
                raise _changed(root, name, "deleted") from None
            raise ManifestError(f"{path}: missing; restore the model") from None
        if size != want["size"]:
            raise _changed(root, name, "replaced" if _is_sub(name) else
                           f"{size:,} bytes, saved with {want['size']:,}")
    return files


def verify(root: str | os.PathLike, names: Iterable[str]) -> bool:
    """Check every file `root`'s manifest lists, and the files `names` that its loader
    reads, against the manifest, before any of them is parsed: ManifestError naming the
    first file that changed, is missing or is not listed.  -> False (after a one-line
    warning on stderr, once per directory) when there is no manifest, True when every
    file matched.  The files are hashed in parallel (hashlib lets other threads run), and
    a file already hashed in this process, unchanged since (`_digest_once`), is not
    read again."""
    root = Path(root)
    files = precheck(root, names)
    if files is None:
        return False
    got = digests(root, list(files))
    for name, want in files.items():
        if got[name] != {"size": want["size"], "sha256": want["sha256"]}:
            what = (f"{got[name]['size']:,} bytes, saved with {want['size']:,}"
                    if got[name]["size"] != want["size"] else "same size, different content")
            raise _changed(root, name, what if not _is_sub(name) else "replaced")
    return True


def digests(root: Path, names: list[str]) -> dict[str, dict[str, int | str]]:
    """name -> `digest` of each of root's files `names`, hashed in parallel."""
    workers = min(len(names), os.cpu_count() or 1, 8)
    if workers < 2:
        return {n: _digest_once(root / n) for n in names}
    with ThreadPoolExecutor(workers, thread_name_prefix="senna-manifest") as pool:
        return dict(zip(names, pool.map(lambda n: _digest_once(root / n), names),
                        strict=True))


# (device, inode, size, mtime, ctime) of a file hashed in this process -> its digest: a
# write to the file changes its ctime, which no one can set back
_DIGESTS: dict[tuple[int, ...], dict[str, int | str]] = {}
_DIGESTS_LOCK = threading.Lock()


def _digest_once(path: Path) -> dict[str, int | str]:
    """`digest(path)`, reused while the file is unchanged (a model loaded again, the
    embeddings several taggers share)."""
    st = _stat(path)
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    with _DIGESTS_LOCK:
        known = _DIGESTS.get(key)
    if known is not None:
        return known
    got = digest(path)
    if got["size"] == st.st_size:
        with _DIGESTS_LOCK:
            if len(_DIGESTS) >= MAX_FILES:   # a server reloading models for days
                _DIGESTS.clear()
            _DIGESTS[key] = got
    return got
