"""Company, date, address and total read from a receipt's OCR text, one OCR line per line (bucket `receipts`).

A receipt prints its header first: the shop's name (often ending in a legal form, "SDN BHD", "S/B"), its
registration number, the address over a few lines, then telephone, tax numbers and the sale. The rules read that
layout from the lines alone (no image, no positions). A value is returned with the line, or the run of lines, it was
read from; company and address are the printed text itself, since that is what a reader checks against the receipt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from itertools import islice
from typing import NamedTuple

from retrievers.extraction.found import FieldRule, Found
from retrievers.loaders.normalize import parse_amount, parse_date

HEADER_LINES = 12
"""The shop's name is among a receipt's first lines (a scanner's name or "TAX INVOICE" may come before it)."""

MAX_LINE_CHARS = 120
"""Longer lines are no header line of a receipt (a hostile one-line document is skipped, not read)."""

MAX_RECEIPT_LINES = 2_000
"""A receipt has a few dozen OCR lines (SROIE's longest about 200); a body with more is no receipt, and the rules
that read the whole body (date, total) return nothing for it rather than spend seconds on it."""

_LINE_RE = re.compile(r"[^\n]+")

# --- lines -----------------------------------------------------------------------------------------------------


class Line:
    """One OCR line with its place in the body."""

    __slots__ = ("start", "end", "text")

    def __init__(self, start: int, end: int, text: str) -> None:
        self.start, self.end, self.text = start, end, text


def _lines(body: str, limit: int | None = None) -> list[Line]:
    """The body's non-blank lines, stripped, at most `limit` of them."""
    lines: list[Line] = []
    for match in _LINE_RE.finditer(body):
        text = match.group().strip()
        if not text:
            continue
        offset = match.group().index(text[0])
        lines.append(Line(match.start() + offset, match.start() + offset + len(text), text))
        if limit is not None and len(lines) >= limit:
            break
    return lines


class Name(NamedTuple):
    """The shop's name as printed and the first and last header line it takes."""

    first: int
    last: int
    text: str


def _receipt_lines(body: str) -> list[Line]:
    """All the body's lines short enough to be a receipt's; none when it has more lines than any receipt has."""
    lines = _lines(body, MAX_RECEIPT_LINES + 1)
    if len(lines) > MAX_RECEIPT_LINES:
        return []
    return [line for line in lines if len(line.text) <= MAX_LINE_CHARS]


# --- company ---------------------------------------------------------------------------------------------------

# A Malaysian company's legal form ends its name: "SDN BHD", "SDN. BHD.", "S/B", "BHD", "BERHAD".
_LEGAL_FORM_RE = re.compile(r"\b(?:SDN\.?\s?BHD\.?|S/B|BHD\.?|BERHAD)(?![A-Z0-9])", re.IGNORECASE)
# Words a shop's name ends with, or carries, when it has no legal form ("SANYU STATIONERY SHOP").
_SHOP_WORD_RE = re.compile(
    r"\b(?:ENTERPRISES?|TRADING|RESTORAN|RESTAURANT|CAFE|STORE|SHOP|MART|HARDWARE|STATIONERY|PHARMACY|FARMASI|"
    r"KEDAI|PERNIAGAAN|SYARIKAT|BAKERY|BAKERIES|MARKETING|SUPERMARKET|MINIMARKET|HOLDINGS|INDUSTRIES|"
    r"COMPANY|CORPORATION|GALLERY|BOOKS?|CENTRE|CENTER|FOOD|SEAFOOD|KITCHEN|TEA|TRADERS?|SERVICES?)\b",
    re.IGNORECASE,
)
# A line that is only a registration number ("789417-W", "(1072825-A)", "JM0325965-V").
_REGISTRATION_RE = re.compile(r"^[(\[<]?[A-Z]{0,3}\s?\d[\d ]{3,}\s?-?\s?[A-Z]?[)\]>]?[.,]?$", re.IGNORECASE)
# A label or a counter printed before the name ("DIMILIKI: BANH MI CAFE SDN BHD", "#000002 BAIFU (M) SDN BHD").
_LABEL_PREFIX_RE = re.compile(r"^(?:#\d+\s+|[A-Z]+(?:\s[A-Z]+)?\s?:\s*)", re.IGNORECASE)
# A registration number printed after a name without a legal form ("BEST DENKI MALAYSIA (308282-A)").
_REGISTRATION_SUFFIX_RE = re.compile(r"\s*\(\s*[A-Z]{0,3}\d{4,}\s?-?\s?[A-Z]?\s*\)$", re.IGNORECASE)
# A line that continues the name on the line above: it closes a bracket opened there, or starts with a legal form.
_CONTINUATION_RE = re.compile(r"^(?:CO\.|COMPANY\b|ENTERPRISE|\(M\)|SDN\b|BHD\b|S/B\b|&)", re.IGNORECASE)
# Lines of a receipt's header that are no name: the document's kind, a copy stamp, a bare number.
_NOT_A_NAME_RE = re.compile(
    r"TAX\s*INVOICE|INVOICE|RECEIPT|\bCOPY\b|CASH\s*(?:SALE|BILL)|WELCOME|THANK|\bTEL\b|\bFAX\b|GST|\bREG\b|"
    r"^[\W\d]*$",
    re.IGNORECASE,
)


def _unbalanced(text: str) -> bool:
    """Whether a line closes a bracket it did not open: it ends a name begun on the line above."""
    return text.count(")") > text.count("(")


def _name_like(line: Line) -> bool:
    """Whether a header line can be (part of) a shop's name: words, not a registration, a document kind or a number."""
    text = line.text
    return not (_NOT_A_NAME_RE.search(text) or _REGISTRATION_RE.match(text) or ":" in text)


def _last_legal_form(text: str) -> re.Match | None:
    """The last legal form on a line: the name ends there ("AEON CO. (M) BHD (126926-H)")."""
    last = None
    for last in _LEGAL_FORM_RE.finditer(text):  # noqa: B007 (the loop only runs to the last match)
        pass
    return last


def _legal_name(lines: list[Line]) -> Name | None:
    """The first name in the header that ends in a legal form, joined with the lines it continues."""
    for index, line in enumerate(lines):
        legal = _last_legal_form(line.text)
        if legal is None:
            continue
        name = _LABEL_PREFIX_RE.sub("", line.text[: legal.end()])
        first = index
        while (
            first > 0
            and _name_like(lines[first - 1])
            and (
                _unbalanced(name)
                or _CONTINUATION_RE.match(name)
                or lines[first - 1].text.endswith(("&", "("))
                or len(name[: legal.start()].split()) <= 1
            )
        ):
            first -= 1
            name = f"{lines[first].text} {name}"
        return Name(first, index, name)
    return None


def _name_at(lines: list[Line], index: int) -> Name:
    """The name on one line, joined with the line it continues or that continues it: across an "&" ("HOME MASTER
    HARDWARE &" / "ELECTRICAL"), and a lone word with the line above ("THE ROTI MAN" / "BAKERY")."""
    first, last, text = index, index, _REGISTRATION_SUFFIX_RE.sub("", lines[index].text)
    if first > 0 and _name_like(lines[first - 1]) and (lines[first - 1].text.endswith("&") or " " not in text):
        first -= 1
        text = f"{lines[first].text} {text}"
    if text.endswith("&") and last + 1 < len(lines) and _name_like(lines[last + 1]):
        last += 1
        text = f"{text} {lines[last].text}"
    return Name(first, last, text)


def _name_above(lines: list[Line], index: int) -> Name | None:
    """The name printed just above the address (skipping a registration number), as shops without a legal form do."""
    for above in range(index - 1, -1, -1):
        if _REGISTRATION_RE.match(lines[above].text):
            continue
        if _name_like(lines[above]) and sum(c.isalpha() for c in lines[above].text) >= 3:
            return _name_at(lines, above)
        return None
    return None


def _shop_name(lines: list[Line]) -> Name | None:
    """The first header line that carries a word shops are named with ("STATIONERY", "RESTORAN")."""
    for index, line in enumerate(lines):
        if _SHOP_WORD_RE.search(line.text) and _name_like(line):
            return _name_at(lines, index)
    return None


def _header(body: str) -> tuple[list[Line], Name | None, tuple[int, int] | None]:
    """The receipt's header lines, the shop's name in them and the first and last line of its address.

    A name with a legal form above the address wins; a shop without one prints its name just above the address
    (after, at most, its registration number); failing both, a line with a shop's word is the name.
    """
    lines = [line for line in _lines(body, HEADER_LINES + ADDRESS_LINES) if len(line.text) <= MAX_LINE_CHARS]
    legal = _legal_name(lines[:HEADER_LINES])
    block = _address_block(lines, 0)
    if block is not None and (legal is None or legal.first > block[0]):
        return lines, _name_above(lines, block[0]) or legal or _shop_name(lines[:HEADER_LINES]), block
    if legal is not None:
        return lines, legal, _address_block(lines, legal.last + 1)
    return lines, _shop_name(lines[:HEADER_LINES]), block


def company(body: str) -> list[Found]:
    """The shop's name as printed in the receipt's header, with its legal form and without its registration number."""
    lines, name, _ = _header(body)
    if name is None:
        return []
    return [Found(name.text, lines[name.first].start, lines[name.last].end)]


# --- address ---------------------------------------------------------------------------------------------------

# Lines that are no part of an address: contact details, tax numbers, the document's kind, the sale.
_NOT_ADDRESS_RE = re.compile(
    r"\b(?:TEL|TELEPHONE|PHONE|FAX|H/P|HP|EMAIL|E-MAIL|WEBSITE|WWW|GST|SST|TAX|INVOICE|RECEIPT|DATE|CASHIER|"
    r"BILL|DOC|TABLE|OPEN|ORDER|REG|ROC|COMPANY|CO\.|SDN|BHD|THANK|FORMERLY|LICENSEE)\b|@|HTTP",
    re.IGNORECASE,
)
# A Malaysian postcode: five digits, not part of a longer number, a registration number ("81109-A") or a phone number.
_POSTCODE_RE = re.compile(r"(?<![\d-])\d{5}(?![\d-])")
# Words that start or fill an address line: a building, a street, a district.
_ADDRESS_WORD_RE = re.compile(
    r"^\d|^(?:NO|LOT|LEVEL|UNIT|BLOCK|BLK|SUITE|GROUND|FLOOR|G\d|[A-Z]-?\d)\b|\b(?:JALAN|JLN|LORONG|PERSIARAN|"
    r"LEBUH(?:RAYA)?|TAMAN|TMN|BANDAR|KAWASAN|KAMPUNG|KG|SEKSYEN|SECTION|BATU|PLAZA|WISMA|MENARA|KOMPLEKS|COMPLEX|"
    r"BANGUNAN|PUSAT|MALL|SS\d+|PJU|USJ|FLR|FLOOR|LEVEL|BLOCK)\b|,$",
    re.IGNORECASE,
)
# What may follow the postcode's line: the town, the state, the country.
_PLACE_RE = re.compile(
    r"^(?:JOHOR|KEDAH|KELANTAN|MELAKA|MALACCA|NEGERI SEMBILAN|PAHANG|PULAU PINANG|PENANG|PERAK|PERLIS|SABAH|"
    r"SARAWAK|SELANGOR|TERENGGANU|KUALA LUMPUR|PUTRAJAYA|LABUAN|WILAYAH PERSEKUTUAN|W\.\s?P\.?|MALAYSIA)\b"
    r"[A-Z .,]*$",
    re.IGNORECASE,
)
_POSTCODE_END_RE = re.compile(r"(?:(?<![\d-])\d{5}|,)\s*$")
_TOWN_RE = re.compile(r"^[A-Z][A-Z .,']*$", re.IGNORECASE)
# A shop's branch, printed under its address as a number and a name ("1076-IJOK", "1320-TMN BATU").
_BRANCH_RE = re.compile(r"^\d{3,4}\s?-\s?[A-Z][A-Z .']*$", re.IGNORECASE)
# How an address without a postcode starts: a street number, a lot or a unit ("NO.12,JALAN SS4C/5").
_STREET_START_RE = re.compile(
    r"^(?:NO\.?\s?:?\s?\d|LOT\b|UNIT\b|\d+[A-Z]?\s?,\s?(?:JALAN|JLN|LORONG)\b)", re.IGNORECASE
)
ADDRESS_LINES = 6
"""An address runs to a handful of lines; a longer run is the receipt's body, not its header."""


def _part_of_address(line: Line) -> bool:
    """Whether a header line may be part of the address: no contact detail, tax number, registration or date."""
    text = line.text
    return not (_NOT_ADDRESS_RE.search(text) or _REGISTRATION_RE.match(text) or next(_dates(text), None))


def _addressy(lines: list[Line], index: int, top: int) -> bool:
    """Whether the line at `index` reads as an address line, or bridges to one just above it (an OCR-misread word)."""
    if not _part_of_address(lines[index]):
        return False
    if _ADDRESS_WORD_RE.search(lines[index].text):
        return True
    above = index - 1
    return above >= top and _part_of_address(lines[above]) and bool(_ADDRESS_WORD_RE.search(lines[above].text))


def _address_block(lines: list[Line], top: int) -> tuple[int, int] | None:
    """The first and last line of the address below line `top`: the run of lines around the first postcode."""
    postcode = next(
        (i for i in range(top, len(lines)) if _POSTCODE_RE.search(lines[i].text) and _part_of_address(lines[i])),
        None,
    )
    if postcode is None:
        return _street_block(lines, top)
    first = last = postcode
    while first > top and last - first < ADDRESS_LINES - 1 and _addressy(lines, first - 1, top):
        first -= 1
    # A postcode that ends its line is followed by the town on the next ("41050" / "KLANG SELANGOR D.E").
    town_follows = _POSTCODE_END_RE.search(lines[postcode].text) is not None
    while last + 1 < len(lines) and last - first < ADDRESS_LINES - 1 and _part_of_address(lines[last + 1]):
        following = lines[last + 1].text
        if not (_PLACE_RE.match(following) or (town_follows and _TOWN_RE.match(following))):
            break
        town_follows = following.endswith(",")
        last += 1
    if last + 1 < len(lines) and _BRANCH_RE.match(lines[last + 1].text):
        last += 1
    return first, last


def _street_block(lines: list[Line], top: int) -> tuple[int, int] | None:
    """An address printed without a postcode: the run of address lines that starts with a street number or a lot."""
    start = next((i for i in range(top, min(len(lines), HEADER_LINES)) if _STREET_START_RE.match(lines[i].text)), None)
    if start is None or not _part_of_address(lines[start]):
        return None
    last = start
    while last + 1 < len(lines) and last - start < ADDRESS_LINES - 1 and _part_of_address(lines[last + 1]):
        following = lines[last + 1].text
        if not (_ADDRESS_WORD_RE.search(following) or _PLACE_RE.match(following)):
            break
        last += 1
    return start, last


def address(body: str) -> list[Found]:
    """The shop's address as printed: the header lines around its postcode, from the street to the state."""
    lines, _, block = _header(body)
    if block is None:
        return []
    first, last = block
    return [Found(" ".join(line.text for line in lines[first : last + 1]), lines[first].start, lines[last].end)]


# --- date ------------------------------------------------------------------------------------------------------

_MONTH = r"(?:JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|SEPT|OCT|NOV|DEC)[A-Z]*"
# A date standing on its own (not the tail of a product code such as "HC03-7-15"), with one separator throughout.
_DATE_RE = re.compile(
    r"(?<![A-Z\d/.-])(?:"
    r"\d{1,2}\s?(?P<sep>[/.-])\s?\d{1,2}\s?(?P=sep)\s?(?:\d{4}|\d{2})"
    r"|\d{4}(?P<iso>[/.-])\d{1,2}(?P=iso)\d{1,2}"
    rf"|\d{{1,2}}[\s/.-]?{_MONTH}[\s/.,-]{{0,2}}(?:\d{{4}}|\d{{2}})"
    rf"|{_MONTH}\s?\d{{1,2}},?\s?\d{{4}}"
    r")(?![\d/.-]*\d)",
    re.IGNORECASE,
)
# What marks the date of the sale: a label, or the time of day printed beside it.
_SALE_DATE_RE = re.compile(r"DATE|\b\d{1,2}:\d{2}", re.IGNORECASE)
_EARLIEST_YEAR, _LATEST_YEAR = 1990, 2099
DATED_LINES = 50
"""A receipt prints a handful of dates; past this many lines with one, the sale's date has been seen."""


def _dates(text: str) -> Iterator[tuple[date, int, int]]:
    """Every full calendar date written in a line, day first as Malaysian receipts write them, where it is."""
    for match in _DATE_RE.finditer(text):
        parsed = parse_date(re.sub(r"\s+", " ", match.group()), day_first=True)
        if parsed is not None and _EARLIEST_YEAR <= parsed.year <= _LATEST_YEAR:
            yield parsed, match.start(), match.end()


def purchase_date(body: str) -> list[Found]:
    """The receipt's date: the first date labelled as one or printed with a time of day, else the first date."""
    first = None
    dated_lines = (line for line in _receipt_lines(body) if _DATE_RE.search(line.text))
    for line in islice(dated_lines, DATED_LINES):
        for parsed, _, _ in _dates(line.text):
            found = Found(parsed.isoformat(), line.start, line.end)
            if _SALE_DATE_RE.search(line.text):
                return [found]
            first = first or found
    return [first] if first else []


# --- total -----------------------------------------------------------------------------------------------------

_AMOUNT_RE = re.compile(r"(?<![\d.,])(?:RM|\$)?\s?(-?\d{1,3}(?:,\d{3})*\.\d{2})(?![\d.])")
_TOTAL_RE = re.compile(r"TOTAL|GRAND|NETT|AMOUNT\s*DUE|JUMLAH", re.IGNORECASE)
_ROUNDED_RE = re.compile(r"ROUND", re.IGNORECASE)
# The words of the last, payable total, where a receipt prints several ("TOTAL PAYABLE" after "TOTAL 6% SUPPLIES").
_FINAL_RE = re.compile(r"GRAND|NETT?\b|PAYABLE|DUE|INCL|INCLUSIVE", re.IGNORECASE)
# Totals that are not what was paid: before tax, the tax itself, savings, counts of items.
_NOT_PAID_RE = re.compile(
    r"SUB\s*-?\s*TOTAL|EXCL|BEFORE|W/O|TOTAL\s*(?:GST|TAX|QTY|QUANTITY|ITEM|DISC|SAV|NO|PCS|UNIT)|\bQTY\b|ADJ",
    re.IGNORECASE,
)
# The tax summary printed after the sale, whose "TOTAL" is the taxed amounts' (often before tax), not the sale's.
_TAX_SUMMARY_RE = re.compile(r"(?:GST|TAX|SST)\s*SUMMARY", re.IGNORECASE)
TOTAL_FOLLOW_LINES = 4
"""An amount printed below its label follows it within a few OCR lines."""
SUMMARY_LINES = 8
"""A receipt's closing summary (subtotal, tax, rounding, total, cash, change) has at most this many labels."""
# The labels of a receipt's closing summary, which may be printed as one column with the amounts as another.
_SUMMARY_LABEL_RE = re.compile(
    r"TOTAL|GST|TAX|ROUND|CASH|CHANGE|DISC|SERVICE|PAID|PAYMENT|TENDER|VISA|MASTER|CARD|DUE|BALANCE|AMOUNT|NETT|"
    r"GRAND|DEPOSIT|CREDIT|DEBIT|VOUCHER",
    re.IGNORECASE,
)


def _amount_only(line: Line) -> float | None:
    """The amount a line holds when it holds nothing else ("RM 37.10", "9.10", ": 4.00")."""
    match = _AMOUNT_RE.fullmatch(line.text.strip(" :"))
    return parse_amount(match.group(1)) if match else None


def _in_column(lines: list[Line], index: int) -> tuple[float, Line] | None:
    """The amount of a label printed in a column of summary labels whose amounts follow as a column of their own:
    the label's place among the labels is its amount's place among the amounts ("TOTAL TAX" / "ROUNDING" / "TOTAL"
    / "CASH", then "1.02" / "0.00" / "18.00" / "20.00")."""
    start = index
    while start > 0 and index - start < SUMMARY_LINES and _SUMMARY_LABEL_RE.search(lines[start - 1].text):
        if _AMOUNT_RE.search(lines[start - 1].text):
            break
        start -= 1
    end = index
    while end + 1 < len(lines) and end - start < SUMMARY_LINES and _SUMMARY_LABEL_RE.search(lines[end + 1].text):
        if _AMOUNT_RE.search(lines[end + 1].text):
            break
        end += 1
    if end == start:
        return None
    amounts: list[tuple[float, Line]] = []
    for line in lines[end + 1 : end + 2 + end - start]:
        value = _amount_only(line)
        if value is None:
            break
        amounts.append((value, line))
    return amounts[index - start] if len(amounts) == end - start + 1 else None


def _amount_after(lines: list[Line], index: int) -> tuple[float, Line] | None:
    """The amount a total's label line gives: on the line itself, at its place in a column of amounts, else on the
    first amount-only line below it."""
    match = _AMOUNT_RE.search(lines[index].text)
    if match:
        return parse_amount(match.group(1)), lines[index]
    in_column = _in_column(lines, index)
    if in_column is not None:
        return in_column
    for line in lines[index + 1 : index + 1 + TOTAL_FOLLOW_LINES]:
        value = _amount_only(line)
        if value is not None:
            return value, line
        if _TOTAL_RE.search(line.text):
            return None
    return None


def total(body: str) -> list[Found]:
    """The amount paid: the rounded total when the receipt prints one, else the largest amount labelled a total."""
    lines = _receipt_lines(body)
    rounded: list[tuple[float, Line, Line]] = []
    final: list[tuple[float, Line, Line]] = []
    plain: list[tuple[float, Line, Line]] = []
    for index, line in enumerate(lines):
        if _TAX_SUMMARY_RE.search(line.text):
            break
        if not _TOTAL_RE.search(line.text) or _NOT_PAID_RE.search(line.text):
            continue
        found = _amount_after(lines, index)
        if found is None or found[0] is None or found[0] <= 0:
            continue
        kind = rounded if _ROUNDED_RE.search(line.text) else final if _FINAL_RE.search(line.text) else plain
        kind.append((found[0], line, found[1]))
    candidates = rounded or final or plain
    if not candidates:
        return _most_repeated(lines)
    value, label_line, amount_line = max(candidates, key=lambda candidate: candidate[0])
    if not rounded and _ROUNDED_RE.search(body):
        value, amount_line = _rounded(value, lines, lines.index(amount_line)) or (value, amount_line)
    return [Found(value, label_line.start, amount_line.end)]


def _most_repeated(lines: list[Line]) -> list[Found]:
    """Without a labelled total, the amount printed most often (at least twice): the total recurs as the amount
    tendered or charged to a card, and in a tax summary, where an item's price seldom does."""
    seen: dict[float, tuple[int, Line]] = {}
    for line in lines:
        for match in _AMOUNT_RE.finditer(line.text):
            value = parse_amount(match.group(1))
            if value is not None and value > 0:
                seen[value] = (seen.get(value, (0, line))[0] + 1, line)
    if not seen:
        return []
    value, (count, line) = max(seen.items(), key=lambda item: (item[1][0], item[0]))
    return [Found(value, line.start, line.end)] if count >= 2 else []


def _rounded(value: float, lines: list[Line], index: int) -> tuple[float, Line] | None:
    """The total rounded to five sen (Malaysia rounds cash sales so), where it is printed below the unrounded one."""
    target = round(round(value * 20) / 20, 2)
    if abs(target - value) < 0.005:
        return None
    for line in lines[index + 1 : index + 1 + 2 * TOTAL_FOLLOW_LINES]:
        for match in _AMOUNT_RE.finditer(line.text):
            if parse_amount(match.group(1)) == target:
                return target, line
    return None


RULES: dict[str, FieldRule] = {"company": company, "date": purchase_date, "address": address, "total": total}
