"""The cluster registry in memory: the ClusterRecords / ClusterRegistry ports and the create phases' record_requested /
record_created (adapters.store.clusters.DynamoClusters).

Held to the adapter by tests/ports/test_cluster_registry.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Unpack

from launchpod.adapters.store.clusters import cluster_record, registration
from launchpod.adapters.store.dynamo import decode_cursor, encode_cursor
from launchpod.domain import ownership
from launchpod.domain.clusters.cluster_record import ClusterRecord, RegisteredFacts, Source
from launchpod.domain.operations import now

from tests.fakes.operations import Operations

# What register always writes, for a seeded record that leaves it out.
SEEDED = {"source": "created", "region": "us-east-1", "registeredAt": "2026-11-30T00:00:00+00:00"}


class Clusters:
    """Registered clusters by name: ``records`` seeds their items as the registry table would hold them (the
    source, Region and registration time register always writes filled in where a test leaves them out), read
    as the adapter reads them; ``registered`` is (name, source, region) of each register asked.

    The registry shares its table with the operations store's cluster locks: given ``operations`` (the fake of
    tests/fakes/operations.py), a registered cluster an operation holds reads with ``lockedBy`` naming it."""

    def __init__(self, records: dict[str, dict[str, Any]] | None = None, operations: Operations | None = None) -> None:
        self.records = records if records is not None else {}
        self.operations = operations
        self.registered: list[tuple[str, str, str]] = []

    def get(self, name: str) -> ClusterRecord | None:
        found = self.records.get(name)
        if found is None:
            return None
        holder = self.operations.holder(name) if self.operations is not None else None
        return cluster_record({**SEEDED, "name": name, **found} | ({"lockedBy": holder} if holder else {}))

    def page(self, *, limit: int, cursor: str | None = None) -> tuple[list[ClusterRecord], str | None]:
        """By name; the cursor is opaque, as the adapter's."""
        names = sorted(self.records)
        start = int(decode_cursor(cursor, ["clusters"])["next"]) if cursor else 0
        more = len(names) > start + limit
        page = [r for r in map(self.get, names[start : start + limit]) if r is not None]
        return page, encode_cursor({"next": start + limit}, ["clusters"]) if more else None

    def list(self) -> Iterator[ClusterRecord]:
        """Every registered cluster, as the adapter pages through them."""
        yield from (r for r in map(self.get, sorted(self.records)) if r is not None)

    def register(self, name: str, *, source: Source, region: str, **facts: Unpack[RegisteredFacts]) -> None:
        """Idempotent: a second registration rewrites the facts given and keeps the first registration time."""
        self.registered.append((name, source, region))
        first = {**SEEDED, **self.records[name]}["registeredAt"] if name in self.records else now().isoformat()
        sets = registration(source, region, **facts)
        self.records[name] = {**self.records.get(name, {}), **sets, "registeredAt": first}

    def record_requested(self, name: str, fact: str) -> bool:
        return self._annotate(name, ownership.requested(fact), True)

    def record_created(self, name: str, fact: str, arn: str) -> bool:
        return self._annotate(name, fact, arn)

    def _annotate(self, name: str, attribute: str, value: object) -> bool:
        """Only a registered name here: the adapter also writes on a name only an operation holds, which reads
        as unregistered either way."""
        if name not in self.records:
            return False
        self.records[name][attribute] = value
        return True
