"""Bytes a folder really occupies on disk (allocated blocks, not apparent sizes).

Some engines preallocate sparse files (qdrant-edge's write-ahead log reports 32 MB per file but uses a few
kilobytes), so the apparent size would overstate index sizes by orders of magnitude.
"""

from pathlib import Path


def disk_usage(path: Path) -> int:
    return sum(f.stat().st_blocks * 512 for f in Path(path).rglob("*") if f.is_file())
