"""The incidents table in memory: the IncidentDocs port (adapters.store.incidents.DynamoIncidents)."""

from __future__ import annotations

import json
from typing import Any, cast

from launchpod.adapters.store.incidents import KEEP
from launchpod.domain.nodes.ladder import IncidentsDocument


class IncidentDocs:
    """The incidents table: one JSON document per cluster with its version; the next ``contended`` writes
    lose to a concurrent writer (each bumps the version as that writer's would). A write keeps the newest
    ``KEEP`` incidents, newest first, as the adapter does."""

    def __init__(self, docs: dict[str, dict[str, Any]] | None = None, contended: int = 0) -> None:
        self.docs = {k: (v, 1) for k, v in (docs or {}).items()}
        self.contended, self.writes = contended, 0

    def get(self, cluster: str) -> tuple[IncidentsDocument, int]:
        doc, version = self.docs.get(cluster, ({"policy": None, "incidents": []}, 0))
        return cast(IncidentsDocument, json.loads(json.dumps(doc))), version

    def put(self, cluster: str, doc: IncidentsDocument, version: int) -> bool:
        current = self.docs.get(cluster, ({}, 0))
        if self.contended:
            self.contended -= 1
            self.docs[cluster] = (current[0], current[1] + 1)
            return False
        if current[1] != version:
            return False
        self.writes += 1
        newest = sorted(doc["incidents"], key=lambda i: i["openedAt"], reverse=True)[:KEEP]
        self.docs[cluster] = ({**doc, "incidents": newest}, version + 1)
        return True
