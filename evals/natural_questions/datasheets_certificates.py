"""Datasheet and certificate questions: the sample corpus's datasheets and certificates."""

from __future__ import annotations

from evals.natural_questions.corpus import CORPUS, in_bucket
from evals.natural_questions.labels import CERT, DS, flag, iso, on, years_before
from evals.natural_questions.recorders import (
    ask_count,
    ask_extreme,
    ask_list,
    ask_lookup,
    ask_nothing,
    ask_relative,
    matching,
)


def datasheet_and_certificate_questions() -> None:
    """The sample datasheets and certificates."""
    ask_count("how many datasheets say RoHS compliant?", DS, lambda d: flag(d, "rohs_compliant"))
    ask_list(
        "parts made by Kestrel Semiconductor", DS, lambda d: d.props.get("manufacturer") == "Kestrel Semiconductor Inc."
    )
    ask_list("which parts come in an 0603 package", DS, lambda d: d.props.get("package") == "0603")
    ask_list(
        "resistors or capacitors from northwind",
        DS,
        lambda d: (
            d.props.get("category") in {"resistor", "capacitor"}
            and d.props.get("manufacturer", "").startswith("Northwind")
        ),
    )
    mosfet, led = [CORPUS["sample-datasheet-005"]], [CORPUS["sample-datasheet-008"]]
    ask_lookup("what package does the KST-MOS-N30 come in", DS, mosfet, "SOT-23", "package")
    ask_lookup("who makes the NWC-LED-W5050?", DS, led, "Northwind Components Ltd", "manufacturer")
    ask_nothing(
        "datasheets from Texas Instruments",
        [DS],
        {DS: lambda d: "texas instruments" in (d.props.get("manufacturer", "") + d.body).lower()},
    )

    ask_count("How many ISO certificates do we have?", CERT, lambda d: d.props.get("standard", "").startswith("ISO"))
    ask_count("how many certs does Northwind hold", CERT, lambda d: d.props.get("holder") == "Northwind Components Ltd")
    ask_list("ISO 9001 certs", CERT, lambda d: d.props.get("standard", "").startswith("ISO 9001"))
    ask_list("certificates issued by Atlas", CERT, lambda d: d.props.get("issuer", "").startswith("Atlas"))
    ask_list("which certificates expire in 2026?", CERT, lambda d: on(d, "valid_until", "2026"))
    ask_relative(
        "list",
        "which certificates have already expired?",
        CERT,
        lambda day: [d for d in in_bucket(CERT) if d.props.get("valid_until") and d.props["valid_until"] < iso(day)],
    )
    ask_relative(
        "list",
        "certs running out in the next 12 months",
        CERT,
        lambda day: [
            d for d in in_bucket(CERT) if iso(day) <= d.props.get("valid_until", "") <= iso(years_before(day, -1))
        ],
    )
    ask_extreme(
        "which certificate is valid the longest?",
        CERT,
        lambda d: bool(d.props.get("valid_until")),
        lambda d: d.props["valid_until"],
        high=True,
    )
    kestrel_27001 = matching(CERT, lambda d: "27001" in d.props.get("standard", "") and "Kestrel" in d.props["holder"])
    ask_lookup("Who issued Kestrel's ISO 27001 cert?", CERT, kestrel_27001, "Atlas Certification Services", "issuer")
    iso_13485 = matching(CERT, lambda d: d.props.get("standard", "").startswith("ISO 13485"))
    ask_lookup("when does the ISO 13485 certificate expire", CERT, iso_13485, "2023-03-01", "valid_until")
    ask_nothing("ISO 45001 certificates", [CERT], {CERT: lambda d: "45001" in d.props.get("standard", "") + d.body})
