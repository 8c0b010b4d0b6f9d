"""Settings dataclasses whose fields carry their help text and allowed values.

Why: `senna train` and `senna lm train` generate their command-line options from the
training settings (`senna.train.config.TrainConfig`, `senna.lm.config.LMConfig`), so each
setting is described once, next to its default, and the same checks apply whether it came
from the command line, a JSON --config file or Python.  No PyTorch here: `--help` and
argument errors must work without it.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["setting", "option", "base_type", "type_problems", "read_settings"]


def setting(help: str, default: Any = dataclasses.MISSING, *,
            choices: Sequence[Any] | None = None, factory: Any = dataclasses.MISSING) -> Any:
    """A dataclass field with its help text and allowed values (metadata)."""
    meta = {"help": help, "choices": tuple(choices) if choices is not None else None}
    if factory is not dataclasses.MISSING:
        return dataclasses.field(default_factory=factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def option(name: str) -> str:
    """A setting's command-line spelling: batch_size -> --batch-size."""
    return "--" + name.replace("_", "-")


def base_type(f: dataclasses.Field) -> str:
    """'int', 'float', 'bool', 'str' (also for 'str | None') or another annotation."""
    text = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    return text.split(" | ")[0]


def type_problems(obj: Any) -> list[str]:
    """Settings of the wrong type (JSON may hold "0.1" for a number) or outside their
    choices, one message per setting."""
    out = []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        kind = base_type(f)
        if value is None and "None" in str(f.type):
            continue
        ok = {"int": isinstance(value, int) and not isinstance(value, bool),
              "float": isinstance(value, int | float) and not isinstance(value, bool),
              "bool": isinstance(value, bool),
              "str": isinstance(value, str)}.get(kind, True)
        if not ok:
            what = {"int": "a whole number", "float": "a number", "bool": "true or false",
                    "str": "a string"}[kind]
            out.append(f"{option(f.name)} must be {what}, got {value!r}")
        elif f.metadata.get("choices") and value not in f.metadata["choices"]:
            allowed = ", ".join(map(str, f.metadata["choices"]))
            out.append(f"{option(f.name)} must be one of {allowed}, got {value!r}")
        elif kind == "float" and not math.isfinite(value):
            out.append(f"{option(f.name)} must be a finite number, got {value!r}")
    return out


def read_settings(path: str) -> dict:
    """A JSON --config file -> settings; errors name the file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ValueError(f"{path}: cannot read the settings file ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a JSON settings file (not UTF-8 text)") from None
    try:
        settings = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not a JSON settings file ({e})") from None
    if not isinstance(settings, dict):
        raise ValueError(f"{path}: expected a JSON object of settings, got "
                         f"{type(settings).__name__}")
    return settings
