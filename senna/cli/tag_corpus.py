"""`senna tag-corpus INPUT... --out DIR`: tag whole corpora into shards on Dask (extra
`dask`); a rerun of a killed job resumes it.  See senna.integrations.corpus."""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING

from senna.cli.args import Parser, UsageError, missing_extra

if TYPE_CHECKING:
    from senna.integrations.corpus import Job, Summary

DESCRIPTION = """\
Tag many files into numbered output shards with Dask: part-NNNNN.jsonl / .conll / .conllu
and a part-NNNNN.done record each, in DIR. Inputs: plain text (one document per non-blank
line) or JSON lines with a text field (.jsonl/.ndjson, or --input-format); .gz/.bz2/.xz are
read compressed (cut into partitions by their decompressed size); an input named twice is
tagged once. Document ids are PATH:LINE, or the
JSON lines' --id-field. Rerun the same command to resume a killed job: verified shards are
skipped, the rest redone. Shards in name order hold the documents in input order."""


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="senna tag-corpus", description=DESCRIPTION,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="input files")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p.add_argument("--tasks", default="pos,chunk,ner,srl",
                   help="comma-separated tasks: pos,chunk,ner,pt0,vbs,srl (chk is chunk too; "
                        "default pos,chunk,ner,srl)")
    p.add_argument("--format", default="jsonl,conll",
                   help="comma-separated shard formats: jsonl,conll,conllu (default jsonl,conll)")
    p.add_argument("--input-format", default="auto", choices=("auto", "text", "jsonl"))
    p.add_argument("--text-field", default="text", help="JSON lines: text field (default text)")
    p.add_argument("--id-field", default="id", help="JSON lines: id field (default id)")
    p.add_argument("--partition-size", type=int, default=1 << 20, metavar="BYTES",
                   help="bytes of uncompressed input per partition and shard (default 1 MiB)")
    p.add_argument("--batch-size", type=int, default=256,
                   help="sentences per tagger call inside a partition (default 256)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="local cluster: worker processes (default: one per core)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on an existing Dask cluster (e.g. tcp://host:8786) instead; its "
                        "workers need senna installed and DIR and the inputs at the same paths")
    p.add_argument("--model-dir", metavar="DIR", help="models' root (default: shipped models)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    return p


def warn(message: str) -> None:
    """A warning about one input, on one line."""
    print(f"senna tag-corpus: warning: {message}", file=sys.stderr)


def job_of(a: argparse.Namespace) -> Job:
    """The job the arguments describe; UsageError for an option that cannot be."""
    from senna.integrations import corpus

    try:
        return corpus.make_job(
            a.inputs, a.tasks.split(","), warn=warn, formats=tuple(a.format.split(",")),
            input_format=a.input_format, text_field=a.text_field, id_field=a.id_field,
            partition_bytes=a.partition_size, model_dir=a.model_dir, batch_size=a.batch_size)
    except corpus.BadOption as e:
        raise UsageError(str(e), "senna tag-corpus") from None


def run(a: argparse.Namespace, job: Job) -> Summary:
    """Tag `job` into --out on the cluster the arguments name; the job's summary."""
    from senna.integrations import corpus_dask, corpus_shards

    with ExitStack() as stack:
        try:   # before the cluster starts: a wrong --out is reported at once
            out = stack.enter_context(corpus_shards.output_dir(a.out, job))
        except corpus_shards.OutputInUse as e:   # --out names a directory this job cannot use
            raise UsageError(str(e), "senna tag-corpus") from None
        client = stack.enter_context(corpus_dask.dask_client(a.scheduler, a.workers))
        if not a.quiet:
            n = len(client.scheduler_info()["workers"])
            print(f"senna tag-corpus: {n} worker(s) at {client.scheduler.address}",
                  file=sys.stderr)
        return corpus_dask.tag_parts(job, out, client, progress=not a.quiet)


def main(argv: list[str]) -> int:
    a = parser().parse_args(argv)
    if a.workers is not None and a.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {a.workers}", "senna tag-corpus")
    try:
        import distributed  # noqa: F401  (the `dask` extra)
        import tqdm  # noqa: F401
    except ImportError as e:
        raise missing_extra("tag-corpus needs Dask", "dask", "'dask[distributed]' tqdm",
                            e) from None
    total = run(a, job_of(a))
    if not a.quiet:
        rate = total.tagged_tokens / total.seconds if total.seconds else 0.0
        print(f"senna tag-corpus: {total.parts} partitions ({total.skipped} already done), "
              f"{total.docs} documents, {total.sentences} sentences, {total.tokens} tokens "
              f"-> {a.out} ({total.seconds:.1f} s, {rate:.0f} tokens/s this run)",
              file=sys.stderr)
    return 0
