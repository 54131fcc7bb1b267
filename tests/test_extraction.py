"""Fields found in a document's own text (retrievers.extraction): what each finder reads, what it refuses, and that
every value says where it was read."""

from __future__ import annotations

import time

import pytest
from pydantic import ValidationError

from cli.schema_file import read_schema
from core.errors import InvalidInput
from core.models import AnnotationRow, Document, FieldSpec, SourceDocument
from retrievers.extraction.calibration import rule_precision
from retrievers.extraction.extractor import extracted, without_extracted
from retrievers.extraction.labelled_lines import find_labelled
from retrievers.extraction.model_reader import Stated, checked, passages
from retrievers.extraction.shipped import shipped
from retrievers.extraction.user_pattern import find_by_pattern

RECIPE = """# Coq au Vin

By Priya Sharma

Cuisine: French
- **Prep time:** 2 hr 55 min
Calories: about 632 per serving
Vegetarian: no

The cuisine of Burgundy is slow; the time it takes is the point.
"""
CUISINE = FieldSpec(name="cuisine", type="string", found_by="text")
PREP = FieldSpec(name="prep_minutes", type="integer", unit="minutes", aliases=["prep time"], found_by="text")
CALORIES = FieldSpec(name="calories", type="number", found_by="text")
VEGETARIAN = FieldSpec(name="vegetarian", type="boolean", found_by="text")


def _source(body: str, rows: list[AnnotationRow] = (), *, labels_complete: bool = False) -> SourceDocument:
    document = Document(doc_id="coq.md", bucket="recipes", body=body)
    return SourceDocument(document=document, annotations=list(rows), labels_complete=labels_complete)


def _said(body: str, found) -> str:
    return body[found.start : found.end]


def test_a_labelled_line_gives_a_typed_value_and_the_line_it_was_read_from():
    assert [(f.value, _said(RECIPE, f)) for f in find_labelled(RECIPE, CUISINE)] == [("French", "Cuisine: French")]
    (prep,) = find_labelled(RECIPE, PREP)
    assert prep.value == 175 and _said(RECIPE, prep) == "- **Prep time:** 2 hr 55 min"
    assert [f.value for f in find_labelled(RECIPE, CALORIES)] == [632]
    assert [f.value for f in find_labelled(RECIPE, VEGETARIAN)] == [False]


def test_a_field_named_in_prose_is_no_value():
    prose = "The cuisine of Burgundy is slow.\nThe total is subject to change.\n"
    assert find_labelled(prose, CUISINE) == []
    assert find_labelled(prose, FieldSpec(name="total", type="number", found_by="text")) == []


def test_a_label_opening_a_long_line_gives_its_first_sentence():
    """A memo's "Notice to: Acme Corp., 1 Main St. of Dayton. All notices shall ..." on one long line: the value is
    the label's sentence, cited as such; a label before a page of prose with no sentence end gives nothing."""
    notice = FieldSpec(name="notice_to", type="string", found_by="text")
    body = "Notice to: Acme Corp., 1 Main St. of Dayton. All notices shall be in writing " + "and so on " * 60 + ".\n"
    (found,) = find_labelled(body, notice)
    assert found.value == "Acme Corp., 1 Main St. of Dayton"
    assert _said(body, found) == "Notice to: Acme Corp., 1 Main St. of Dayton."
    assert find_labelled("Notice to: " + "words without an end " * 40, notice) == []


def test_hostile_text_finds_nothing_and_stays_fast():
    long_line = "Cuisine: " + "x" * 10_000_000
    started = time.perf_counter()
    assert find_labelled(long_line, CUISINE) == []
    assert find_labelled("Cuisine:\x00\x00\nCalories: none", CALORIES) == []
    assert find_labelled("", CUISINE) == []
    assert time.perf_counter() - started < 30  # linear: a backtracking pattern would not finish at all


def test_a_users_pattern_reads_its_value_group_and_gives_up_on_a_runaway_pattern():
    spec = FieldSpec(
        name="reference", type="string", found_by="pattern", pattern=r"Ref(?:erence)?\.?\s*(?P<value>[A-Z]{3}-\d+)"
    )
    body = "Invoice\nOur Ref. ABC-123 applies\n"
    (found,) = find_by_pattern(body, spec)
    assert found.value == "ABC-123" and _said(body, found) == "Our Ref. ABC-123 applies"
    runaway = FieldSpec(name="reference", type="string", found_by="pattern", pattern=r"(a+)+$")
    assert find_by_pattern("a" * 5_000 + "!", runaway) == []


def test_a_pattern_that_does_not_compile_or_comes_without_found_by_pattern_is_refused():
    with pytest.raises(ValidationError, match="not a regular expression"):
        FieldSpec(name="ref", type="string", found_by="pattern", pattern="(unclosed")
    with pytest.raises(ValidationError, match="only then"):
        FieldSpec(name="ref", type="string", found_by="text", pattern="Ref (?P<value>.+)")


def test_extraction_fills_what_the_labels_leave_out_and_never_replaces_a_labelled_value():
    labelled = AnnotationRow(row={"cuisine": "Burgundian"}, raw={"cuisine": "Burgundian"})
    found = extracted(_source(RECIPE, [labelled]), [CUISINE, PREP])
    (row,) = found.annotations
    assert row.row == {"cuisine": "Burgundian", "prep_minutes": 175}
    assert set(row.sources) == {"prep_minutes"} and row.sources["prep_minutes"].found_by == "text"
    assert without_extracted(found.annotations) == [labelled]


def test_a_value_a_shipped_rule_found_carries_how_often_that_rule_is_right():
    """The confidence stored with a value: a shipped rule's precision on labelled documents it was not tuned on
    (`documents show` prints it); a line a user's field names carries none, nothing measured it."""
    law = "This Agreement shall be governed by the laws of the State of Delaware. " + "The parties agree. " * 150
    document = Document(doc_id="c.txt", bucket="contracts", body=law + "\nNotice to: Acme Corp\n")
    specs = [
        *(s for s in shipped("contracts") if s.name == "governing_law"),
        FieldSpec(name="notice_to", type="string", found_by="text"),
    ]
    (row,) = extracted(SourceDocument(document=document), specs).annotations
    assert row.row == {"governing_law": ["Delaware"], "notice_to": "Acme Corp"}
    assert row.sources["governing_law"].confidence == rule_precision("contracts", "governing_law") > 0.5
    assert row.sources["notice_to"].confidence is None


def test_a_document_whose_labels_are_complete_gets_nothing():
    source = _source(RECIPE, labels_complete=True)
    assert extracted(source, [CUISINE, PREP]) == source


def test_a_single_field_written_twice_with_different_values_is_left_empty():
    twice = "Cuisine: French\nCuisine: Thai\n"
    assert extracted(_source(twice), [CUISINE]).annotations == []
    both = extracted(_source(twice), [CUISINE.model_copy(update={"multi": True})])
    assert both.annotations[0].row == {"cuisine": ["French", "Thai"]}


def test_a_models_answer_is_kept_only_when_its_quote_is_in_the_document_and_says_the_value():
    author = FieldSpec(name="author", type="string", found_by="model")
    (kept) = checked(RECIPE, author, Stated(value="Priya Sharma", quote="By  Priya   Sharma"))
    assert kept.value == "Priya Sharma" and _said(RECIPE, kept) == "By Priya Sharma"
    assert checked(RECIPE, author, Stated(value="Julia Child", quote="By Julia Child")) is None  # not in the text
    assert checked(RECIPE, author, Stated(value="Julia Child", quote="By Priya Sharma")) is None  # not what it says
    assert checked(RECIPE, PREP, Stated(value="175", quote="Prep time:** 2 hr 55 min")).value == 175
    assert checked(RECIPE, PREP, Stated(value="120", quote="Prep time:** 2 hr 55 min")) is None
    assert checked(RECIPE, author, Stated(value=None, quote=None)) is None


def test_a_long_document_is_cut_to_its_opening_and_the_passages_about_the_fields():
    law = FieldSpec(name="governing_law", type="string", found_by="model", aliases=["governed by"])
    filler = "\n\n".join(f"Section {i}. The supplier ships the goods on time." for i in range(400))
    body = (
        "MASTER AGREEMENT between A Corp and B Ltd.\n\n" + filler + "\n\nThis Agreement is governed by the law of Ohio."
    )
    cut = passages(body, [law], budget=2_000)
    assert len(cut) <= 2_100 and cut.startswith("MASTER AGREEMENT") and "governed by the law of Ohio" in cut


def test_a_schema_file_declares_fields_found_in_the_text_and_names_what_is_wrong(tmp_path):
    good = tmp_path / "recipes.toml"
    good.write_text('[fields.prep_minutes]\ntype = "integer"\nunit = "minutes"\naliases = ["prep"]\n')
    (spec,) = read_schema(good)
    assert (spec.name, spec.type, spec.unit, spec.found_by) == ("prep_minutes", "integer", "minutes", "text")
    bad = tmp_path / "bad.toml"
    bad.write_text('[fields.prep]\ntype = "duration"\n')
    with pytest.raises(InvalidInput, match="field 'prep': type"):
        read_schema(bad)
    typo = tmp_path / "typo.json"
    typo.write_text('{"fields": {"prep": {"type": "integer", "unti": "minutes"}}}')
    with pytest.raises(InvalidInput, match="unti"):
        read_schema(typo)
    with pytest.raises(InvalidInput, match="declares no fields"):
        (tmp_path / "empty.toml").write_text("")
        read_schema(tmp_path / "empty.toml")


def test_every_shipped_rule_finds_a_field_its_buckets_schema_declares_found_by_rule():
    from retrievers.extraction.rules import RULES
    from retrievers.extraction.shipped import shipped

    for bucket, rules in RULES.items():
        declared = {spec.name: spec.found_by for spec in shipped(bucket)}
        assert {name: declared.get(name) for name in rules} == dict.fromkeys(rules, "rule")
