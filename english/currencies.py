"""Currency names and symbols as users write them ("US dollars", "euros", "€", "RM") to ISO 4217 codes.

The names and symbols are CLDR's, through Babel, not a list written for the shipped invoices, plus the few names
English speakers use that CLDR does not list ("sterling", "quid"), each as the CLDR name it stands for. Many
currencies share a word or a symbol ("dollars", "$", "£"), so a mention maps to every currency it can mean and the
codes a field actually holds decide between them: over invoices in USD, EUR and GBP, "$" is USD. A mention whose
currencies the field does not hold keeps them all (a constraint on them matches nothing, and the run says so).
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cache

import babel
from babel import Locale, localedata
from babel.numbers import get_currency_name, list_currencies

from core.settings import Settings
from english.tables import table

_SAID = table("currencies")
COLLOQUIAL: dict[str, str] = dict(_SAID["colloquial"])
"""Everyday English names CLDR does not give, each mapped to the CLDR name whose currencies it means."""
NOT_MONEY = frozenset(_SAID["codes"]["not_money"])
"""ISO 4217's codes for precious metals, units of account, testing and funds: no price is in them."""


@dataclass(frozen=True)
class CurrencyMention:
    codes: list[str]
    span: tuple[int, int]
    text: str


def _names_from_cldr() -> dict[str, set[str]]:
    """Lower-case English names, singular and plural, full ("indian rupees") and by their last word ("rupees")."""
    names: dict[str, set[str]] = defaultdict(set)
    for code in list_currencies():
        for count in (1, 2):
            name = get_currency_name(code, count=count, locale="en").lower()
            if name and name != code.lower():
                names[name].add(code)
                names[name.split()[-1]].add(code)
    return names


def _symbols_from_cldr() -> dict[str, set[str]]:
    """Every symbol any CLDR locale prints for a currency ("$", "€", "RM", "zł"), with the currencies it stands
    for."""
    symbols: dict[str, set[str]] = defaultdict(set)
    for identifier in localedata.locale_identifiers():
        for code, symbol in Locale.parse(identifier).currency_symbols.items():
            if symbol != code:
                symbols[symbol].add(code)
    return symbols


@cache
def _tables() -> dict[str, dict[str, frozenset[str]]]:
    """The names and the symbols, each mapped to the currencies it stands for. Reading them from Babel takes about a
    second (each of about a thousand locales merged with its parents) and any question over a scope with invoices
    needs them, so they are kept in the cache folder, one file per Babel release, written atomically; a cache folder
    that cannot be written only costs the second again."""
    path = Settings.from_env().cache_dir / f"currencies-babel-{babel.__version__}.json"
    try:
        kept = json.loads(path.read_text())
        tables = {kind: {key: frozenset(codes) for key, codes in kept[kind].items()} for kind in ("names", "symbols")}
        if all(tables.values()) and "" not in tables["names"] and "" not in tables["symbols"]:
            return tables
    except (OSError, ValueError, LookupError, TypeError, AttributeError):
        pass
    # not written yet, or damaged (an empty table or an empty word would match everywhere): read Babel again
    tables = {"names": _names_from_cldr(), "symbols": _symbols_from_cldr()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        partial.write_text(json.dumps({kind: {k: sorted(v) for k, v in t.items()} for kind, t in tables.items()}))
        os.replace(partial, path)
    except OSError:
        pass
    return {kind: {key: frozenset(codes) for key, codes in table.items()} for kind, table in tables.items()}


@cache
def _names() -> dict[str, frozenset[str]]:
    """CLDR's names without the codes that are no money, and the colloquial names."""
    names = {name: codes - NOT_MONEY for name, codes in _tables()["names"].items() if codes - NOT_MONEY}
    return names | {said: names[meant] for said, meant in COLLOQUIAL.items() if meant in names}


def _symbols() -> dict[str, frozenset[str]]:
    return _tables()["symbols"]


def _chosen(codes: frozenset[str], held: set[str]) -> list[str]:
    return sorted(codes & held) or sorted(codes)


@cache
def _names_pattern() -> re.Pattern:
    """Every name in one alternation, longest first (so "us dollars" wins over "dollars")."""
    names = sorted(_names(), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")


@cache
def _symbols_pattern() -> re.Pattern:
    symbols = sorted(_symbols(), key=len, reverse=True)
    alternatives = [re.escape(s) + (r"\b" if s[-1].isalnum() else "") for s in symbols]
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + ")")


def currency_words(codes: list[str]) -> list[str]:
    """The words a document's text may write these currencies with, for a keyword search: the codes, the last word
    of their English names ("ringgit", "yen") and the symbols that are words ("RM", "Rs"); a symbol such as "$" or
    "¥" is no word a keyword index keeps."""
    wanted = set(codes)
    words = {code.lower() for code in codes}
    words |= {name.split()[-1] for name, named in _names().items() if named & wanted}
    words |= {s.lower() for s, named in _symbols().items() if named & wanted and s.isalpha() and len(s) > 1}
    return sorted(words)


def currency_mentions(text: str, held: set[str]) -> list[CurrencyMention]:
    """The currencies `text` names, each as the codes of `held` (the values of a currency field) it can mean. A code
    written out ("usd") counts only when the field holds it: "all" and "try" are codes too."""
    lowered = text.lower()
    found: list[CurrencyMention] = []

    def taken(start: int, end: int) -> bool:
        return any(start < m.span[1] and m.span[0] < end for m in found)

    for m in _names_pattern().finditer(lowered):
        found.append(CurrencyMention(_chosen(_names()[m.group(0)], held), m.span(), text[m.start() : m.end()]))
    for code in held:
        for m in re.finditer(rf"\b{re.escape(code.lower())}\b", lowered):
            if not taken(*m.span()):
                found.append(CurrencyMention([code], m.span(), text[m.start() : m.end()]))
    for m in _symbols_pattern().finditer(text):
        if not taken(*m.span()):
            found.append(CurrencyMention(_chosen(_symbols()[m.group(0)], held), m.span(), m.group(0)))
    return sorted(found, key=lambda m: m.span)
