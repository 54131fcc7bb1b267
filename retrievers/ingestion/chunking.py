"""Split a document body into windows of the embedder's tokens, with overlap and character offsets.

Windows are counted in the embedder's own tokens (MiniLM word pieces) so that no chunk is silently
truncated by the model; the overlap keeps a sentence that straddles a boundary whole in one of the two
chunks. Offsets point into the original body, so a snippet can always be located in the document.
"""

from __future__ import annotations

from core.models import Chunk


def chunk_spans(body: str, spans: list[tuple[int, int]], window: int, overlap: int) -> list[Chunk]:
    """Chunks of at most `window` tokens, each starting `window - overlap` tokens after the previous one."""
    if window <= overlap:
        raise ValueError(f"window ({window}) must be larger than overlap ({overlap})")
    if not spans:
        return [Chunk(ordinal=0, start=0, end=len(body), text=body)] if body.strip() else []
    chunks = []
    step = window - overlap
    first = 0
    while True:
        last = min(first + window, len(spans))
        start, end = spans[first][0], spans[last - 1][1]
        chunks.append(Chunk(ordinal=len(chunks), start=start, end=end, text=body[start:end]))
        if last == len(spans):
            return chunks
        first += step
