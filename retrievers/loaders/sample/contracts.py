"""Sample contracts: ten commercial agreements between the sample companies, written from one clause template.

Notice periods and renewal terms are written the ways real contracts write them ("sixty (60) days' prior
written notice", "two months' notice", "twelve (12) months") so that paraphrase search can be tested, and
the annotation values are parsed from those very phrases. sample-contract-008 restates sample-contract-001
with new dates and a longer notice period: a near-duplicate.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from core.models import AnnotationRow, Document, SourceDocument
from retrievers.loaders.common import RowBuilder, source_document
from retrievers.loaders.cuad import FIELDS as CUAD_FIELDS
from retrievers.loaders.normalize import parse_date, parse_durations
from retrievers.loaders.sample.companies import COMPANIES, Company

BUCKET = "contracts"
_CLAUSE_FLAGS = (
    "termination_for_convenience",
    "cap_on_liability",
    "anti_assignment",
    "non_compete",
    "exclusivity",
    "audit_rights",
)
FIELDS = [
    spec
    for spec in CUAD_FIELDS
    if spec.name
    in {
        "contract_type",
        "parties",
        "agreement_date",
        "effective_date",
        "expiration_date",
        "perpetual",
        "renewal_term_days",
        "notice_period_days",
        "governing_law",
        *_CLAUSE_FLAGS,
    }
]


@dataclass(frozen=True)
class _Contract:
    number: int
    contract_type: str
    provider: str  # key into COMPANIES: the party that supplies, licenses or serves
    customer: str
    subject: str  # what the provider delivers, completing "The Provider shall ..."
    effective: str  # as written in the contract, e.g. "March 1, 2022"
    expiration: str | None  # None: perpetual
    renewal: str | None  # e.g. "one (1) year"; None: no automatic renewal
    notice: str | None  # notice to stop a renewal, e.g. "sixty (60) days' prior written notice"
    governing_law: str
    author: str
    tags: tuple[str, ...]
    clauses: frozenset[str] = frozenset()
    title_prefix: str = ""


_CONTRACTS = [
    _Contract(
        1,
        "Master Services Agreement",
        "kestrel",
        "northwind",
        "provide data analytics, dashboard development and monthly reporting services for the Customer's "
        "manufacturing operations, as described in each Statement of Work",
        "March 1, 2022",
        "February 28, 2025",
        "one (1) year",
        "sixty (60) days' prior written notice",
        "Delaware",
        "Dana Whitfield",
        ("msa", "analytics"),
        frozenset({"termination_for_convenience", "cap_on_liability", "anti_assignment", "audit_rights"}),
    ),
    _Contract(
        2,
        "Supply Agreement",
        "tamarack",
        "harbor_point",
        "manufacture and deliver corrugated shipping cartons, printed sleeves and food-grade trays to the "
        "Customer's distribution centres, in the quantities set out in each purchase order",
        "July 15, 2021",
        "July 14, 2024",
        "two (2) years",
        "ninety (90) days' written notice",
        "New York",
        "Marco Reyes",
        ("supply", "packaging"),
        frozenset({"cap_on_liability", "anti_assignment", "exclusivity"}),
    ),
    _Contract(
        3,
        "Software License Agreement",
        "silverleaf",
        "veridian",
        "grant the Customer a non-exclusive, perpetual licence to install and use the Silverleaf QualityTrack "
        "software on up to two hundred workstations, and deliver the related documentation",
        "November 3, 2020",
        None,
        None,
        None,
        "California",
        "Dana Whitfield",
        ("license", "software"),
        frozenset({"cap_on_liability", "anti_assignment", "audit_rights"}),
    ),
    _Contract(
        4,
        "Distribution Agreement",
        "northwind",
        "orion_distribution",
        "supply passive components for resale, and appoint the Customer as its sole distributor of those "
        "components in Australia and New Zealand",
        "January 1, 2023",
        "December 31, 2025",
        "one (1) year",
        "three (3) months' written notice",
        "England",
        "Marco Reyes",
        ("distribution",),
        frozenset({"anti_assignment", "non_compete", "exclusivity"}),
    ),
    _Contract(
        5,
        "Mutual Non-Disclosure Agreement",
        "kestrel",
        "brightline",
        "disclose, and receive from the Customer, confidential information about route optimisation models "
        "solely to evaluate a possible business relationship",
        "May 10, 2023",
        "May 9, 2025",
        None,
        None,
        "New York",
        "Dana Whitfield",
        ("nda",),
    ),
    _Contract(
        6,
        "Facilities Maintenance Agreement",
        "orion_facility",
        "harbor_point",
        "inspect, service and repair the refrigeration, HVAC and loading-dock equipment at the Customer's "
        "Newark warehouse, with a four-hour response time for emergency call-outs",
        "October 1, 2020",
        "September 30, 2021",
        "one (1) year",
        "thirty (30) days' notice",
        "Illinois",
        "Tom Okafor",
        ("maintenance", "facilities"),
        frozenset({"termination_for_convenience", "cap_on_liability"}),
    ),
    _Contract(
        7,
        "Consulting Agreement",
        "alder_finch",
        "kestrel",
        "advise the Customer on its ISO/IEC 27001 certification programme, including a gap analysis, policy "
        "drafting and two internal audits",
        "February 1, 2024",
        "December 31, 2024",
        None,
        None,
        "Massachusetts",
        "Priya Natarajan",
        ("consulting", "security"),
        frozenset({"termination_for_convenience", "non_compete"}),
    ),
    _Contract(
        8,
        "Master Services Agreement",
        "kestrel",
        "northwind",
        "provide data analytics, dashboard development and monthly reporting services for the Customer's "
        "manufacturing operations, as described in each Statement of Work",
        "March 1, 2025",
        "February 28, 2028",
        "one (1) year",
        "ninety (90) days' prior written notice",
        "Delaware",
        "Dana Whitfield",
        ("msa", "analytics"),
        frozenset({"termination_for_convenience", "cap_on_liability", "anti_assignment", "audit_rights"}),
        title_prefix="Amended and Restated ",
    ),
    _Contract(
        9,
        "Reseller Agreement",
        "silverleaf",
        "cobalt",
        "make the Silverleaf QualityTrack software available for resale to the Customer's clients in North "
        "America, and provide second-line technical support to the Customer",
        "September 1, 2022",
        "August 31, 2023",
        "twelve (12) months",
        "two months' notice",
        "Delaware",
        "Marco Reyes",
        ("reseller", "software"),
        frozenset({"anti_assignment", "audit_rights"}),
    ),
    _Contract(
        10,
        "Hosting Services Agreement",
        "nimbus",
        "veridian",
        "host the Customer's QualityTrack installation in two European data centres with 99.9% monthly "
        "availability, daily backups and a recovery point objective of four hours",
        "June 1, 2023",
        "May 31, 2026",
        "one (1) year",
        "forty-five (45) days' written notice",
        "Netherlands",
        "Priya Natarajan",
        ("hosting", "software"),
        frozenset({"cap_on_liability", "termination_for_convenience"}),
    ),
]


def documents() -> Iterator[SourceDocument]:
    for contract in _CONTRACTS:
        provider, customer = COMPANIES[contract.provider], COMPANIES[contract.customer]
        effective = parse_date(contract.effective, day_first=False)
        document = Document(
            doc_id=f"sample-contract-{contract.number:03d}",
            bucket=BUCKET,
            title=f"{contract.title_prefix}{contract.contract_type} - {provider.name} and {customer.name}",
            author=contract.author,
            tags=["sample", *contract.tags],
            created_at=effective,
            source="sample://contracts",
            body=_body(contract, provider, customer),
        )
        yield source_document(document, [_properties(contract, provider, customer)])


def _properties(contract: _Contract, provider: Company, customer: Company) -> AnnotationRow | None:
    row = RowBuilder()
    row.add("contract_type", contract.contract_type)
    row.add("parties", [provider.name, customer.name], f"{provider.name}; {customer.name}")
    for name in ("agreement_date", "effective_date"):
        row.add(name, parse_date(contract.effective, day_first=False), contract.effective)
    row.add("expiration_date", parse_date(contract.expiration, day_first=False), contract.expiration)
    row.add("perpetual", contract.expiration is None)
    row.add("renewal_term_days", parse_durations(contract.renewal), contract.renewal)
    row.add("notice_period_days", parse_durations(contract.notice), contract.notice)
    row.add("governing_law", [contract.governing_law], contract.governing_law)
    for flag in _CLAUSE_FLAGS:
        row.add(flag, flag in contract.clauses)
    return row.build()


def _body(c: _Contract, provider: Company, customer: Company) -> str:
    title = f"{c.title_prefix}{c.contract_type}".upper()
    term = (
        "This Agreement commences on the Effective Date and continues in perpetuity unless terminated under Section 5."
        if c.expiration is None
        else f'This Agreement commences on the Effective Date and continues until {c.expiration} (the "Initial Term").'
    )
    renewal = (
        f' Thereafter it renews automatically for successive periods of {c.renewal} each (each a "Renewal Term"), '
        f"unless either party gives the other {c.notice} of its intention not to renew before the end of the "
        f"then-current term."
        if c.renewal
        else " It does not renew automatically; any extension requires a written amendment signed by both parties."
    )
    sections = [
        (
            "Scope",
            f"The Provider shall {c.subject}. The Provider shall perform its obligations with reasonable skill "
            "and care, using suitably qualified personnel, and in accordance with good industry practice.",
        ),
        (
            "Fees and Payment",
            "The Customer shall pay each undisputed invoice within thirty (30) days of receipt. Late "
            "payments bear interest at one percent (1%) per month. All fees are exclusive of applicable "
            "taxes, which the Customer shall pay in addition.",
        ),
        ("Term and Renewal", term + renewal),
        (
            "Confidentiality",
            "Each party shall keep the other party's Confidential Information secret, use it only to "
            "perform this Agreement and disclose it only to employees and advisers who need to know it "
            "and are bound by obligations of confidentiality at least as protective as these. These "
            "obligations survive for five (5) years after this Agreement ends.",
        ),
        (
            "Termination",
            "Either party may terminate this Agreement if the other party commits a material breach that is "
            "not remedied within thirty (30) days of written notice describing the breach."
            + (
                " In addition, the Customer may terminate this Agreement for convenience at any time on "
                "thirty (30) days' written notice, without penalty."
                if "termination_for_convenience" in c.clauses
                else ""
            ),
        ),
        *((heading, text) for flag, heading, text in _OPTIONAL_CLAUSES if flag in c.clauses),
        (
            "Governing Law",
            f"This Agreement shall be governed by and construed in accordance with the laws of "
            f"{_law_phrase(c.governing_law)}, without regard to its conflict of laws principles, and the "
            f"courts there shall have exclusive jurisdiction over any dispute arising out of it.",
        ),
    ]
    preamble = (
        f'{title}\n\nThis {c.title_prefix}{c.contract_type} (the "Agreement") is entered into as of {c.effective} '
        f'(the "Effective Date") by and between {provider.name}, {provider.description}, with offices at '
        f'{provider.address} (the "Provider"), and {customer.name}, {customer.description}, with offices at '
        f'{customer.address} (the "Customer").'
    )
    signatures = (
        f"IN WITNESS WHEREOF the parties have signed this Agreement as of the Effective Date.\n"
        f"{provider.name}  By: {provider.signatory}\n{customer.name}  By: {customer.signatory}"
    )
    numbered = [f"{number}. {heading}. {text}" for number, (heading, text) in enumerate(sections, start=1)]
    return "\n\n".join([preamble, *numbered, signatures])


# Clauses only some contracts have: (flag in the annotations, heading, text).
_OPTIONAL_CLAUSES = [
    (
        "cap_on_liability",
        "Limitation of Liability",
        "Except for breach of confidentiality or a party's indemnification obligations, each party's total liability "
        "arising out of or in connection with this Agreement shall not exceed the fees paid or payable in the twelve "
        "(12) months preceding the event giving rise to the claim.",
    ),
    (
        "anti_assignment",
        "Assignment",
        "Neither party may assign, transfer or subcontract this Agreement or any of its rights under it without the "
        "prior written consent of the other party, which shall not be unreasonably withheld.",
    ),
    (
        "exclusivity",
        "Exclusivity",
        "During the term the Customer shall purchase all of its requirements for the products covered by this "
        "Agreement exclusively from the Provider, and the Provider shall not appoint any other party to the same role "
        "in the same territory.",
    ),
    (
        "non_compete",
        "Non-Competition",
        "During the term and for twelve (12) months afterwards, neither party shall, directly or indirectly, offer "
        "products or services that compete with those covered by this Agreement to the other party's customers in the "
        "territory.",
    ),
    (
        "audit_rights",
        "Audit",
        "Once in each calendar year, on fifteen (15) business days' notice, the Provider may audit the Customer's "
        "records relating to its use of the products and services to verify compliance with this Agreement.",
    ),
]


def _law_phrase(place: str) -> str:
    """How contracts name a jurisdiction: "the State of New York", "England and Wales", "the Netherlands"."""
    return _LAW_PHRASES.get(place, f"the State of {place}")


_LAW_PHRASES = {
    "England": "England and Wales",
    "Massachusetts": "the Commonwealth of Massachusetts",
    "Netherlands": "the Netherlands",
}
