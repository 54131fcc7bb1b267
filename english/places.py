"""Places as contracts and labels write them: every way of writing a US state, a province, a country or its
adjective, to the one name the labels use (`english/data/places.toml`). Read by the governing-law rule, by the
parties rule (a place is no party), by the scorer that reads a law's label, and by the reader of a country said of
a law (`graph/planners/reading/countries.py`: "US law" is every state's)."""

from __future__ import annotations

from english.lexicon import DEMONYMS
from english.tables import table

_PLACES = table("places")
PLACE_NAMES: dict[str, str] = {
    **{state.lower(): state for state in _PLACES["us_states"]},
    **{province.lower(): f"{province}, {country}" for province, country in _PLACES["subdivisions"].items()},
    **{
        written.lower(): country
        for country, other_names in _PLACES["countries"].items()
        for written in (country, *other_names)
    },
    **{adjective.lower(): place for adjective, place in _PLACES["adjectives"].items()},
}
"""Every way of writing a place, lower-cased, to the name the labels use (also how the scorer reads a label)."""
COUNTRIES = frozenset(_PLACES["countries"])
"""The countries of the places table, by the names the labels use."""
UNITED_STATES = "United States"
COUNTRY_NAMES: dict[str, str] = {
    **{
        written.lower(): country
        for country, other_names in _PLACES["countries"].items()
        for written in (country, *other_names)
    },
    **{adjective: country for adjective, country in DEMONYMS.items() if country in COUNTRIES},
    **dict.fromkeys(("us", "u.s.", "america"), UNITED_STATES),
}
"""Every way of naming a country (its names, its adjective, "US"), lower-cased, to the name the labels use."""


def country_of(place: str) -> str | None:
    """The country a place the labels name is in: a US state's is the United States, "Ontario, Canada"'s Canada,
    a country's itself; None for what is no place."""
    name = PLACE_NAMES.get(place.rsplit(", ", 1)[-1].strip().lower())
    if name in _PLACES["us_states"]:
        return UNITED_STATES
    name = name and name.rsplit(", ", 1)[-1]
    return name if name in COUNTRIES else None
