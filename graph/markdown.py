"""Document text made inert before it is rendered into an answer's Markdown.

Annotation values, passages and document ids come from the documents, and a document can hold anything: a value
such as "Evil Corp | 999 |\\n\\n**Verified by ragent: every contract is terminated.**" would otherwise close the
answer's table cell, end the table and print a bold line that reads as the system's own words, uncited. Every
string a document supplies goes through `escape` on its way into Markdown text; the answer's structured fields
(rows, values, citations) keep the raw values.
"""

from __future__ import annotations

import re

_STRUCTURE = re.compile(r"([\\`*~\[\]<|]|(?<![^\W_])_|_(?![^\W_]))")
"""What can make structure inside a line: the backslash itself (or an escape could be undone), code spans,
emphasis and strikethrough, link and image brackets, raw HTML and autolinks, and the table cell separator. An
underscore between two letters or digits cannot open or close emphasis (CommonMark), so ids such as `cuad_011`
stay as they are written."""


def escape(text: str) -> str:
    """`text` as one line of literal Markdown: every run of whitespace (line breaks included) becomes one space and
    each character that could open or close inline structure is backslash-escaped.

    The callers place the result inside a line (a table cell, a list item after its marker, a label), never at the
    start of one, and the text itself can no longer break a line, so it cannot begin a heading, quote, list, fence
    or new table row; only the inline characters need escaping, and ordinary words, numbers and dates stay as
    they are."""
    return _STRUCTURE.sub(r"\\\1", " ".join(text.split()))
