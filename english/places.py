"""Places as contracts and labels write them: every way of writing a US state, a province, a country or its
adjective, to the one name the labels use (`english/data/places.toml`). Read by the governing-law rule, by the
parties rule (a place is no party) and by the scorer that reads a law's label."""

from __future__ import annotations

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
