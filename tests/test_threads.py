"""BLAS runs one thread while senna tags, in every entry point, unless the user asks for
more (`threads=N`, `--threads N`) or has set a thread count in the environment."""

from __future__ import annotations

import io

import pytest
from threadpoolctl import threadpool_info

import senna
from senna.cli import tag as cli
from senna.runtime import threads as threads_module
from senna.runtime.pipeline import Pipeline


def blas_threads_now() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


@pytest.fixture
def seen(monkeypatch):
    """The BLAS thread counts in force while each pipeline call tags."""
    counts: list[set[int]] = []
    real = Pipeline.fill

    def fill(self, *args, **kwargs):
        counts.append(blas_threads_now())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Pipeline, "fill", fill)
    for var in threads_module.THREAD_VARS:
        monkeypatch.delenv(var, raising=False)
    if not blas_threads_now():
        pytest.skip("NumPy's BLAS is not one threadpoolctl controls")
    return counts


def test_the_api_tags_with_one_thread_and_gives_back_the_users(models, seen):
    before = blas_threads_now()
    tagger = senna.load(models, tasks="pos")
    tagger("John runs.")
    list(tagger.pipe(["A dog sat.", "It ran."]))
    assert seen == [{1}, {1}]
    assert blas_threads_now() == before   # the rest of the program keeps its setting


def test_threads_n_and_the_environment(models, seen, monkeypatch):
    senna.load(models, tasks="pos", threads=2)("John runs.")
    assert seen[-1] == {2}
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    before = blas_threads_now()
    senna.load(models, tasks="pos")("John runs.")   # the user chose: left alone
    assert seen[-1] == before
    with pytest.raises(ValueError, match="threads must be a whole number"):
        senna.load(models, tasks="pos", threads=-1)


@pytest.mark.parametrize("args, expected", [((), {1}), (("--threads", "2"), {2})])
def test_the_cli_holds_to_its_threads(models, seen, args, expected):
    out = io.BytesIO()
    assert cli.main(["-path", str(models), "-pos", *args], io.BytesIO(b"John runs.\n"),
                    out) == 0
    assert seen == [expected] and out.getvalue()


def test_the_spacy_component_tags_with_one_thread(models, seen):
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    nlp.add_pipe("senna", config={"model_dir": str(models), "tasks": ["pos"]})
    nlp("John runs.")
    assert seen == [{1}]
