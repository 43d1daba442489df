"""A cluster's Kubernetes API read in memory: the KubeReads port (adapters.k8s.reads)."""

from __future__ import annotations

from launchpod.domain.errors import RetryableError


class KubeReads:
    """The API server's version (GET /version's gitVersion; None: it has not reported one yet) and its namespaces
    by name; ``asked`` is the clusters read."""

    def __init__(self, version: str | None = "v1.31.0", namespaces: list[str] | None = None) -> None:
        self.version, self.asked = version, list[str]()
        self.namespaces = (
            namespaces if namespaces is not None else ["default", "kube-node-lease", "kube-public", "kube-system"]
        )

    def server_version_and_namespaces(self, cluster: str) -> tuple[str, list[str]]:
        self.asked.append(cluster)
        if not self.version:
            raise RetryableError(f"The Kubernetes API of {cluster} did not report its version yet.")
        return self.version, list(self.namespaces)
