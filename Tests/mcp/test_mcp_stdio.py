"""`seek mcp` driven over stdio by an independent client: the Python `mcp` package.

The built `seek` comes from $SEEK_BIN (else .build/release/seek, else .build/debug/seek). Every
provider points at a fixture server this module starts on 127.0.0.1; each test gets its own home,
cache and data folders. Parts that replay real recorded responses skip, saying so, when
../shared/fixtures is absent.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import jsonschema
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixture_server import ALADIN_KEY, GIPHY_KEY, FixtureServer, seek_binary  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SHARED_FIXTURES = REPO.parent / "shared" / "fixtures"
# Every source Seek ships (CompositionRoot.builtInProviders), in its order.
SOURCES = ["openlibrary", "giphy", "aladin", "googlebooks", "crossref", "kakao", "naver", "gutendex", "calibre"]
# Those the fixture server stands in for: the three with keys given, and the keyless two (which find nothing).
READY = {"openlibrary", "giphy", "aladin", "crossref", "gutendex"}
TOOLS = {"search", "detail", "trending", "suggest", "providers", "favorites_list", "favorites_add", "favorites_remove"}



def field(value: Any, *names: str) -> Any:
    """A result's field by its Python SDK name (snake_case in 2.x, camelCase in 1.x)."""
    for name in names:
        if hasattr(value, name):
            return getattr(value, name)
    raise AttributeError(f"none of {names} on {type(value).__name__}")


def structured(result: Any) -> dict:
    return field(result, "structured_content", "structuredContent")


def is_error(result: Any) -> bool:
    return bool(field(result, "is_error", "isError"))


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


@pytest.fixture(scope="module")
def fixtures():
    server = FixtureServer(SHARED_FIXTURES).start()
    yield server
    server.stop()


@pytest.fixture
def environment(fixtures: FixtureServer, tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "SEEK_CACHE_DIR": str(tmp_path / "cache"),
        "SEEK_DATA_DIR": str(tmp_path / "data"),
        "NO_COLOR": "1",
        **fixtures.environment(),
    }


def with_session(environment: dict[str, str], tmp_path: Path, body: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    """Starts `seek mcp`, initializes a client session, runs `body`, then closes stdin."""

    async def main() -> Any:
        parameters = StdioServerParameters(command=seek_binary(), args=["mcp"], env=environment)
        with open(tmp_path / "stderr.txt", "a") as errlog:
            async with stdio_client(parameters, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await body(session)

    return asyncio.run(main())


def test_initialize_names_the_server_and_offers_tools_and_resources(environment, tmp_path):
    async def main():
        parameters = StdioServerParameters(command=seek_binary(), args=["mcp"], env=environment)
        with open(tmp_path / "stderr.txt", "a") as errlog:
            async with stdio_client(parameters, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    return await session.initialize()

    result = asyncio.run(main())
    info = field(result, "server_info", "serverInfo")
    capabilities = result.capabilities
    assert info.name == "seek"
    assert capabilities.tools is not None
    assert capabilities.resources is not None


def test_tools_list_has_the_eight_tools_with_schemas(environment, tmp_path):
    tools = with_session(environment, tmp_path, lambda session: session.list_tools())
    by_name = {tool.name: tool for tool in tools.tools}
    assert set(by_name) == TOOLS
    for name, tool in by_name.items():
        assert field(tool, "input_schema", "inputSchema")["type"] == "object", name
        assert field(tool, "output_schema", "outputSchema")["type"] == "object", name
    search = field(by_name["search"], "input_schema", "inputSchema")
    assert search["required"] == ["query"]
    assert search["properties"]["limit"]["minimum"] == 1
    assert search["properties"]["limit"]["maximum"] == 100
    assert search["properties"]["providers"]["items"]["enum"] == SOURCES
    assert field(by_name["detail"], "input_schema", "inputSchema")["required"] == ["id"]


def test_tools_say_which_change_the_favourites(environment, tmp_path):
    tools = with_session(environment, tmp_path, lambda session: session.list_tools())
    annotations = {tool.name: tool.annotations for tool in tools.tools}
    writers = {name for name, note in annotations.items() if not field(note, "read_only_hint", "readOnlyHint")}
    assert writers == {"favorites_add", "favorites_remove"}


def test_search_merges_a_book_from_open_library_and_aladin_into_one_item(environment, tmp_path):
    async def body(session: ClientSession):
        await session.list_tools()  # so the client validates the result against the output schema
        return await session.call_tool("search", {"query": "quiet", "providers": ["openlibrary", "aladin"]})

    result = with_session(environment, tmp_path, body)
    assert not is_error(result), text(result)
    document = structured(result)
    assert document["query"] == "quiet"
    quiet = document["items"][0]
    assert [source["id"] for source in quiet["sources"]] == ["openlibrary:OL1W", "aladin:9780307352149"]
    assert [outcome["status"] for outcome in document["providers"]] == ["ok", "ok"]
    assert "openlibrary:OL1W [2 sources]" in text(result)


def test_search_of_recorded_open_library_answer(environment, tmp_path):
    if not SHARED_FIXTURES.is_dir():
        pytest.skip(f"{SHARED_FIXTURES} is absent: the recorded Open Library search is not replayed")

    async def body(session: ClientSession):
        return await session.call_tool("search", {"query": "the lord of the rings", "providers": ["openlibrary"], "limit": 20})

    result = with_session(environment, tmp_path, body)
    assert not is_error(result), text(result)
    items = structured(result)["items"]
    assert items[0]["id"] == "openlibrary:OL27448W"
    assert items[0]["title"] == "The Lord of the Rings"
    assert len(text(result)) < 2500


def test_detail_returns_the_work_with_its_author(environment, tmp_path):
    async def body(session: ClientSession):
        await session.list_tools()
        return await session.call_tool("detail", {"id": "openlibrary:OL45804W"})

    result = with_session(environment, tmp_path, body)
    assert not is_error(result), text(result)
    document = structured(result)
    assert document["title"] == "Fantastic Mr Fox"
    assert document["description"] == "The main character of Fantastic Mr. Fox is a fox."
    assert text(result).startswith("Fantastic Mr Fox — Roald Dahl")


def test_detail_of_recorded_aladin_lookup(environment, tmp_path):
    if not SHARED_FIXTURES.is_dir():
        pytest.skip(f"{SHARED_FIXTURES} is absent: the recorded Aladin lookup is not replayed")

    async def body(session: ClientSession):
        return await session.call_tool("detail", {"id": "aladin:9791130605210"})

    result = with_session(environment, tmp_path, body)
    assert not is_error(result), text(result)
    assert structured(result)["title"] == "오베라는 남자"


def test_a_malformed_id_is_an_error_and_the_session_goes_on(environment, tmp_path):
    async def body(session: ClientSession):
        bad = await session.call_tool("detail", {"id": "not-an-id"})
        after = await session.call_tool("providers", {})
        return bad, after

    bad, after = with_session(environment, tmp_path, body)
    assert is_error(bad)
    assert "'not-an-id' is not a PROVIDER:ID item id" in text(bad)
    assert not is_error(after)


def test_an_unknown_item_is_an_error_naming_its_provider(environment, tmp_path):
    result = with_session(environment, tmp_path, lambda session: session.call_tool("detail", {"id": "openlibrary:OL999W"}))
    assert is_error(result)
    assert text(result) == "Open Library no longer has this book.", text(result)
    assert "http" not in text(result) and "/works/" not in text(result), text(result)


def test_a_limit_out_of_range_is_an_error(environment, tmp_path):
    result = with_session(environment, tmp_path, lambda session: session.call_tool("search", {"query": "quiet", "limit": 0}))
    assert is_error(result)
    assert "'limit' must be between 1 and 100" in text(result)


def test_favourites_add_then_list(environment, tmp_path):
    async def body(session: ClientSession):
        await session.list_tools()
        added = await session.call_tool("favorites_add", {"id": "openlibrary:OL45804W"})
        listed = await session.call_tool("favorites_list", {})
        resource = await session.read_resource("seek://favorites")
        return added, listed, resource

    added, listed, resource = with_session(environment, tmp_path, body)
    assert not is_error(added), text(added)
    assert [entry["id"] for entry in structured(added)["entries"]] == ["openlibrary:OL45804W"]
    entries = structured(listed)["entries"]
    assert [(entry["id"], entry["title"], entry["creators"]) for entry in entries] == [
        ("openlibrary:OL45804W", "Fantastic Mr Fox", ["Roald Dahl"])
    ]
    assert json.loads(resource.contents[0].text) == structured(listed)


def test_favourites_persist_for_the_cli(environment, tmp_path):
    with_session(environment, tmp_path, lambda session: session.call_tool("favorites_add", {"id": "openlibrary:OL45804W"}))
    listed = subprocess.run(
        [seek_binary(), "favorites", "list", "--format", "json"], env=environment, capture_output=True, text=True, timeout=60
    )
    assert listed.returncode == 0, listed.stderr
    assert [entry["id"] for entry in json.loads(listed.stdout)["entries"]] == ["openlibrary:OL45804W"]


def test_providers_lists_each_provider_and_no_key(environment, tmp_path):
    async def body(session: ClientSession):
        await session.list_tools()
        return await session.call_tool("providers", {})

    result = with_session(environment, tmp_path, body)
    providers = structured(result)["providers"]
    assert [provider["id"] for provider in providers] == SOURCES
    assert {provider["id"] for provider in providers if provider["configured"] and provider["status"] == "ready"} == READY
    assert not any(provider["configured"] for provider in providers if provider["id"] not in READY)
    assert {"search", "detail"} <= set(providers[0]["capabilities"])
    everything = json.dumps(structured(result)) + text(result)
    assert GIPHY_KEY not in everything and ALADIN_KEY not in everything


# One call of every tool that the fixture server answers, in an order that leaves a favourite to remove.
EVERY_TOOL_CALL = [
    ("search", {"query": "quiet", "providers": ["openlibrary", "aladin"]}),
    ("detail", {"id": "openlibrary:OL45804W"}),
    ("trending", {"providers": ["giphy"]}),
    ("suggest", {"prefix": "ca", "providers": ["giphy"]}),
    ("providers", {}),
    ("favorites_add", {"id": "openlibrary:OL45804W"}),
    ("favorites_list", {}),
    ("favorites_remove", {"id": "openlibrary:OL45804W"}),
]


def test_every_tool_s_structured_content_validates_against_its_declared_output_schema(environment, tmp_path):
    async def body(session: ClientSession):
        tools = await session.list_tools()
        schemas = {tool.name: field(tool, "output_schema", "outputSchema") for tool in tools.tools}
        results = [(name, await session.call_tool(name, arguments)) for name, arguments in EVERY_TOOL_CALL]
        return schemas, results

    schemas, results = with_session(environment, tmp_path, body)
    assert {name for name, _ in results} == TOOLS
    for name, result in results:
        assert not is_error(result), f"{name}: {text(result)}"
        jsonschema.Draft202012Validator.check_schema(schemas[name])
        jsonschema.Draft202012Validator(schemas[name]).validate(structured(result))


def test_an_output_schema_rejects_a_document_missing_a_required_field(environment, tmp_path):
    async def body(session: ClientSession):
        tools = await session.list_tools()
        schema = next(field(tool, "output_schema", "outputSchema") for tool in tools.tools if tool.name == "search")
        return schema, await session.call_tool("search", {"query": "quiet", "providers": ["openlibrary"]})

    schema, result = with_session(environment, tmp_path, body)
    document = structured(result)
    del document["items"][0]["sources"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(document)


def test_stdout_carries_only_protocol_messages_and_every_request_is_answered(environment, tmp_path):
    """Requests written at once, then stdin closed: every answer still comes, each line JSON-RPC."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pytest", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "quiet"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "seek://history"}},
    ]
    process = subprocess.run(
        [seek_binary(), "mcp", "--demo"],
        input="".join(json.dumps(request) + "\n" for request in requests),
        env=environment, capture_output=True, text=True, timeout=60,
    )
    assert process.returncode == 0, process.stderr
    lines = [line for line in process.stdout.splitlines() if line.strip()]
    messages = [json.loads(line) for line in lines]
    assert all(message.get("jsonrpc") == "2.0" for message in messages)
    assert sorted(message["id"] for message in messages if "id" in message) == [1, 2, 3]
    assert "demo mode" in process.stderr
