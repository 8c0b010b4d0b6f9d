"""`manifest.json`: the size and SHA-256 of every file a model (or embeddings) directory
loads from, written whenever the directory is saved and checked whenever it is loaded.

Why: the load-time checks catch files that are broken (cut short, wrong shapes, values
out of range), but not files that are valid and different: tags reordered in config.json,
another gazetteer, a vocabulary edited by hand.  A tagger reading them exits 0 with wrong
tags.  The checksums make any change since the save an error that names the file.
Checking costs a read of the files and about 1.3 ms of CPU per MB of SHA-256 (23 ms for
the POS tagger and its embeddings), in a background thread while the files are parsed
(`Verifying`).  Directories saved before manifests existed load
with a one-line warning, and their vocabularies are checked in full instead (a manifest
vouches that the saved vocabularies had no duplicates).

`senna manifest DIR ...` loads a model or embeddings directory with every check and then
writes its manifest (for directories saved by an older senna).

A manifest protects against accidents (a bad copy, an edit, a file replaced), not against
someone who rewrites the manifest too.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

MANIFEST = "manifest.json"
FORMAT = "senna-manifest"
VERSION = 1
_BLOCK = 1 << 20
_WARNED: set[str] = set()
_QUIET = False


class ManifestError(ValueError):
    """A directory's files are not those it was saved with (or lead out of it)."""


def digest(path: Path) -> dict[str, int | str]:
    """{"size", "sha256"} of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_BLOCK):
            h.update(block)
    return {"size": path.stat().st_size, "sha256": h.hexdigest()}


def inside(root: Path, names: Iterable[str]) -> None:
    """ManifestError for a file of `root` that is a link leading out of it (a model directory
    must hold its own files: a link to /etc/passwd is no gazetteer)."""
    top = root.resolve()
    for name in names:
        path = root / name
        if (path.is_symlink() or path.parent.is_symlink()) \
                and not path.resolve().is_relative_to(top):
            raise ManifestError(f"{path}: a link to {path.resolve()}, outside {root}; copy the "
                             "file into the directory")


def write_manifest(root: str | os.PathLike, names: Iterable[str]) -> None:
    """Record the files `names` (relative to `root`, '/'-separated) in root/manifest.json,
    replacing it atomically.  The one writer of manifests: every save goes through it."""
    root = Path(root)
    files = {name: digest(root / name) for name in sorted(set(names))}
    text = json.dumps({"format": FORMAT, "version": VERSION, "files": files}, indent=1) + "\n"
    tmp = root / (MANIFEST + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, root / MANIFEST)


def drop_manifest(root: str | os.PathLike) -> None:
    """Remove a directory's manifest before its files are rewritten: a save cut short then
    leaves a directory without one (loaded with a warning and checked in full), not one
    whose manifest disagrees with its files."""
    (Path(root) / MANIFEST).unlink(missing_ok=True)


def read_manifest(root: Path) -> dict[str, dict] | None:
    """name -> {"size", "sha256"}, or None when `root` has no manifest."""
    file = root / MANIFEST
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ManifestError(f"{file}: corrupt ({e})") from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("format") != FORMAT \
            or data.get("version") != VERSION or not isinstance(files, dict) \
            or not all(isinstance(v, dict) and isinstance(v.get("size"), int)
                       and isinstance(v.get("sha256"), str) for v in files.values()):
        raise ManifestError(f"{file}: not a {FORMAT} version {VERSION} file")
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


def verify(root: str | os.PathLike, names: Iterable[str]) -> bool:
    """Check the files `names` that `root` holds (those its loader would read) against its
    manifest: ManifestError naming the first file that changed, is missing or is not listed.
    -> False (after a one-line warning on stderr, once per directory) when there is no
    manifest, True when every file matched."""
    root = Path(root)
    files = read_manifest(root)
    if files is None:
        warn_once(root, f"no {MANIFEST} (saved by an older senna), so changed files cannot "
                        f"be told; `senna manifest {root}` adds one")
        return False
    present = set(names)
    for name in sorted(present - set(files)):
        raise ManifestError(f"{root / name}: not in {MANIFEST}, so not saved with the model; "
                         "remove it or restore the model")
    for name, want in files.items():
        path = root / name
        if not path.is_file():
            raise ManifestError(f"{path}: missing; restore the model")
        got = digest(path)
        if got != {"size": want["size"], "sha256": want["sha256"]}:
            what = (f"{got['size']:,} bytes, saved with {want['size']:,}"
                    if got["size"] != want["size"] else "same size, different content")
            raise ManifestError(f"{path}: changed since the model was saved ({what}); retrain "
                             "or restore it")
    return True


class Verifying:
    """`verify` in a background thread, started before a directory's files are parsed:
    hashlib lets other threads run while it hashes, so on a machine with a free core the
    checksums cost the load next to nothing.  `result()` waits for it and returns what
    `verify` returned or raises what it raised."""

    def __init__(self, root: str | os.PathLike, names: Iterable[str]):
        self._outcome: tuple[bool, BaseException | None] = (False, None)
        self._thread = threading.Thread(target=self._run, args=(root, list(names)),
                                        daemon=True, name="senna-manifest")
        self._thread.start()

    def _run(self, root: str | os.PathLike, names: list[str]) -> None:
        try:
            self._outcome = (verify(root, names), None)
        except BaseException as e:  # noqa: BLE001 (raised again in the caller's thread)
            self._outcome = (False, e)

    def result(self) -> bool:
        self._thread.join()
        ok, error = self._outcome
        if error is not None:
            raise error
        return ok
