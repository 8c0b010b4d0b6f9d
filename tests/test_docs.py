"""The docs cannot drift from the code: README.md and docs/*.md (docs/lab/, the research
log, is history and is not run) are checked here.  Standard library only, plus senna.

Links: relative links point at files that exist and, where they name an anchor (`](#a)`,
`](path#a)`), at a heading of that file, with GitHub's anchor rules: lower case, spaces to
'-', punctuation other than '-' and '_' removed, and a repeated heading's anchor suffixed
-1, -2, ...

Examples: every fenced block whose info string is `bash` or `python` is checked.

- A `bash` block is run with `bash -e -o pipefail` in a scratch directory (HOME too) that
  links the repository's bench/, recipes/, senna/ and tests/, with `senna` on PATH running
  this tree's `python -m senna`.  A `python` block is exec()'d in a fresh namespace.
- A `text` block right after one (blank lines between at most) is its expected stdout,
  compared exactly.
- `<!-- not-run: REASON -->` on the line before a block (for data, servers, minutes of
  time): it is not run; a python block must compile, and each command of a bash block must
  parse: `senna ...` by that command's own argument parser, `python SCRIPT.py ...` by the
  script's `-h` listing every option used, `pip install` by the extras pyproject.toml
  defines, `bash FILE` by FILE existing; `git`, `cd`, `echo`, `printf`, `curl` are taken
  as they are; any other program fails the test.
- `<!-- setup: REASON -->`: a set-up block (clone, install, run the tests): its `git`,
  `cd`, `pip` and `python -m pytest` steps are parse-checked as above and the rest of each
  line is run.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import re
import shlex
import subprocess
import sys
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LAB = sorted((ROOT / "docs" / "lab").glob("*.md"))
# Pages the README links to that are written separately from it: a missing one is not a
# broken link (an existing one is checked like any other).
SEPARATE = {ROOT / "docs" / "reliability.md", ROOT / "docs" / "rebuild.md"}

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
_LINK = re.compile(r"\]\(\s*<?([^)\s>]*)>?(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?")
_HTML_ANCHOR = re.compile(r"<a\s[^>]*(?:name|id)=[\"']([^\"']+)[\"']", re.IGNORECASE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")


def _prose(text: str):
    """(line number, line) of the lines outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line[m.end():].strip():
                fence = None
            continue
        if fence is None:
            yield n, line


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (links and code marks reduced to their text)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    kept = "".join(c for c in text if c in " -_" or c.isalnum()
                   or unicodedata.category(c)[0] in "LMN" or unicodedata.category(c) == "Pc")
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a markdown file defines: its headings' slugs (-1, -2, ... for repeats)
    and explicit <a name=...>/<a id=...> anchors."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for _, line in _prose(text):
        out.update(_HTML_ANCHOR.findall(line))
        m = _HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2) or "")
        k = seen.get(base, 0)
        seen[base] = k + 1
        out.add(base if k == 0 else f"{base}-{k}")
    return out


def links(text: str):
    """(line number, target) of every link and image in the prose (code spans left out)."""
    for n, line in _prose(text):
        line = _CODE_SPAN.sub("", line)
        for target in _LINK.findall(line):
            yield n, target
        m = _REFERENCE.match(line)
        if m:
            yield n, m.group(1)


def broken_links(path: Path) -> list[str]:
    """'file:line: target (why)' for each relative link of a markdown file that points
    nowhere."""
    bad = []
    cache: dict[Path, set[str]] = {}
    for n, target in links(path.read_text(encoding="utf-8")):
        if not target or _SCHEME.match(target):
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path.resolve()
        where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{n}: {target}"
        if not dest.exists() and dest not in SEPARATE:
            bad.append(f"{where} (no such file)")
            continue
        if not anchor or dest.suffix.lower() != ".md" or not dest.is_file():
            continue
        if dest not in cache:
            cache[dest] = anchors(dest.read_text(encoding="utf-8"))
        if anchor not in cache[dest]:
            bad.append(f"{where} (no such heading in {dest.name})")
    return bad


@pytest.mark.parametrize("path", DOCS + LAB, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path):
    assert not broken_links(path), "\n".join(broken_links(path))


def test_docs_exist():
    assert (ROOT / "README.md").exists()
    assert len(DOCS) > 1, "docs/*.md missing"


def test_slugs_follow_github():
    assert slug("Speed and memory") == "speed-and-memory"
    assert slug("`senna serve`: an HTTP API and a page") == "senna-serve-an-http-api-and-a-page"
    assert slug("POS tags: Penn Treebank (WSJ) conventions") == \
        "pos-tags-penn-treebank-wsj-conventions"
    assert slug("Session 11: the language model at 10.55×") == \
        "session-11-the-language-model-at-1055"
    assert slug("snake_case and dash-ed") == "snake_case-and-dash-ed"
    text = "# A\n## Notes\n```bash\n# Notes\n```\n### Notes\n#### Notes!\n"
    assert anchors(text) == {"a", "notes", "notes-1", "notes-2"}


def test_broken_links_are_reported(tmp_path: Path):
    (tmp_path / "other.md").write_text("# Other\n\n## Part two\n", encoding="utf-8")
    (tmp_path / "page.md").write_text(
        "# Page\n\n"
        "[ok](other.md) [ok](other.md#part-two) [ok](#page) [web](https://example.org/x#y)\n"
        "`[code](missing.md)`\n"
        "```\n[fenced](missing.md)\n```\n"
        "[gone](missing.md) [no heading](other.md#part-three) [here](#nowhere)\n"
        "![picture](missing.png)\n",
        encoding="utf-8")
    bad = broken_links(tmp_path / "page.md")
    assert [b.split(": ", 1)[1] for b in bad] == [
        "missing.md (no such file)",
        "other.md#part-three (no such heading in other.md)",
        "#nowhere (no such heading in page.md)",
        "missing.png (no such file)",
    ]


# ---------------------------------------------------------------------------- examples

_MARK = re.compile(r"^\s*<!--\s*(not-run|setup):\s*(.*?)\s*-->\s*$")
_ALLOWED = {"git", "cd", "echo", "printf", "curl"}
_SETUP = {"git", "cd", "pip"}
_REDIRECTS = {"<", ">", ">>", ">&", "&>", "<&"}
_OPERATORS = {"&&", "||", "|", ";", "&"}
_OPTION = re.compile(r"^--?[A-Za-z][\w-]*")


@dataclass
class Example:
    """One fenced block: where it is, its language and text, the block that shows its output
    (None: none shown) and its mark (`not-run`, `setup` or '')."""

    path: Path
    line: int
    lang: str
    code: str
    output: str | None
    mark: str

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(text: str) -> list[tuple[int, str, str, str]]:
    """(line of the opening fence, info string, content, mark of the line above) of every
    fenced block."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group(1), lines[i][m.end():].strip(), i
        mark = _MARK.match(lines[i - 1]) if i else None
        i += 1
        body = []
        while i < len(lines) and not (lines[i].strip().startswith(fence)
                                      and not lines[i].strip()[len(fence):].strip("`~ ")):
            body.append(lines[i])
            i += 1
        out.append((start + 1, info, "\n".join(body) + "\n", mark.group(1) if mark else ""))
        i += 1
    return out


def examples(path: Path) -> list[Example]:
    """The bash and python blocks of a markdown file, each with the `text` block that follows
    it, if any."""
    text = path.read_text(encoding="utf-8")
    found = blocks(text)
    lines = text.splitlines()
    out = []
    for k, (line, info, code, mark) in enumerate(found):
        if info not in ("bash", "python"):
            continue
        output = None
        if k + 1 < len(found) and found[k + 1][1] == "text":
            between = lines[line + code.count("\n"): found[k + 1][0] - 1]
            if not any(x.strip() for x in between[1:]):
                output = found[k + 1][2]
        out.append(Example(path, line, info, code, output, mark))
    return out


EXAMPLES = [e for p in DOCS for e in examples(p)]


def shell_lines(code: str) -> list[str]:
    """A bash block's commands: continuation lines joined."""
    return [x for x in code.replace("\\\n", " ").splitlines() if x.strip()]


def commands(line: str) -> list[list[str]]:
    """The simple commands of a shell line: words without redirections, operators,
    comments or leading variable assignments."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    out: list[list[str]] = [[]]
    words = list(lexer)
    i = 0
    while i < len(words):
        w = words[i]
        if w in _OPERATORS:
            out.append([])
        elif w in _REDIRECTS:
            if out[-1] and out[-1][-1].isdigit():
                out[-1].pop()
            i += 1
        elif not out[-1] and re.fullmatch(r"[A-Za-z_]\w*=.*", w):
            pass
        else:
            out[-1].append(w)
        i += 1
    return [c for c in out if c]


def pyproject_extras() -> set[str]:
    """The optional-dependency groups pyproject.toml defines."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return set(re.findall(r"^(\w+)\s*=", section, re.MULTILINE))


@cache
def make_targets() -> set[str]:
    """The commands the Makefile offers: its phony targets (the file targets are internal)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    return {t for line in re.findall(r"^\.PHONY:(.*)$", text, re.MULTILINE) for t in line.split()}


@cache
def script_help(script: str) -> str:
    res = subprocess.run([sys.executable, script, "-h"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 0, f"{script} -h failed: {res.stderr[-500:]}"
    return res.stdout


def parse_senna(argv: list[str]) -> None:
    """Parse a `senna` command line as `senna` would, without running it: SystemExit from
    -h is fine, a UsageError fails."""
    from senna.cli.main import SUBCOMMANDS
    from senna.tasks import normalize_tasks
    name = argv.pop(0) if argv and argv[0] in SUBCOMMANDS else "tag"
    module = importlib.import_module(SUBCOMMANDS[name])
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        args = module.parser().parse_args(argv)
        if name == "tag":
            module.check_options(args, module.requested_tasks(args))
        elif isinstance(getattr(args, "tasks", None), str):   # tag-corpus, serve, train
            normalize_tasks(args.tasks)


def check_command(cmd: list[str]) -> None:
    """Parse-check one simple command of a block that is not run."""
    prog, args = cmd[0], cmd[1:]
    if prog == "senna":
        parse_senna(args)
    elif prog == "python" and args[:2] == ["-m", "senna"]:
        parse_senna(args[2:])
    elif prog == "python" and args[:2] == ["-m", "pytest"]:
        pass
    elif prog == "python" and args and args[0] == "-c":
        compile(args[1], "<python -c>", "exec")
    elif prog == "python" and args and args[0].endswith(".py"):
        assert (ROOT / args[0]).is_file(), f"no such script: {args[0]}"
        shown = script_help(args[0])
        for opt in (m.group() for a in args[1:] if (m := _OPTION.match(a))):
            assert opt in shown, f"{args[0]} -h does not list {opt}"
    elif prog == "pip":
        assert args[0] == "install", cmd
        for spec in args[1:]:
            m = re.fullmatch(r"(?:-e\s*)?\.\[([\w,]+)\]", spec)
            if m:
                missing = set(m.group(1).split(",")) - pyproject_extras()
                assert not missing, f"pyproject.toml has no extra {missing}"
    elif prog == "bash":
        assert (ROOT / args[0]).is_file(), f"no such file: {args[0]}"
    elif prog == "make":
        targets = {a for a in args if not a.startswith("-") and "=" not in a}
        assert targets <= make_targets(), f"the Makefile has no target {targets - make_targets()}"
    else:
        assert prog in _ALLOWED, f"unchecked program {prog!r} in {' '.join(cmd)}"


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> dict[str, str]:
    """The environment bash examples run in: a scratch directory as cwd and HOME that links
    the repository's folders, and `senna` / `python` on PATH."""
    home = tmp_path_factory.mktemp("docs")
    for name in ("bench", "recipes", "senna", "tests"):
        (home / name).symlink_to(ROOT / name)
    bin_dir = home / ".bin"
    bin_dir.mkdir()
    (bin_dir / "senna").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m senna "$@"\n')
    (bin_dir / "senna").chmod(0o755)
    # a script, not a link: a link to a virtualenv's interpreter would leave the virtualenv
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bin_dir / "python").chmod(0o755)
    return {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home), "CWD": str(home),
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}


def run_bash(code: str, env: dict[str, str]) -> str:
    res = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], cwd=env["CWD"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, f"exit {res.returncode}: {res.stderr[-2000:]}"
    return res.stdout


def run_python(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<doc example>", "exec"), {"__name__": "__doc_example__"})
    return out.getvalue()


def setup_line(line: str) -> str:
    """A set-up line without its clone and install steps (each parse-checked)."""
    kept = []
    for part in line.split("&&"):
        cmd = commands(part)
        if cmd and (cmd[0][0] in _SETUP or cmd[0][:3] == ["python", "-m", "pytest"]):
            check_command(cmd[0])   # the test suite itself: .ci/run's line, checked below
        else:
            kept.append(part.strip())
    return " && ".join(kept)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.id)
def test_doc_example(example: Example, scratch):
    if example.mark == "not-run":
        if example.lang == "python":
            compile(example.code, example.id, "exec")
        else:
            for line in shell_lines(example.code):
                for cmd in commands(line):
                    check_command(cmd)
        return
    if example.lang == "python":
        got = run_python(example.code)
    else:
        code = example.code
        if example.mark == "setup":
            code = "\n".join(filter(None, map(setup_line, shell_lines(code)))) + "\n"
        got = run_bash(code, scratch)
    if example.output is not None:
        assert got == example.output, f"{example.id}: the example prints\n{got}"


def test_setup_commands_are_what_ci_runs():
    """The README opens with two set-up commands; the second is exactly .ci/run's."""
    [first, *_] = [e for e in examples(ROOT / "README.md") if e.lang == "bash"]
    assert first.mark == "setup"
    lines = shell_lines(first.code)
    assert len(lines) == 2 and lines[0].startswith("git clone ")
    ci = [x for x in (ROOT / ".ci" / "run").read_text().splitlines() if x.strip()]
    assert lines[1] == ci[-1]


def test_readme_is_short_and_docs_say_no_work_periods():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    history = re.compile(r"session [0-9]|issue [0-9]", re.IGNORECASE)
    for path in DOCS:
        assert not history.search(path.read_text(encoding="utf-8")), path


def test_every_example_is_checked():
    """Each bash or python block is run or marked; marked ones name their reason."""
    assert len(EXAMPLES) >= 10
    for path in DOCS:
        for line, info, _, mark in blocks(path.read_text(encoding="utf-8")):
            if mark:
                assert info in ("bash", "python"), f"{path}:{line}: a mark on a {info!r} block"


def test_example_helpers():
    assert commands("JOBS=2 bash x.sh  # note") == [["bash", "x.sh"]]
    assert commands("senna -srl < /dev/null 2>&1 || echo \"exit $?\"") == [
        ["senna", "-srl"], ["echo", "exit $?"]]
    text = "<!-- not-run: x -->\n```bash\nsenna -pos\n```\n\n```text\nout\n```\n"
    [(line, info, code, mark), (_, info2, out, _)] = blocks(text)
    assert (line, info, code, mark, info2, out) == (2, "bash", "senna -pos\n", "not-run",
                                                    "text", "out\n")
    with pytest.raises(AssertionError, match="unchecked program"):
        check_command(["rm", "-rf", "x"])
    with pytest.raises(AssertionError, match="no extra"):
        check_command(["pip", "install", ".[nosuchextra]"])
    from senna.cli.args import UsageError
    with pytest.raises(UsageError):
        check_command(["senna", "--tasks", "pos,parse"])
    with pytest.raises(UsageError):
        check_command(["senna", "train", "--epochs", "x"])
    with pytest.raises(ValueError, match="unknown task"):
        check_command(["senna", "tag-corpus", "in.txt", "--out", "o", "--tasks", "pos,parse"])
