"""The `ragent` command as a user runs it: one-line errors that say what to do, and nothing half-written."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from cli import commands
from cli.main import main


def ragent(*args: str, home, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "RAGENT_HOME": str(home), "RAGENT_CACHE_DIR": str(home / "cache"), **env}
    return subprocess.run(
        [sys.executable, "-m", "cli", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def _one_line_error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("ragent: error:")]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def test_unknown_bucket_names_the_known_ones_and_how_to_add(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("hello")
    line = _one_line_error(ragent("ingest", str(folder), "--bucket", "recipes", home=tmp_path))
    assert (
        "bucket 'recipes' is unknown; use one of certificates, contracts" in line
        and "ragent buckets add recipes" in line
    )
    searched = _one_line_error(ragent("search", "keyword", "hello", "--bucket", "recipes", home=tmp_path))
    assert "bucket 'recipes' is unknown" in searched, "an unknown bucket is not a search with no results"


def test_malformed_bucket_name_is_refused(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("hello")
    assert "bucket 'Bad Name' is not a valid name" in _one_line_error(
        ragent("ingest", str(folder), "--bucket", "Bad Name", home=tmp_path)
    )


@pytest.mark.parametrize(
    "variable, url, expected",
    [
        ("DATABASE_URL", "postgresql://u:pw@127.0.0.1:9/db", "Postgres at"),
        ("QDRANT_URL", "http://127.0.0.1:9", "Qdrant at http://127.0.0.1:9 is unreachable"),
        ("OPENSEARCH_URL", "http://127.0.0.1:9", "OpenSearch at http://127.0.0.1:9 is unreachable"),
    ],
)
def test_unreachable_backends_are_one_line_errors(tmp_path, variable, url, expected):
    line = _one_line_error(ragent("search", "keyword", "anything", home=tmp_path, **{variable: url}))
    assert expected in line and "pw@" not in line


def test_missing_folder_is_a_clear_error(tmp_path):
    line = _one_line_error(ragent("ingest", str(tmp_path / "nowhere"), "--bucket", "generic", home=tmp_path))
    assert "nowhere" in line


def test_a_data_folder_that_cannot_be_made_is_a_one_line_error(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    line = _one_line_error(ragent("stats", home=tmp_path / "a-file" / "home"))
    assert f"{tmp_path / 'a-file' / 'home'}: Not a directory; check RAGENT_HOME" in line


@pytest.mark.parametrize("value", ["soon", "-1", "inf", "nan"])
def test_an_idle_stop_that_is_not_a_number_of_seconds_is_a_one_line_error(tmp_path, value):
    line = _one_line_error(ragent("stats", home=tmp_path, RAGENT_POSTGRES_IDLE_STOP_S=value))
    assert f"RAGENT_POSTGRES_IDLE_STOP_S must be a number of seconds, 0 or more; it is '{value}'" in line
    assert not (tmp_path / "postgres").exists(), "refused before anything started"


def test_folder_ingest_search_and_catalog_end_to_end(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "po-17.txt").write_text("Purchase order PO-17 for 40 brass fittings, delivery to Rotterdam.")
    (folder / "labels.jsonl").write_text('{"doc_id": "po-17.txt", "row": {"quantity": 40, "port": "Rotterdam"}}\n')
    ingested = ragent(
        "ingest", str(folder), "--bucket", "invoices", "--annotations", str(folder / "labels.jsonl"), home=tmp_path
    )
    assert ingested.returncode == 0, ingested.stderr
    assert "documents: 1 (1 added" in ingested.stdout and "annotation rows: 1" in ingested.stdout
    found = ragent("search", "keyword", "PO-17", "--bucket", "invoices", home=tmp_path)
    assert "po-17.txt" in found.stdout
    rows = ragent("annotations", "invoices", "--where", "quantity", ">=", "40", home=tmp_path)
    assert "po-17.txt#properties-0" in rows.stdout and "1 of 1 row(s)" in rows.stdout

    hits = json.loads(ragent("search", "keyword", "PO-17", "--bucket", "invoices", "--json", home=tmp_path).stdout)
    assert [(h["doc_id"], h["bucket"]) for h in hits] == [("po-17.txt", "invoices")]
    assert "40 brass fittings" in hits[0]["text"] and hits[0]["score"] > 0 and hits[0]["chunk_id"]
    records = json.loads(ragent("annotations", "invoices", "--json", home=tmp_path).stdout)
    assert [(r["annotation_id"], r["row"], r["total_rows"]) for r in records] == [
        ("po-17.txt#properties-0", {"quantity": 40, "port": "Rotterdam"}, 1)
    ]
    stats = json.loads(ragent("stats", "--json", home=tmp_path).stdout)
    assert stats["store"] == {"documents": 1, "chunks": 1, "annotations": 1}
    assert stats["keyword"]["chunks"] == stats["vectors"]["chunks"] == 1 and stats["postgres"]["embedded"]
    bad_field = ragent("annotations", "invoices", "--where", "colour", "=", "red", home=tmp_path)
    assert "unknown field 'colour'; fields of this bucket: port, quantity" in _one_line_error(bad_field)
    made = [p for p in tmp_path.rglob("*") if not p.is_relative_to(folder) and not p.is_socket()]
    shared = [
        f"{p.relative_to(tmp_path)} {stat.filemode(p.lstat().st_mode)}" for p in made if p.lstat().st_mode & 0o077
    ]
    assert made and not shared, f"the data folder is its owner's alone: {shared[:5]}"


def test_corrupted_keyword_index_is_a_one_line_error_with_the_fix(tmp_path):
    (tmp_path / "tantivy").mkdir(parents=True)
    (tmp_path / "tantivy" / "meta.json").write_text("{garbage")
    line = _one_line_error(ragent("search", "keyword", "anything", home=tmp_path))
    assert "keyword index in" in line and "ragent check --repair" in line


def test_invalid_scope_is_refused_before_anything_runs(tmp_path):
    result = ragent("search", "keyword", "x", "--scope", "../../etc", home=tmp_path)
    assert result.returncode == 2 and "scope '../../etc' is not valid" in result.stderr


def test_a_question_of_bytes_that_are_not_utf8_is_a_one_line_error(tmp_path):
    """The shell passes the bytes; Python reads \\xff as a lone surrogate, which Postgres refused in a traceback."""
    for question in (b"\xffHow many receipts?", b"How many receipts from \xff\xfe?"):
        result = subprocess.run(
            [sys.executable, "-m", "cli", "ask", question],
            capture_output=True,
            env={**os.environ, "RAGENT_HOME": str(tmp_path), "RAGENT_CACHE_DIR": str(tmp_path / "cache")},
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        err = result.stderr.decode()
        assert result.returncode == 2 and "Traceback" not in err, err
        assert "the question is not valid Unicode text (bytes that are not UTF-8 at position" in err


def test_a_shared_dataset_is_ingested_with_typed_annotations(tmp_path):
    from tests.conftest import shared_dataset

    shared_dataset("invoice2data_samples")
    ingested = ragent("ingest", "--dataset", "invoices", home=tmp_path)
    assert ingested.returncode == 0, ingested.stderr
    assert "documents: 12 (12 added" in ingested.stdout
    labels = [
        json.loads(line)["expected"][0] | {"doc_id": json.loads(line)["doc_id"]}
        for line in (shared_dataset("invoice2data_samples") / "derived_invoices.jsonl").read_text().splitlines()
    ]
    expected = sorted(e["doc_id"] for e in labels if e.get("currency") == "EUR" and (e.get("amount") or 0) > 100)
    euros = ragent(
        "annotations", "invoices", "--where", "currency", "=", "EUR", "--where", "amount", ">", "100", home=tmp_path
    )
    assert (
        sorted(line.split()[0].split("#")[0] for line in euros.stdout.splitlines() if "#properties" in line) == expected
    )
    assert expected == ["coolblue1", "coolblue2"]
    catalog = ragent("catalog", "invoices", home=tmp_path)
    assert "properties.amount: number" in catalog.stdout and "line_item." in catalog.stdout


def test_catalog_describe_records_a_users_words_end_to_end(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "pad-thai.txt").write_text("Pad thai: rice noodles, tamarind and fish sauce, in thirty minutes.")
    (folder / "labels.jsonl").write_text('{"doc_id": "pad-thai.txt", "row": {"cuisine": "Thai", "minutes": 30}}\n')
    added = ragent(
        "buckets", "add", "recipes", "--description", "Cooking recipes", "--aliases", "recipe, dish", home=tmp_path
    )
    assert added.returncode == 0, added.stderr
    assert "  recipes: Cooking recipes\n      aliases: recipe, dish\n" in added.stdout
    assert "aliases: invoice, bill, billed" in added.stdout
    ingested = ragent(
        "ingest", str(folder), "--bucket", "recipes", "--annotations", str(folder / "labels.jsonl"), home=tmp_path
    )
    assert ingested.returncode == 0, ingested.stderr

    described = ragent(
        "catalog", "describe", "recipes", "minutes", "--aliases", "takes,how long", "--unit", "minutes", home=tmp_path
    )
    assert described.returncode == 0, described.stderr
    assert described.stdout.splitlines() == [
        "  properties.minutes: integer  unit=minutes  in 1 docs  range 30 .. 30  e.g. [30]",
        "      aliases: takes, how long",
    ]
    assert ragent("catalog", "describe", "recipes", "cuisine", "--role", "name", home=tmp_path).returncode == 0
    retold = ragent(
        "catalog", "describe", "recipes", "--remove-aliases", "dish", "--aliases", "cookbook", home=tmp_path
    )
    shown = ragent("catalog", "recipes", home=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == retold.stdout
    recorded = json.loads(ragent("catalog", "recipes", "--json", home=tmp_path).stdout)
    assert (recorded["bucket"], recorded["description"], recorded["aliases"]) == (
        "recipes",
        "Cooking recipes",
        ["recipe", "cookbook"],
    )
    minutes = next(f for f in recorded["fields"] if f["name"] == "minutes")
    assert (minutes["unit"], minutes["aliases"], minutes["min"], minutes["doc_count"]) == (
        "minutes",
        ["takes", "how long"],
        30,
        1,
    )
    assert shown.stdout.splitlines() == [
        "  recipes: Cooking recipes",
        "      aliases: recipe, cookbook",
        "  properties.cuisine: string  role=name  in 1 docs  e.g. ['Thai']",
        "  properties.minutes: integer  unit=minutes  in 1 docs  range 30 .. 30  e.g. [30]",
        "      aliases: takes, how long",
    ]

    unknown_field = ragent("catalog", "describe", "recipes", "colour", "--aliases", "hue", home=tmp_path)
    assert "field 'colour' is unknown in bucket 'recipes'; its fields: cuisine, minutes" in _one_line_error(
        unknown_field
    )
    unknown_bucket = _one_line_error(ragent("catalog", "describe", "cakes", "--aliases", "cake", home=tmp_path))
    assert "bucket 'cakes' is unknown; use one of certificates, contracts" in unknown_bucket
    bad_role = ragent("catalog", "describe", "recipes", "cuisine", "--role", "chef", home=tmp_path)
    assert bad_role.returncode == 2 and "argument --role: invalid choice: 'chef'" in bad_role.stderr
    misplaced = _one_line_error(ragent("catalog", "recipes", "--aliases", "x", home=tmp_path))
    assert "`ragent catalog describe recipes [FIELD] ...`" in misplaced


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["ask", "How many contracts?"], "ragent: interrupted\n"),
        (["ingest", "folder", "--bucket", "generic"], "ragent: interrupted; documents already committed stay"),
    ],
)
def test_ctrl_c_says_what_was_kept_only_for_an_ingest(monkeypatch, capsys, argv, said):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, argv[0], interrupted)
    assert main(argv) == 130
    assert capsys.readouterr().err.startswith(said)


# Ctrl-C while the command's modules load, standing for the signal: the import of psycopg raises KeyboardInterrupt.
INTERRUPTED_WHILE_LOADING = """
import builtins, sys
real_import = builtins.__import__
def import_interrupted(name, *args, **kwargs):
    if name == "psycopg":
        raise KeyboardInterrupt
    return real_import(name, *args, **kwargs)
builtins.__import__ = import_interrupted
from cli.entry import entry_point
entry_point()
"""


def test_ctrl_c_while_the_command_loads_ends_it_in_one_line_too():
    """The first 0.3 s of a command are Python importing its modules: Ctrl-C there ends it as during the command,
    one line and status 130, not an import's traceback."""
    result = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_WHILE_LOADING, "stats"], capture_output=True, text=True, timeout=120
    )
    assert (result.returncode, result.stderr) == (130, "ragent: interrupted\n")


def test_a_users_fields_are_declared_found_in_the_text_found_again_and_quoted_end_to_end(tmp_path):
    folder = tmp_path / "recipes"
    folder.mkdir()
    (folder / "larb.md").write_text("# Larb\n\nBy Priya Sharma\nCuisine: Thai\nPrep: 25 min\n\nToss and serve.\n")
    (folder / "stew.md").write_text("# Stew\n\nCuisine: Irish\nPrep time: 2 hr 5 min\n")
    schema = tmp_path / "recipes.toml"
    schema.write_text(
        '[fields.cuisine]\ntype = "string"\n\n[fields.prep_minutes]\ntype = "integer"\nunit = "minutes"\n'
    )
    added = ragent("buckets", "add", "recipes", "--schema", str(schema), home=tmp_path)
    assert added.returncode == 0 and "2 fields declared (cuisine, prep_minutes)" in added.stdout, added.stderr
    ingested = ragent("ingest", str(folder), "--bucket", "recipes", home=tmp_path)
    assert "values found in the text: 3 in 2 documents" in ingested.stdout, ingested.stderr  # "Prep time" is no alias

    described = ragent(
        "catalog", "describe", "recipes", "prep_minutes", "--type", "integer", "--found-by", "pattern",
        "--pattern", r"Prep(?: time)?: (?P<value>.+)", home=tmp_path,
    )  # fmt: skip
    assert described.returncode == 0, described.stderr
    again = ragent("extract", "--bucket", "recipes", home=tmp_path)  # prep_minutes only: cuisine was read at ingest
    assert "2 documents read, 2 with changed fields, 2 values found in the text" in again.stdout, (
        again.stderr
    )  # prep only
    unknown = _one_line_error(ragent("extract", "--bucket", "recipes", "--fields", "cuisine,servings", home=tmp_path))
    assert "recipes has no field 'servings'; its fields are cuisine, prep_minutes" in unknown
    shown = ragent("documents", "show", "stew.md", home=tmp_path)
    assert 'prep_minutes found by pattern: "Prep time: 2 hr 5 min"' in shown.stdout, shown.stdout
    assert '"prep_minutes": 125' in shown.stdout

    wrong = _one_line_error(ragent("catalog", "describe", "recipes", "servings", "--found-by", "text", home=tmp_path))
    assert "give its type" in wrong
    bad = tmp_path / "bad.toml"
    bad.write_text('[fields.prep]\ntype = "duration"\n')
    assert "field 'prep': type" in _one_line_error(
        ragent("buckets", "add", "recipes", "--schema", str(bad), home=tmp_path)
    )
