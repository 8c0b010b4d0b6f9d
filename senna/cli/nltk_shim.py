"""`senna install-nltk-shim DIR`: a SENNA directory for NLTK's unmodified SENNA wrappers.

NLTK's `nltk.classify.Senna`, `nltk.tag.SennaTagger`, `SennaChunkTagger` and
`SennaNERTagger` take the directory of a SENNA install and run the executable named for
the platform in it (`senna-linux64`, `senna-linux32`, `senna-osx`, else `senna`) as
`EXE -path DIR/ -usrtokens -iobtags -pos|-chk|-ner ...`, one sentence of space-separated
tokens per stdin line, and read back SENNA's output: one line per token, fields split at
tabs, field 0 the token and fields 1, 2, 3 the tags of the requested operations in the
order pos, chk, ner (IOB2 tags with -iobtags), a blank line between sentences.

This command writes those executables as small `/bin/sh` scripts that run this project's
tagger with the Python that installed it (`sys.executable -m senna.cli.main ...`), whose
`senna` output layout is SENNA's.  NLTK's `-path` names the shim directory, not models, so
the scripts drop it and pass the installed package's models instead (or `--model-dir`,
recorded at install time).  Usage::

    $ senna install-nltk-shim ~/senna-shim        # or: --model-dir /path/to/models

    from nltk.tag import SennaTagger
    SennaTagger(os.path.expanduser("~/senna-shim")).tag("The cat sat .".split())

NLTK wants an absolute directory (expand `~` yourself), and recent NLTK releases (3.10)
run a tool only if every directory from `/` down to it, and the files in it, are owned by
you or root and not group/world-writable: a shim under `/tmp` is refused, one under your
home directory is fine; install-nltk-shim warns when the location would be refused.
NLTK runs the tool with a scrubbed environment (no PYTHONPATH, PATH unusable), so the
script records the interpreter's absolute path, and PYTHONPATH too when a bare interpreter
would not import this same `senna` package.

Not on Windows: NLTK runs `senna-win32.exe` there, which must be a real PE executable
(a script cannot carry that name), and the scripts written here need a POSIX shell.
"""

from __future__ import annotations

import argparse
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import senna
from senna.cli.args import Parser

#: The executable names NLTK looks for on POSIX systems (`senna` for unknown systems).
SHIM_NAMES = ("senna-linux64", "senna-linux32", "senna-osx", "senna")
MARKER = "# senna-nltk-shim"
#: What NLTK keeps of the environment when it runs a tool (nltk.pathsec.safe_env).
_KEPT_ENV = ("HOME", "USER", "LOGNAME", "SHELL", "TERM", "TZ", "LANG", "LANGUAGE",
             "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME")

_SCRIPT = """\
#!/bin/sh
{marker}: SENNA-compatible executable for NLTK's Senna wrappers, written by
# `senna install-nltk-shim`.  It runs this project's tagger; `-path DIR` (NLTK passes
# this directory) is dropped, models come from the line below.
skip=
for arg do
  shift
  if [ -n "$skip" ]; then skip=; continue; fi
  case $arg in
    -path) skip=1 ;;
    *) set -- "$@" "$arg" ;;
  esac
done
{env}exec {command} "$@"
"""


def shim_script(python: str, model_dir: Path | None = None,
                pythonpath: str | None = None) -> str:
    """The text of one shim executable."""
    command = [python, "-m", "senna.cli.main"]
    if model_dir is not None:
        command += ["--model-dir", str(model_dir)]
    env = f"PYTHONPATH={shlex.quote(pythonpath)}; export PYTHONPATH\n" if pythonpath else ""
    return _SCRIPT.format(marker=MARKER, env=env,
                          command=" ".join(shlex.quote(c) for c in command))


def package_root() -> Path:
    """The sys.path entry this `senna` package was imported from."""
    return Path(senna.__file__).resolve().parent.parent


def needed_pythonpath(python: str, cwd: Path) -> str | None:
    """None if `python`, in NLTK's scrubbed environment and away from the current
    directory, imports this same senna package; else the directory to put on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k in _KEPT_ENV} | {"PATH": "/nonexistent"}
    try:
        found = subprocess.run([python, "-c", "import senna; print(senna.__file__)"],
                               env=env, cwd=cwd, capture_output=True, text=True,
                               timeout=60, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        found = ""
    if found and Path(found).resolve() == Path(senna.__file__).resolve():
        return None
    return str(package_root())


def untrusted_reason(path: Path) -> str | None:
    """Why recent NLTK would refuse to run a tool at `path` (a directory or an existing
    file on the way, from `/` down, not owned by you or root or group/world-writable),
    or None.  A simplified form of nltk.pathsec's check; POSIX only."""
    if os.name != "posix":
        return None
    me = os.geteuid()
    path = Path(os.path.realpath(path))
    for p in [*reversed(path.parents), path]:
        try:
            st = os.stat(p)
        except OSError:
            continue
        if st.st_uid not in (me, 0):
            return f"{p} is owned by uid {st.st_uid}, not by you or root"
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return f"{p} is group- or world-writable (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def install(directory: str | Path, model_dir: str | Path | None = None,
            python: str | None = None, force: bool = False) -> list[Path]:
    """Create `directory` (mode 0755) with the shim executables; returns their paths.

    Files there that are not shims (e.g. a real SENNA's binaries) are only replaced with
    `force`.  `model_dir` defaults to the installed package's models; `python` to the
    running interpreter.
    """
    if os.name != "posix":
        raise ValueError("install-nltk-shim needs a POSIX system: on Windows NLTK runs "
                         "senna-win32.exe, which a script cannot stand in for")
    python = python or sys.executable
    if not python:
        raise ValueError("cannot tell which Python is running (sys.executable is empty)")
    models = Path(model_dir).expanduser().resolve() if model_dir is not None else None
    if models is not None and not models.is_dir():
        raise ValueError(f"model directory not found: {models}")
    target = Path(directory).expanduser().absolute()
    target.mkdir(parents=True, exist_ok=True)
    target.chmod(0o755)
    paths = [target / name for name in SHIM_NAMES]
    if not force:
        for p in paths:
            if (p.exists() or p.is_symlink()) and not _is_shim(p):
                raise ValueError(f"{p} exists and is not a senna shim (use --force to "
                                 "replace it)")
    text = shim_script(python, models, needed_pythonpath(python, target))
    for p in paths:
        tmp = p.with_name(f".{p.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.chmod(0o755)
        os.replace(tmp, p)
    return paths


def _is_shim(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return MARKER.encode() in f.read(256)
    except OSError:
        return False


def parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="senna install-nltk-shim",
        description="Create DIR holding executables (senna-linux64, senna-linux32, "
                    "senna-osx, senna) that NLTK's Senna, SennaTagger, SennaChunkTagger "
                    "and SennaNERTagger run as SENNA, e.g. SennaTagger('/home/me/DIR').")
    p.add_argument("directory", metavar="DIR", help="directory to create or update")
    p.add_argument("--model-dir", metavar="MODELS",
                   help="models' root directory (default: the installed package's models)")
    p.add_argument("--force", action="store_true",
                   help="replace files of these names that are not senna shims")
    return p


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    paths = install(a.directory, a.model_dir, force=a.force)
    directory = paths[0].parent
    print(f"senna: NLTK shim in {directory} ({', '.join(p.name for p in paths)}); use "
          f"SennaTagger({str(directory)!r})")
    reason = untrusted_reason(paths[0])
    if reason:
        print(f"senna: warning: recent NLTK will refuse to run it: {reason}; install it "
              "where only you or root can write, e.g. under your home directory",
              file=sys.stderr)
    return 0
