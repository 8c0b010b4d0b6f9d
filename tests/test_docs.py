"""Relative links in README.md and docs/*.md point at files that exist and, where they name
an anchor (`](#a)`, `](path#a)`), at a heading of that file, with GitHub's anchor rules:
lower case, spaces to '-', punctuation other than '-' and '_' removed, and a repeated
heading's anchor suffixed -1, -2, ...  Standard library only."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

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
        if not dest.exists():
            bad.append(f"{where} (no such file)")
            continue
        if not anchor or dest.suffix.lower() != ".md" or dest.is_dir():
            continue
        if dest not in cache:
            cache[dest] = anchors(dest.read_text(encoding="utf-8"))
        if anchor not in cache[dest]:
            bad.append(f"{where} (no such heading in {dest.name})")
    return bad


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
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
