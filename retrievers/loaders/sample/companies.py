"""The fictional companies of the sample corpus, shared so that one company is spelled the same in its
contracts, invoices, datasheets and certificates (which lets cross-bucket questions be tested)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Company:
    name: str
    description: str  # how a contract's preamble describes it
    address: str
    signatory: str
    vat: str | None = None


COMPANIES = {
    "northwind": Company(
        "Northwind Components Ltd",
        "a company incorporated in England and Wales",
        "Unit 4, Riverside Park, Reading RG1 8QX, United Kingdom",
        "Helen Marsh, Managing Director",
        "GB 293 4471 08",
    ),
    "kestrel": Company(
        "Kestrel Analytics LLC",
        "a Delaware limited liability company",
        "200 Harbor Street, Suite 900, Boston, MA 02110, USA",
        "Owen Pryce, Chief Executive Officer",
    ),
    "kestrel_semi": Company(
        "Kestrel Semiconductor Inc.",
        "a California corporation",
        "4410 Fremont Boulevard, Fremont, CA 94538, USA",
        "Ana Ruiz, VP Engineering",
    ),
    "harbor_point": Company(
        "Harbor Point Foods Co.",
        "a New Jersey corporation",
        "75 Ferry Street, Newark, NJ 07105, USA",
        "Gregory Hale, Chief Operating Officer",
    ),
    "tamarack": Company(
        "Tamarack Packaging Inc.",
        "a New York corporation",
        "18 Mill Road, Albany, NY 12205, USA",
        "Irene Castillo, President",
    ),
    "silverleaf": Company(
        "Silverleaf Software Ltd",
        "a company incorporated in Ireland",
        "3 Grand Canal Quay, Dublin D02 X576, Ireland",
        "Cian Byrne, Chief Commercial Officer",
        "IE 3345712TH",
    ),
    "veridian": Company(
        "Veridian Medical Devices GmbH",
        "a German limited liability company",
        "Lindenstrasse 12, 70563 Stuttgart, Germany",
        "Dr. Katrin Vogel, Geschaeftsfuehrerin",
        "DE 814 552 907",
    ),
    "orion_distribution": Company(
        "Orion Electronics Distribution Pty Ltd",
        "an Australian proprietary company",
        "22 Wharf Road, Melbourne VIC 3006, Australia",
        "Liam Prescott, Director",
    ),
    "orion_facility": Company(
        "Orion Facility Services Inc.",
        "an Illinois corporation",
        "910 West Lake Street, Chicago, IL 60607, USA",
        "Marcus Bell, General Manager",
    ),
    "brightline": Company(
        "Brightline Logistics Inc.",
        "a Delaware corporation",
        "1200 Commerce Drive, Columbus, OH 43219, USA",
        "Sofia Grant, Chief Financial Officer",
    ),
    "alder_finch": Company(
        "Alder & Finch Consulting LLP",
        "a Massachusetts limited liability partnership",
        "41 Newbury Street, Boston, MA 02116, USA",
        "Rachel Alder, Partner",
    ),
    "cobalt": Company(
        "Cobalt Systems Integration Inc.",
        "a Delaware corporation",
        "55 Market Street, San Jose, CA 95113, USA",
        "Devon Clarke, Chief Executive Officer",
    ),
    "nimbus": Company(
        "Nimbus Hosting Ltd",
        "a company incorporated in the Netherlands",
        "Herengracht 420, 1017 BZ Amsterdam, Netherlands",
        "Joris de Wit, Managing Director",
        "NL 8612 04 337 B01",
    ),
}
