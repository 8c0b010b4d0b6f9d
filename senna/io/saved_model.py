"""What a model folder holds, once read: `SavedModel`, and `ModelError`, the one error every
reader and check of a model folder raises (a ValueError naming the file)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from senna.features.featurizer import Featurizer
from senna.nn.config import NetConfig
from senna.tasks import TaskSpec
from senna.vocab import TagSet


class ModelError(ValueError):
    """A model directory is missing, incomplete or corrupt."""


@dataclass
class SavedModel:
    task: str
    net: NetConfig
    featurizer: Featurizer
    tags: TagSet
    weights: dict[str, np.ndarray]
    info: dict = field(default_factory=dict)   # scheme, training record, dev scores ...
    # a user's task as this model's config declares it (its file layout, scheme, licence):
    # the model's own, whatever other model of that name is loaded
    task_spec: TaskSpec | None = None
