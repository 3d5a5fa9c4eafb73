"""Every JSON document `seek` writes validates against its schema in openapi.yaml.

Runs the built `seek` ($SEEK_BIN, else .build/release/seek, else .build/debug/seek) in demo mode
(recorded answers, no network; a favourite is added from Tests/mcp's fixture server on 127.0.0.1,
as favourites have no demo mode) and checks each command's `--format json` output against the
matching component of `Sources/SeekRuntime/Documents/openapi.yaml` (JSON Schema 2020-12, with the
component references resolved in the document itself).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import sys

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests" / "mcp"))
from fixture_server import FixtureServer, seek_binary  # noqa: E402  (favourites have no demo mode: their fixture provider)
OPENAPI = REPO / "Sources" / "SeekRuntime" / "Documents" / "openapi.yaml"



@pytest.fixture(scope="module")
def openapi() -> dict:
    return yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))


def validator(openapi: dict, component: str) -> jsonschema.Draft202012Validator:
    """A validator of `component`, whose `#/components/schemas/…` references resolve in `openapi`."""
    schema = {"$ref": f"#/components/schemas/{component}", "components": openapi["components"]}
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture
def environment(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "SEEK_CACHE_DIR": str(tmp_path / "cache"),
        "SEEK_DATA_DIR": str(tmp_path / "data"),
        "NO_COLOR": "1",
    }


def seek_json(environment: dict[str, str], *arguments: str) -> object:
    completed = subprocess.run(
        [seek_binary(), *arguments, "--format", "json"], env=environment, capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, f"seek {' '.join(arguments)}: {completed.stderr}"
    return json.loads(completed.stdout)


# (command line, component): every command that prints a JSON document, in demo mode.
DOCUMENTS = [
    (["search", "the lord of the rings", "--demo"], "SearchDocument"),
    (["search", "cat", "--providers", "giphy", "--demo"], "SearchDocument"),
    (["search", "위대한 이야기", "--providers", "aladin", "--demo"], "SearchDocument"),
    (["detail", "openlibrary:OL45804W", "--demo"], "ItemDetail"),
    (["detail", "aladin:9791130605210", "--demo"], "ItemDetail"),
    (["trending", "--providers", "giphy", "--demo"], "TrendingDocument"),
    (["trending", "--providers", "aladin", "--demo"], "TrendingDocument"),
    (["suggest", "harr", "--demo"], "SuggestDocument"),
    (["providers"], "ProvidersDocument"),
]


@pytest.mark.parametrize("arguments,component", DOCUMENTS, ids=[" ".join(a) for a, _ in DOCUMENTS])
def test_document_validates_against_its_component(openapi, environment, arguments, component):
    document = seek_json(environment, *arguments)
    validator(openapi, component).validate(document)


def test_user_state_and_stats_documents_validate_after_a_search_and_a_favourite(openapi, environment):
    # Not --demo: a demo session keeps its state in a folder of its own, so its search is in no history here.
    fixtures = FixtureServer(None).start()
    try:
        seek_json({**environment, **fixtures.environment()}, "search", "quiet")
        added = subprocess.run(
            [seek_binary(), "favorites", "add", "openlibrary:OL45804W"], env={**environment, **fixtures.environment()},
            capture_output=True, text=True, timeout=60)
    finally:
        fixtures.stop()
    assert added.returncode == 0, added.stderr
    favorites = seek_json(environment, "favorites", "list")
    history = seek_json(environment, "history")
    stats = seek_json(environment, "stats")
    assert favorites["entries"] and history["entries"], "a favourite and a search were recorded"
    validator(openapi, "FavoritesDocument").validate(favorites)
    validator(openapi, "HistoryDocument").validate(history)
    validator(openapi, "StatsDocument").validate(stats)


def test_a_document_missing_a_required_field_fails_validation(openapi, environment):
    document = seek_json(environment, "search", "the lord of the rings", "--demo")
    assert document["items"], "the demo search has results"
    del document["items"][0]["title"]
    with pytest.raises(jsonschema.ValidationError):
        validator(openapi, "SearchDocument").validate(document)
