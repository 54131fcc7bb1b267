"""Extraction from unlabelled text scored against each dataset's labels (`ragent bench --only extraction`).

The splits: Kleister-NDA and SROIE ship theirs (tune on train, report Kleister on dev and SROIE on test). CUAD has
none, so `cuad_held_out` fixes one: the 200 contracts whose id has the smallest SHA-256 are for reported figures
only, and every rule is tuned on the other 310.
"""

from __future__ import annotations

import hashlib

CUAD_HELD_OUT_SIZE = 200


def _digest(contract_id: str) -> str:
    return hashlib.sha256(contract_id.encode()).hexdigest()


def cuad_held_out(contract_ids: list[str]) -> set[str]:
    """The ids of CUAD's held-out contracts among `contract_ids` (all 510 of them give the fixed 200)."""
    return set(sorted(contract_ids, key=_digest)[:CUAD_HELD_OUT_SIZE])
