"""A bucket's fields declared in a file (`ragent buckets add NAME --schema FILE`), TOML or JSON:

    [fields.prep_minutes]          # {"fields": {"prep_minutes": {"type": "integer", ...}}} in JSON
    type = "integer"               # string | number | integer | boolean | date
    unit = "minutes"
    aliases = ["prep time", "takes"]
    description = "Minutes from start to table"
    found_by = "text"              # text (the default) | pattern | model | labels
    # pattern = 'Ready in (?P<value>.+)'

A field a user declares is found in the text by default (`found_by = "text"`: a line that starts with its name or an
alias); an annotations file's values always come first.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from core.errors import InvalidInput
from core.models import FieldSpec


def read_schema(path: Path) -> list[FieldSpec]:
    """The fields `path` declares; InvalidInput saying which field and key is wrong."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InvalidInput(f"cannot read the schema file {path}: {error.strerror or error}") from None
    try:
        data: Any = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as error:
        kind = "JSON" if path.suffix.lower() == ".json" else "TOML"
        raise InvalidInput(f"{path} is not valid {kind}: {error}") from None
    fields = data.get("fields") if isinstance(data, dict) else None
    if not isinstance(fields, dict) or not fields:
        raise InvalidInput(f"{path} declares no fields: write a [fields.NAME] table (TOML) or a 'fields' object")
    specs = []
    for name, declared in fields.items():
        if not isinstance(declared, dict):
            raise InvalidInput(f"{path}: field {name!r} must be a table of keys (type, unit, aliases, ...)")
        try:
            specs.append(FieldSpec.model_validate({"found_by": "text", **declared, "name": name}))
        except ValidationError as error:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'field'}: {e['msg']}" for e in error.errors())
            raise InvalidInput(f"{path}: field {name!r}: {problems}") from None
    return specs
