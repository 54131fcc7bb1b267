"""Sample certificates: management-system certificates (ISO 9001, 14001, 27001, 13485), a CE declaration and a
RoHS certificate of compliance, held by the sample companies.

Validity dates make "which certificates were valid on a given day" answerable; sample-certificate-004 has
expired and the CE declaration has no end date. sample-certificate-007 is the renewal of
sample-certificate-001, with new dates and number: a near-duplicate.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

from core.models import AnnotationRow, Document, FieldSpec, SourceDocument
from retrievers.loaders.common import RowBuilder, source_document
from retrievers.loaders.sample.companies import COMPANIES

BUCKET = "certificates"
FIELDS = [
    FieldSpec(
        name="standard",
        type="string",
        description="Standard or directive certified against, e.g. 'ISO 9001:2015'",
        aliases=["standard", "norm", "directive", "certified against"],
    ),
    FieldSpec(
        name="certificate_number",
        type="string",
        description="Certificate or declaration number, exactly as printed",
        aliases=["certificate number", "certificate no", "cert number", "number", "declaration number"],
        role="identifier",
    ),
    FieldSpec(
        name="holder",
        type="string",
        description="Company the certificate is issued to",
        aliases=["holder", "holds", "issued to", "certified company"],
        role="name",
    ),
    FieldSpec(
        name="issuer",
        type="string",
        description="Certification body, or the manufacturer for a self-declaration",
        aliases=["issued by", "certification body", "registrar", "issuer"],
        role="name",
    ),
    FieldSpec(
        name="valid_from",
        type="date",
        description="First day the certificate is valid",
        aliases=["valid from", "issued", "granted", "issue date"],
    ),
    FieldSpec(
        name="valid_until",
        type="date",
        description="Last day the certificate is valid; absent when it does not expire",
        aliases=[
            "valid until",
            "valid through",
            "expire",
            "expires",
            "expiry",
            "runs out",
            "running out",
            "run out",
            "lapse",
        ],
    ),
    FieldSpec(
        name="scope",
        type="string",
        description="Activities or products the certificate covers",
        aliases=["scope", "covers", "covering"],
        role="text",
    ),
]

_ATLAS = "Atlas Certification Services Ltd"
_MERIDIAN = "Meridian Assurance Inc."


@dataclass(frozen=True)
class _Certificate:
    number: int
    kind: str  # "management system", "declaration" or "compliance"
    standard: str
    standard_title: str
    certificate_number: str
    holder: str  # key into COMPANIES
    issuer: str | None  # None: the holder declares it itself
    valid_from: date
    valid_until: date | None
    scope: str
    author: str


_CERTIFICATES = [
    _Certificate(
        1,
        "management system",
        "ISO 9001:2015",
        "Quality management systems - Requirements",
        "ACS-QMS-2021-0457",
        "northwind",
        _ATLAS,
        date(2021, 5, 14),
        date(2024, 5, 13),
        "Design, manufacture and distribution of passive electronic components and LED light sources",
        "Lena Fischer",
    ),
    _Certificate(
        2,
        "management system",
        "ISO 14001:2015",
        "Environmental management systems - Requirements with guidance for use",
        "MA-EMS-88120",
        "harbor_point",
        _MERIDIAN,
        date(2022, 9, 1),
        date(2025, 8, 31),
        "Processing, packing, cold storage and distribution of prepared foods",
        "Lena Fischer",
    ),
    _Certificate(
        3,
        "management system",
        "ISO/IEC 27001:2022",
        "Information security, cybersecurity and privacy protection - "
        "Information security management systems - Requirements",
        "ACS-ISMS-2023-1189",
        "kestrel",
        _ATLAS,
        date(2023, 11, 20),
        date(2026, 11, 19),
        "Development and operation of data analytics and reporting services, in accordance with the Statement "
        "of Applicability version 3",
        "Lena Fischer",
    ),
    _Certificate(
        4,
        "management system",
        "ISO 13485:2016",
        "Medical devices - Quality management systems - Requirements for regulatory purposes",
        "MA-MD-30571",
        "veridian",
        _MERIDIAN,
        date(2020, 3, 2),
        date(2023, 3, 1),
        "Design, production and servicing of patient temperature monitoring devices",
        "Lena Fischer",
    ),
    _Certificate(
        5,
        "declaration",
        "CE (2014/35/EU, 2014/30/EU)",
        "EU Declaration of Conformity under the Low Voltage Directive 2014/35/EU and the EMC Directive 2014/30/EU",
        "NWC-DoC-2022-014",
        "northwind",
        None,
        date(2022, 1, 10),
        None,
        "NWC-PSU-24V-60W enclosed power supply, 24 V DC output, 60 W; harmonised standards EN 62368-1:2014, "
        "EN 55032:2015 and EN 55035:2017",
        "Lena Fischer",
    ),
    _Certificate(
        6,
        "compliance",
        "RoHS (EU) 2011/65/EU and (EU) 2015/863",
        "Certificate of Compliance with the restriction of hazardous substances",
        "ACS-RoHS-2023-0219",
        "northwind",
        _ATLAS,
        date(2023, 2, 1),
        date(2026, 1, 31),
        "Chip resistors NWC-RES-10K-0603 and NWC-RES-4K7-0603, ceramic capacitor NWC-CAP-100N-0402 and LED "
        "NWC-LED-W5050",
        "Lena Fischer",
    ),
    _Certificate(
        7,
        "management system",
        "ISO 9001:2015",
        "Quality management systems - Requirements",
        "ACS-QMS-2024-0457",
        "northwind",
        _ATLAS,
        date(2024, 5, 14),
        date(2027, 5, 13),
        "Design, manufacture and distribution of passive electronic components and LED light sources",
        "Lena Fischer",
    ),
]


def documents() -> Iterator[SourceDocument]:
    for certificate in _CERTIFICATES:
        holder = COMPANIES[certificate.holder]
        issuer = certificate.issuer or holder.name
        document = Document(
            doc_id=f"sample-certificate-{certificate.number:03d}",
            bucket=BUCKET,
            title=f"{certificate.standard} - {holder.name} ({certificate.certificate_number})",
            author=certificate.author,
            tags=["sample", certificate.kind],
            created_at=certificate.valid_from,
            source="sample://certificates",
            body=_body(certificate, holder.name, holder.address, issuer),
        )
        yield source_document(document, [_properties(certificate, holder.name, issuer)])


def _properties(certificate: _Certificate, holder: str, issuer: str) -> AnnotationRow | None:
    row = RowBuilder()
    for name, value in (
        ("standard", certificate.standard),
        ("certificate_number", certificate.certificate_number),
        ("holder", holder),
        ("issuer", issuer),
        ("valid_from", certificate.valid_from),
        ("valid_until", certificate.valid_until),
        ("scope", certificate.scope),
    ):
        row.add(name, value)
    return row.build()


def _body(c: _Certificate, holder: str, address: str, issuer: str) -> str:
    validity = (
        f"This certificate is valid from {c.valid_from:%d %B %Y} until {c.valid_until:%d %B %Y}"
        if c.valid_until
        else f"This declaration takes effect on {c.valid_from:%d %B %Y} and remains valid while the product is "
        "placed on the market without design changes"
    )
    if c.kind == "management system":
        statement = (
            f"This is to certify that the management system of\n{holder}\n{address}\nhas been assessed by {issuer} "
            f"and found to conform to the requirements of\n{c.standard} - {c.standard_title}\nfor the following scope: "
            f"{c.scope}."
        )
        conditions = (
            "Validity is subject to annual surveillance audits and to a recertification audit before expiry. The "
            f"certificate remains the property of {issuer}, which may suspend or withdraw it if the organisation no "
            "longer meets the requirements. The current status can be verified on the certification body's online "
            f"register under certificate number {c.certificate_number}."
        )
    elif c.kind == "declaration":
        statement = (
            f"{c.standard_title}.\nManufacturer: {holder}, {address}.\nThis declaration of conformity is issued under "
            f"the sole responsibility of the manufacturer. Object of the declaration: {c.scope}. The object described "
            "above is in conformity with the relevant Union harmonisation legislation and carries the CE marking."
        )
        conditions = (
            "The technical documentation is held by the manufacturer and is available to market surveillance "
            f"authorities on request. Signed for and on behalf of {holder} by the Head of Quality."
        )
    else:
        statement = (
            f"{c.standard_title}.\n{issuer} confirms that the products listed below, manufactured by {holder}, "
            f"{address}, have been tested and do not exceed the maximum concentration values of the restricted "
            f"substances (lead, mercury, cadmium, hexavalent chromium, PBB, PBDE and four phthalates) under "
            f"{c.standard}. Products covered: {c.scope}."
        )
        conditions = (
            "Testing was performed by X-ray fluorescence screening with confirmatory wet chemistry on homogeneous "
            "materials. The holder must notify the issuer of any change of materials or suppliers that may affect "
            "compliance."
        )
    return "\n\n".join(
        [
            f"{'CERTIFICATE' if c.kind != 'declaration' else 'EU DECLARATION OF CONFORMITY'}\n"
            f"No. {c.certificate_number}",
            statement,
            f"{validity}.",
            conditions,
            f"Issued by {issuer}.",
        ]
    )
