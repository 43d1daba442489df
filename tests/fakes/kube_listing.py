"""A cluster's lists and logs in memory: the KubeListing port (adapters.k8s.listing: every object of a kind,
a container's log) and the KubeLister / PodLogs ports it serves as.

Held to the adapter on the sandbox's emulated API server by tests/ports/test_kube_listing.py."""

from __future__ import annotations

import copy
from typing import Any

from launchpod.adapters.k8s import listing
from launchpod.domain.errors import LaunchpodError

LISTED_KINDS = frozenset(listing._PATHS)  # the kinds the adapter can list; any other is a KeyError there too


class KubeLists:
    """Objects by kind (every namespace); logs by "pod/container" or by pod. ``error`` (the API cannot be
    reached) is raised by every list; ``logs_read`` is the pod of each log read."""

    def __init__(
        self,
        objects: dict[str, list[dict[str, Any]]] | None = None,
        error: LaunchpodError | None = None,
        logs: dict[str, str] | None = None,
    ) -> None:
        self.objects = objects if objects is not None else {}
        self.error, self.logs = error, logs or {}
        self.logs_read: list[str] = []

    def items(self, cluster: str, kind: str) -> list[dict[str, Any]]:
        if kind not in LISTED_KINDS:
            raise KeyError(kind)
        if self.error is not None:
            raise self.error
        return copy.deepcopy(self.objects.get(kind, []))

    __call__ = items

    def pod_log(self, cluster: str, namespace: str, pod: str, container: str, tail: int = 500) -> str:
        """The last ``tail`` lines; "" when the pod has no log (or does not exist)."""
        self.logs_read.append(pod)
        text = self.logs.get(f"{pod}/{container}", self.logs.get(pod, ""))
        return "".join(text.splitlines(keepends=True)[-tail:])
