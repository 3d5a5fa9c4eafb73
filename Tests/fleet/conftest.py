"""Fixtures of the fleet tests; the harness (fixture providers, instances, nginx, PostgreSQL) is in
fleet_harness.py, which says what the suite needs."""

from __future__ import annotations

import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fleet_harness import (  # noqa: E402
    DATABASE_URL, Cluster, Databases, Fleet, RecordingFixture,
)


@pytest.fixture(scope="session")
def fixture() -> RecordingFixture:
    server = RecordingFixture().start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def calm(fixture: RecordingFixture):
    """Every test starts with providers that answer at once, and leaves them so."""
    fixture.delays.clear()
    fixture.rate_limited.clear()
    yield
    fixture.delays.clear()
    fixture.rate_limited.clear()


@pytest.fixture(scope="session")
def server_url() -> str:
    if not DATABASE_URL:
        pytest.skip("SEEK_TEST_DATABASE_URL is not set (a PostgreSQL URL, e.g. from Tests/support/postgres.sh start DIR)")
    return DATABASE_URL


@pytest.fixture()
def databases(server_url: str) -> Databases:
    made = Databases(server_url)
    yield made
    made.drop_all()


@pytest.fixture()
def fresh_database(databases: Databases, request) -> str:
    """A new, empty database for this test alone."""
    return databases.fresh(request.node.name)


@pytest.fixture(scope="session")
def own_cluster(server_url: str) -> Cluster:
    folder = Path(tempfile.mkdtemp(prefix="seek-fleet-pg-"))
    cluster = Cluster(folder)
    try:
        cluster.start()
    except AssertionError as error:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.fail(f"could not start a PostgreSQL cluster of the tests' own (root runs it as the user postgres): {error}")
    yield cluster
    cluster.signal_all(signal.SIGCONT)
    try:
        cluster.stop("fast")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture()
def breakable(own_cluster: Cluster, request):
    """A fresh database on the tests' own cluster; the cluster is running again after the test."""
    made = Databases(own_cluster.url)
    url = made.fresh(request.node.name)
    yield own_cluster, url
    own_cluster.signal_all(signal.SIGCONT)
    if not own_cluster.running():
        own_cluster.start()
    made.drop_all()


@pytest.fixture()
def make_fleet(fixture: RecordingFixture):
    """make_fleet(database_url, extra_env=None) -> a started Fleet; everything stops after the test."""
    fleets: list[Fleet] = []
    roots: list[Path] = []

    def make(database: str, extra_env: dict | None = None) -> Fleet:
        root = Path(tempfile.mkdtemp(prefix="seek-fleet-"))
        roots.append(root)
        fleet = Fleet(fixture, root, database, extra_env)
        fleets.append(fleet)
        return fleet.start()

    yield make
    for fleet in fleets:
        fleet.stop()
        fleet.report()
    for root in roots:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture()
def fleet(make_fleet, fresh_database: str) -> Fleet:
    return make_fleet(fresh_database)


@pytest.fixture()
def home() -> Path:
    path = Path(tempfile.mkdtemp(prefix="seek-fleet-home-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)
