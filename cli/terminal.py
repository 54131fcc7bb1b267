"""What the commands print, made harmless to the terminal that shows it: a document's text can hold control
characters (an escape sequence colours, hides or rewrites what the terminal shows; a bell; a backspace) and
invisible or reordering marks (U+202E turns the rest of a line around). An outside probe's hostile document did
all of that through `ragent documents show` and `ragent search`. Each is printed as its escape (`\\u001b`), which
JSON reads back as the same character, so `--json` output stays exact."""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")
"""C0 and C1 controls but tab and newlines (a carriage return only before a newline), zero-width and direction
marks, embeddings, overrides and isolates."""


class Visible:
    """A text stream that writes every `UNSAFE` character as its escape; anything else is the stream's."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def visible_stdout() -> None:
    """Standard output from here on written through `Visible` (once; stderr keeps its carriage returns, with which
    the progress line redraws itself)."""
    if not isinstance(sys.stdout, Visible):
        sys.stdout = Visible(sys.stdout)
