"""The documentation holds together: every relative link in README.md, CHANGELOG.md and docs/*.md leads to a file of
this repository, every `#anchor` into a Markdown file names one of its headings, and the README stays short.

Pure file reads (no engine, no subprocess), so it belongs to the fast tier. Links inside fenced code blocks and
inline code are not links. Anchors follow GitHub's rule for heading ids: the heading's text, lowercased, with every
character but letters, digits, `_`, `-` and spaces removed and spaces turned into hyphens; a repeated heading gets
`-1`, `-2`, ... after it.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 200

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+).+?\1")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # https:, mailto:, ...


def documents() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of the Markdown outside fenced code blocks."""
    lines, fence = [], None
    for number, line in enumerate(text.splitlines(), start=1):
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)[0] * len(opening.group(1))
        elif fence is not None:
            if line.strip().startswith(fence):
                fence = None
        else:
            lines.append((number, line))
    return lines


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every Markdown link and image in `text`, inline code left out."""
    return [
        (number, match.group(1))
        for number, line in prose_lines(text)
        for match in LINK.finditer(INLINE_CODE.sub(lambda code: " " * len(code.group(0)), line))
    ]


def slug(heading: str) -> str:
    """GitHub's id for a heading: Markdown links reduced to their text, then the rule in the module docstring."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """Every heading id of a Markdown file, repeated headings numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        heading = HEADING.match(line)
        if not heading:
            continue
        base = slug(heading.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def broken_link(source: Path, target: str, root: Path = ROOT) -> str | None:
    """Why `target`, linked from `source`, does not resolve to a file under `root` (and, for `#anchor` into Markdown,
    to one of its headings); None when it does, or when it is not a relative link."""
    if EXTERNAL.match(target) or target.startswith("//"):
        return None
    path_part, _, anchor = target.partition("#")
    resolved = (source.parent / path_part).resolve() if path_part else source
    if not resolved.is_relative_to(root):
        return f"{target} leads out of the repository ({resolved})"
    if not resolved.exists():
        return f"{target}: no such file ({resolved.relative_to(root)})"
    if anchor and resolved.suffix == ".md" and anchor.lower() not in anchors(resolved):
        return f"{target}: no heading #{anchor} in {resolved.relative_to(root)}"
    return None


def test_the_documents_are_there():
    assert all(path.is_file() for path in documents())
    assert len(documents()) > 2, "docs/*.md holds the rest of the documentation"


@pytest.mark.parametrize("path", documents(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(path):
    problems = [
        f"{path.relative_to(ROOT)}:{number}: {why}"
        for number, target in links(path.read_text(encoding="utf-8"))
        if (why := broken_link(path, target))
    ]
    assert not problems, "\n".join(problems)


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; keep it to {README_MAX_LINES}"


def test_links_and_anchors_are_read_as_github_does(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Cold start: `ragent ask` from the shell\n\n## Ranges (`evals/questions/blind_ranges.jsonl`)\n\n"
        "## Notes\n\n## Notes\n\n```bash\n# not a heading [nor a link](missing.md)\n```\n",
        encoding="utf-8",
    )
    assert anchors(page) == {
        "cold-start-ragent-ask-from-the-shell",
        "ranges-evalsquestionsblind_rangesjsonl",
        "notes",
        "notes-1",
    }
    text = "See [a](page.md#notes-1), ![b](img.png), `[c](code.md)`, [d](https://example.com/x) and [e](#notes)."
    assert links(text) == [(1, "page.md#notes-1"), (1, "img.png"), (1, "https://example.com/x"), (1, "#notes")]
    assert links(page.read_text(encoding="utf-8")) == []
    assert broken_link(page, "page.md#notes", root=tmp_path) is None
    assert broken_link(page, "#notes-1", root=tmp_path) is None
    assert "no heading #notes-2" in broken_link(page, "#notes-2", root=tmp_path)
    assert "no such file" in broken_link(page, "img.png", root=tmp_path)
    assert "out of the repository" in broken_link(page, "../elsewhere.md", root=tmp_path)
    assert broken_link(page, "https://example.com", root=tmp_path) is None


def layout_table() -> dict[str, set[str]]:
    """The packages of the architecture's `## Layout` table, each with the packages its last column names."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if re.match(r"^\| `\w+` \|", line)]
    return {
        re.match(r"^\| `(\w+)` \|", row).group(1): set(re.findall(r"`(\w+)`", row.rstrip(" |").rsplit("|", 1)[1]))
        for row in rows
    }


def test_the_architectures_layout_names_the_packages_and_imports_the_layer_test_holds():
    """The layout a newcomer reads is the one the code is held to: the same packages, each allowed the same
    packages directly (the floor beneath all, `core` and `english`, may be named or not)."""
    from tests.test_layers import BENEATH_ALL, EDGES

    table = layout_table()
    assert set(table) == set(EDGES), "docs/architecture.md#layout and tests/test_layers.py list other packages"
    for package, named in table.items():
        assert named - set(BENEATH_ALL) == EDGES[package] - set(BENEATH_ALL), package
