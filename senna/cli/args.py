"""Argument parsing shared by every `senna` command, so they all fail alike: bad arguments
give one `senna: error: ... (senna CMD -h for help)` line on stderr and exit status 2
(argparse's convention), other failures one `senna: error:` line and status 1.

Status 2: the command line is wrong in itself (unknown option, bad value, options that
contradict each other, invalid training settings, also from a --config file, an input file
that an option names and that cannot be opened, as argparse.FileType reports it); status 1:
what it names is wrong (a missing or corrupt model, a model of another task, input that
does not match -usrvbs).
"""

from __future__ import annotations

import argparse
from dataclasses import MISSING, fields
from pathlib import Path

from senna.io.saved_model import ModelError
from senna.runtime.ensemble import folder_task
from senna.runtime.folders import language_models
from senna.settings import base_type, option
from senna.tasks import TASKS, get_task


class UsageError(ValueError):
    """Bad command-line arguments or settings (exit 2); `prog` is the command, for the
    help hint."""

    def __init__(self, message: str, prog: str = "senna"):
        super().__init__(message)
        self.prog = prog


class Parser(argparse.ArgumentParser):
    """argparse with its errors raised as UsageError instead of printing usage and exiting,
    so `senna.cli.main.run` reports them in one line; sub-parsers inherit it."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(message, self.prog)


def missing_extra(needs: str, extra: str, packages: str, error: ImportError) -> ValueError:
    """The one-line error (exit 1) of a command whose optional dependencies are missing:
    `needs` says what for, then how to install the pyproject `extra` (senna is not on PyPI,
    so in a checkout) or its `packages` by hand."""
    return ValueError(f"{needs}: pip install '.[{extra}]' in a checkout of senna (it is not "
                      f"on PyPI), or pip install {packages} ({error})")


def true_or_false(text: str) -> bool:
    """Boolean option values: 1/0, true/false, yes/no."""
    if text.lower() not in ("1", "0", "true", "false", "yes", "no"):
        raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
    return text.lower() in ("1", "true", "yes")


def add_options(p: argparse.ArgumentParser, cls: type, skip: tuple[str, ...] = (),
                sections: dict[str, tuple[str, ...]] | None = None) -> None:
    """One option per field of a settings dataclass (senna.settings): its help text,
    allowed values and default; None defaults, so that only given options override.
    `sections`: the help lists the options in these groups, by title, in their order."""
    by_name = {f.name: f for f in fields(cls) if f.name not in skip}
    for title, names in (sections or {}).items():
        group = p.add_argument_group(f"{title} settings")
        for name in names:
            _add_option(group, by_name.pop(name))
    for f in by_name.values():
        _add_option(p, f)


def _add_option(p, f) -> None:
    """A settings field as an option (`add_options`)."""
    kind = {"int": int, "float": float, "bool": true_or_false}.get(base_type(f), str)
    if f.default is MISSING and f.default_factory is MISSING:
        default = " (required)"
    else:
        value = f.default if f.default is not MISSING else f.default_factory()
        default = "" if value is None else f" (default: {value})"   # the help says it
    p.add_argument(option(f.name), dest=f.name, type=kind, default=None,
                   choices=f.metadata.get("choices"),
                   metavar=None if f.metadata.get("choices") else f.name.upper(),
                   help=f.metadata.get("help", "") + default)


def add_model_options(p: argparse.ArgumentParser, models_help: str) -> None:
    """-path/--model-dir and --model TASK=DIR, as the tagger and the server take them."""
    p.add_argument("-path", "--model-dir", dest="model_dir", metavar="DIR",
                   help=f"{models_help}, or one model's own folder (its task then defaults "
                        "to what is tagged, and the models it needs come from the shipped "
                        "ones); default: the shipped models")
    p.add_argument("-lang", "--lang", dest="lang", metavar="LANG",
                   help="instead of -path, the shipped models for text in LANG: en (the "
                        "default), es or nl (NER), tokenised as their training data was")
    p.add_argument("--model", dest="models", action="append", metavar="TASK=DIR",
                   help="take TASK's model from its own folder DIR, instead of -path's or "
                        f"the shipped one (repeat for several tasks; TASK: {','.join(TASKS)})")


def chosen_model_dir(a: argparse.Namespace, prog: str) -> str | None:
    """-path's folder, or --lang's shipped models; UsageError for both or an unknown
    language."""
    if a.lang is None:
        return a.model_dir
    if a.model_dir is not None:
        raise UsageError("give -path or --lang, not both", prog)
    try:
        return str(language_models(a.lang))
    except ModelError as e:
        raise UsageError(f"--lang: {e}", prog) from None


def own_task(name: str, folder: str) -> str | None:
    """A user's own task `name`, known from the model in `folder` (its config.json names
    the task and its tags); None when the folder holds no model of that name, so the
    caller reports the unknown task.  A folder of another task is a ModelError."""
    path = Path(folder)
    if not path.is_dir():
        return None
    found = folder_task(path)
    if found is None:
        return None
    if found != name:
        raise ModelError(f"{folder}: holds a {found} model, not a {name} model")
    return found


def task_folders(values: list[str] | None, prog: str) -> dict[str, str]:
    """--model TASK=DIR options -> {task: DIR}; UsageError for a malformed one, an unknown
    task or a task given twice."""
    out: dict[str, str] = {}
    for value in values or ():
        name, sep, folder = value.partition("=")
        if not sep or not name.strip() or not folder:
            raise UsageError(f"--model: expected TASK=DIR (e.g. ner=runs/esp), got {value!r}",
                             prog)
        try:
            task = get_task(name).name
        except ValueError as e:
            task = own_task(name.strip(), folder)
            if task is None:
                raise UsageError(f"--model {value}: {e}", prog) from None
        if task in out:
            raise UsageError(f"--model: {task} is given twice ({out[task]}, {folder})", prog)
        out[task] = folder
    return out
