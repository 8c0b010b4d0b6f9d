"""Training (needs PyTorch): `senna.train.run(config, **options)` does what `senna train`
does; the modules below are its parts."""

from __future__ import annotations

from typing import Any


def run(config: Any = None, **options: Any) -> Any:
    """Train as `senna train --config CONFIG [options]` does (senna.train.runner.run); ->
    a senna.train.plan.TrainResult.  Imported when called, so that importing a part of
    senna.train (its settings) needs no PyTorch."""
    from senna.train.runner import run as train_run

    return train_run(config, **options)
