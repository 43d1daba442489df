"""Incidents and the ladder policy, one item per cluster, written with optimistic concurrency: AWS sends
health events in pairs, and two handlers folding the same pair must not open two incidents."""

from __future__ import annotations

from typing import cast

from launchpod.adapters.aws.clients import resource
from launchpod.adapters.store.dynamo import get_versioned, put_versioned
from launchpod.domain.nodes.ladder import IncidentsDocument

KEEP = 200  # incidents kept per cluster, newest first (an item stays far below DynamoDB's 400 KB)


class DynamoIncidents:
    def __init__(self, table: str) -> None:
        self.table = resource("dynamodb").Table(table)

    def get(self, cluster: str) -> tuple[IncidentsDocument, int]:
        """(the document, its version); version 0 when nothing is stored yet."""
        found = get_versioned(self.table, {"cluster": cluster})
        # the JSON this adapter stored (put below): an IncidentsDocument
        return (cast(IncidentsDocument, found[0]), found[1]) if found else ({"policy": None, "incidents": []}, 0)

    def put(self, cluster: str, doc: IncidentsDocument, version: int) -> bool:
        """Store ``doc`` if nobody wrote since ``version`` was read; False when someone did."""
        newest = sorted(doc["incidents"], key=lambda i: i["openedAt"], reverse=True)[:KEEP]
        return put_versioned(self.table, {"cluster": cluster}, {**doc, "incidents": newest}, version)
