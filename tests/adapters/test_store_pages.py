"""Listings by Query with a cursor: every record exactly once, in order, whatever the page size."""

from __future__ import annotations

import pytest
from launchpod.adapters.store.clusters import DynamoClusters
from launchpod.adapters.store.operations import DynamoOperations
from launchpod.contracts.operations import OperationStatus
from launchpod.domain.errors import InvalidInput

from tests.adapters.test_operations_store import _operation


def _all(store: DynamoOperations, limit: int, **filters) -> list:
    seen: list = []
    cursor = None
    while True:
        items, cursor = store.page(limit=limit, cursor=cursor, **filters)
        assert len(items) <= limit
        seen += items
        if cursor is None:
            return seen


@pytest.fixture
def store(tables) -> tuple[DynamoOperations, list]:
    store = DynamoOperations(tables["operations"], tables["clusters"], tables["runners"])
    made = []
    for i in range(10):
        op = _operation(f"c{i % 3}")
        store.create_holding_cluster(op, f"k{i}")
        if i % 4:  # most finish; the others keep their cluster locked (one per cluster at a time)
            store.finish(op.id, OperationStatus.SUCCEEDED, error=None, message=None)
        else:
            store.finish(op.id, OperationStatus.FAILED, error="E", message="m")
        made.append(op)
    return store, made


def _check(store: DynamoOperations, made: list, limit: int, keep, **filters) -> None:
    views = _all(store, limit, **filters)
    listed = [v.id for v in views]
    assert len(listed) == len(set(listed)), "a record came twice"
    assert set(listed) == {o.id for o in made if keep(o)}, "a record is missing or does not match the filters"
    created = [v.createdAt for v in views]
    assert created == sorted(created, reverse=True), "not newest first"


@pytest.mark.parametrize("limit", [1, 3, 200])
def test_operations_page_through_every_record_once_newest_first(store, limit):
    store, made = store
    status = {o.id: str(store.get(o.id).status) for o in made}
    _check(store, made, limit, lambda o: True, target=None, status=None)
    _check(store, made, limit, lambda o: o.target == "c1", target="c1", status=None)
    _check(store, made, limit, lambda o: status[o.id] == "FAILED", target=None, status="FAILED")
    _check(store, made, limit, lambda o: o.target == "c2" and status[o.id] == "FAILED", target="c2", status="FAILED")


def test_a_cursor_from_other_filters_or_tampered_is_refused_with_what_to_do(store):
    store, _ = store
    _, cursor = store.page(target="c1", status=None, limit=2)
    assert cursor
    for bad in (cursor[:-3], "not-a-token", cursor + "x"):
        with pytest.raises(InvalidInput):
            store.page(target="c1", status=None, limit=2, cursor=bad)
    with pytest.raises(InvalidInput) as refused:
        store.page(target="c2", status=None, limit=2, cursor=cursor)
    assert "nextToken" in refused.value.message


def test_clusters_list_registered_ones_by_name_a_page_at_a_time(tables):
    clusters = DynamoClusters(tables["clusters"])
    names = [f"cl-{i:03d}" for i in range(30)]
    for name in reversed(names):
        clusters.register(name, source="created", region="us-east-1")
    DynamoOperations(tables["operations"], tables["clusters"], tables["runners"]).create_holding_cluster(
        _operation("locked-only"), "k"
    )
    seen, cursor = [], None
    while True:
        page, cursor = clusters.page(limit=8, cursor=cursor)
        seen += [r.name for r in page]
        if cursor is None:
            break
    assert seen == names  # the lock-only row of an unregistered name is not a cluster
    assert [r.name for r in clusters.list()] == names
