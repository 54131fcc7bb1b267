"""CUAD v1: 510 EDGAR commercial contracts with lawyers' answers for 41 clause categories (bucket `contracts`).

Reads `derived_contracts.jsonl` (one line per contract, joining `master_clauses.csv` with the text file name)
and each contract's text from `full_contract_txt/`. The answers become one `properties` row of typed fields;
`raw` keeps every answer string a field was derived from.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from core.models import AnnotationRow, Document, FieldSpec, SourceDocument
from retrievers.loaders.common import RowBuilder, read_jsonl, require_file, snake_case, source_document
from retrievers.loaders.normalize import (
    is_perpetual,
    parse_date,
    parse_durations,
    parse_yes_no,
    split_jurisdictions,
    split_parties,
)

BUCKET = "contracts"
SHARED_FOLDER = "cuad"

# The 33 Yes/No categories and what a "Yes" means, shortened from the definitions in CUAD_v1_README.txt.
YES_NO_CATEGORIES = {
    "Most Favored Nation": "a party is entitled to terms at least as good as any a third party gets",
    "Competitive Restriction Exception": (
        "there are exceptions or carve-outs to non-compete, exclusivity or no-solicit clauses"
    ),
    "Non-Compete": "a party may not compete with the counterparty or operate in some geography or business",
    "Exclusivity": "there is an exclusive dealing commitment with the counterparty",
    "No-Solicit of Customers": "a party may not solicit customers or partners of the counterparty",
    "No-Solicit of Employees": "a party may not solicit or hire employees or contractors of the counterparty",
    "Non-Disparagement": "a party must not disparage the counterparty",
    "Termination for Convenience": "a party can terminate without cause, by notice alone",
    "Rofr/Rofo/Rofn": "a party has a right of first refusal, first offer or first negotiation",
    "Change of Control": "a change of control of a party allows termination or needs consent or notice",
    "Anti-Assignment": "assigning the contract to a third party needs consent or notice",
    "Revenue/Profit Sharing": "a party must share revenue or profit with the counterparty",
    "Price Restrictions": "a party's ability to raise or reduce prices is restricted",
    "Minimum Commitment": "a party must buy a minimum amount or number of units",
    "Volume Restriction": "use above a threshold costs more or needs consent",
    "IP Ownership Assignment": "intellectual property created by one party becomes the counterparty's",
    "Joint IP Ownership": "intellectual property is owned jointly by the parties",
    "License Grant": "one party grants the counterparty a licence",
    "Non-Transferable License": "a licence granted may not be transferred to a third party",
    "Affiliate License-Licensor": (
        "a licence is granted by, or covers intellectual property of, the licensor's affiliates"
    ),
    "Affiliate License-Licensee": "a licence is granted to the licensee's affiliates too",
    "Unlimited/All-You-Can-Eat-License": "a party gets an enterprise, unlimited-usage licence",
    "Irrevocable or Perpetual License": "a licence granted is irrevocable or perpetual",
    "Source Code Escrow": "source code must be deposited in escrow for release on events such as bankruptcy",
    "Post-Termination Services": "a party has obligations after the contract ends (transition, wind-down, last buy...)",
    "Audit Rights": "a party may audit the counterparty's books, records or premises",
    "Uncapped Liability": "a party's liability is uncapped for some breach",
    "Cap on Liability": "liability for breach is capped in amount or in time to bring claims",
    "Liquidated Damages": "liquidated damages or a termination fee are payable",
    "Warranty Duration": "the contract states how long a warranty against defects lasts",
    "Insurance": "a party must maintain insurance for the counterparty's benefit",
    "Covenant Not to Sue": "a party may not contest the counterparty's IP or bring certain claims",
    "Third Party Beneficiary": "a non-party can enforce some clauses of the contract",
}
# What people call each category besides its name, which is always an alias (lower-cased).
_FLAG_ALIASES = {
    "Most Favored Nation": ("most favoured nation", "mfn"),
    "Competitive Restriction Exception": ("carve-out", "carve out", "exception to non-compete"),
    "Non-Compete": ("noncompete", "compete", "competition"),
    "Exclusivity": ("exclusive",),
    "No-Solicit of Customers": ("solicit customers", "non-solicitation of customers"),
    "No-Solicit of Employees": ("solicit employees", "no-hire", "poach"),
    "Non-Disparagement": ("disparage", "disparagement"),
    "Termination for Convenience": ("terminate for convenience", "terminate without cause", "without cause"),
    "Rofr/Rofo/Rofn": ("right of first refusal", "right of first offer", "right of first negotiation", "first refusal"),
    "Change of Control": ("change in control", "acquisition", "merger", "acquired", "takeover", "taken over"),
    "Anti-Assignment": ("assignment", "assign"),
    "Revenue/Profit Sharing": ("revenue sharing", "profit sharing", "revenue share", "royalty"),
    "Price Restrictions": ("price restriction", "price increase", "price cap"),
    "Minimum Commitment": ("minimum purchase", "minimum order", "take or pay"),
    "Volume Restriction": ("volume limit", "usage limit"),
    "IP Ownership Assignment": ("ip assignment", "ip ownership", "intellectual property ownership", "work for hire"),
    "Joint IP Ownership": ("joint ownership", "jointly owned", "jointly own", "joint owners", "co-owned"),
    "License Grant": ("licence grant", "grant of license", "grants a license"),
    "Non-Transferable License": ("non-transferable licence", "non-transferable"),
    "Affiliate License-Licensor": ("licensor affiliates", "licensor's affiliates"),
    "Affiliate License-Licensee": ("licensee affiliates", "licensee's affiliates"),
    "Unlimited/All-You-Can-Eat-License": ("unlimited license", "unlimited licence", "enterprise license"),
    "Irrevocable or Perpetual License": ("irrevocable license", "perpetual license", "perpetual licence"),
    "Source Code Escrow": ("escrow",),
    "Post-Termination Services": ("transition services", "wind-down", "after termination"),
    "Audit Rights": ("audit", "inspect books"),
    "Uncapped Liability": ("unlimited liability",),
    "Cap on Liability": ("liability cap", "limitation of liability", "limited liability"),
    "Liquidated Damages": ("termination fee", "break fee"),
    "Warranty Duration": ("warranty period", "warranty"),
    "Insurance": ("insured", "insure"),
    "Covenant Not to Sue": ("not to sue", "not sue"),
    "Third Party Beneficiary": ("third-party beneficiary", "beneficiary"),
}

UNLABELLED = frozenset({"auto_renewal"})
"""Fields of FIELDS that CUAD's lawyers did not label: found in the text only, and scored against nothing."""

# The fields every contracts dataset shares (Kleister-NDA and the sample corpus take theirs from here), so that
# ingesting one after another declares the same specs and leaves the catalog as it was.
FIELDS = [
    FieldSpec(
        name="contract_type",
        type="string",
        multi=True,
        description=(
            "Kind of contract, e.g. 'License Agreement', 'Supply Agreement', 'Non-Disclosure Agreement'; a title "
            "naming several ('Manufacturing and Supply Agreement') gives each, its main kind first"
        ),
        aliases=["type", "kind", "contract type", "kind of contract", "agreement type"],
    ),
    FieldSpec(
        name="parties",
        type="string",
        multi=True,
        description="Names of the companies or people who signed the contract",
        aliases=["party", "parties", "with", "counterparty", "signed with", "between"],
        role="name",
    ),
    FieldSpec(
        name="agreement_date",
        type="date",
        description="Date the contract was signed (only when day, month and year are all known)",
        aliases=["signed", "dated", "executed", "signing date", "agreement date"],
    ),
    FieldSpec(
        name="effective_date",
        type="date",
        description="Date the contract takes effect",
        aliases=["effective", "start", "starts", "started", "commence", "began", "took effect", "effective date"],
    ),
    FieldSpec(
        name="expiration_date",
        type="date",
        description="Date the initial term ends; absent for perpetual contracts",
        aliases=[
            "expire",
            "expires",
            "expiry",
            "expiration",
            "end",
            "ends",
            "terminate",
            "run out",
            "runs out",
            "expiration date",
        ],
    ),
    FieldSpec(
        name="perpetual",
        type="boolean",
        description="True when the contract never expires, false when it names an expiration date",
        aliases=["perpetual", "never expires", "no end date", "indefinite", "open-ended"],
    ),
    FieldSpec(
        name="renewal_term_days",
        type="integer",
        multi=True,
        description="Length of each renewal period in days (1 year = 365, 1 month = 30)",
        aliases=["renew", "renews", "renewal", "renewal term", "renewal period"],
        unit="days",
    ),
    FieldSpec(
        name="auto_renewal",
        type="boolean",
        description="True when the term renews by itself unless a party gives notice; false when a renewal needs "
        "one party's option or both parties' agreement (read from the text; CUAD labels no such field)",
        aliases=[
            "renew automatically",
            "renews automatically",
            "renewed automatically",
            "automatically renew",
            "automatically renews",
            "automatic renewal",
            "auto-renew",
            "auto-renews",
            "auto-renewal",
            "evergreen",
            "roll over",
            "rolls over",
        ],
    ),
    FieldSpec(
        name="notice_period_days",
        type="integer",
        multi=True,
        description="Days of notice needed to stop the contract renewing",
        aliases=["notice", "notice period", "warning"],
        unit="days",
    ),
    FieldSpec(
        name="governing_law",
        type="string",
        multi=True,
        description="State or country whose law governs the contract, e.g. 'New York', 'England'",
        aliases=["law", "governed", "governing law", "jurisdiction", "state law"],
    ),
    *(
        FieldSpec(
            name=snake_case(category),
            type="boolean",
            description=f"True when {meaning}",
            aliases=[category.lower(), *_FLAG_ALIASES[category]],
        )
        for category, meaning in YES_NO_CATEGORIES.items()
    ),
]


def load(path: Path, *, limit: int | None = None) -> Iterator[SourceDocument]:
    """The contracts under `path` (the `cuad` folder), in `contract_id` order, lazily."""
    labels = require_file(path / "derived_contracts.jsonl", "CUAD")
    return islice((_contract(path, record) for record in read_jsonl(labels)), limit)


def _contract(folder: Path, record: dict[str, Any]) -> SourceDocument:
    answers: dict[str, str] = record["answers"]
    text_path = folder / record["txt_file"]
    agreement_date = parse_date(answers.get("Agreement Date"), day_first=False)
    document = Document(
        doc_id=record["contract_id"],
        bucket=BUCKET,
        title=answers.get("Document Name") or text_path.stem,
        tags=["cuad", record["contract_type"]],
        created_at=agreement_date,
        source=str(text_path),
        body=text_path.read_text(encoding="utf-8"),
    )
    return source_document(document, [_properties(record["contract_type"], answers)])


def _properties(contract_type: str, answers: dict[str, str]) -> AnnotationRow | None:
    row = RowBuilder()
    row.add("contract_type", contract_type)
    row.add("parties", split_parties(answers.get("Parties")), answers.get("Parties"))
    for field, category in (("agreement_date", "Agreement Date"), ("effective_date", "Effective Date")):
        row.add(field, parse_date(answers.get(category), day_first=False), answers.get(category))
    expiration = answers.get("Expiration Date")
    row.add("expiration_date", parse_date(expiration, day_first=False), expiration)
    row.add("perpetual", is_perpetual(expiration), expiration)
    row.add("renewal_term_days", parse_durations(answers.get("Renewal Term")), answers.get("Renewal Term"))
    notice = answers.get("Notice Period to Terminate Renewal")
    row.add("notice_period_days", parse_durations(notice), notice)
    row.add("governing_law", split_jurisdictions(answers.get("Governing Law")), answers.get("Governing Law"))
    for category in YES_NO_CATEGORIES:
        row.add(snake_case(category), parse_yes_no(answers.get(category)), answers.get(category))
    return row.build()
