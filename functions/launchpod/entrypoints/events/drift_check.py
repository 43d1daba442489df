"""Scheduled drift check: for every registered cluster whose EKS control plane is ACTIVE, compare
its add-ons with the pinned dependency manifest and record what drifted on the cluster: an add-on at
another version than its pin, or whose pin EKS does not offer for the cluster's Kubernetes version."""

from __future__ import annotations

from typing import Any

from launchpod.domain import dependencies
from launchpod.domain.errors import LaunchpodError
from launchpod.entrypoints.observability import logger
from launchpod.runtime import wiring


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    results: dict[str, list[str]] = {}
    for record in wiring.clusters().list():
        name = record["name"]
        try:
            eks = wiring.eks().cluster(name)
            if not eks or eks.get("status") != "ACTIVE":
                continue
            kubernetes = eks.get("version")
            offered = dependencies.offered_addons(kubernetes, wiring.eks().addon_versions)
            rows = dependencies.status(wiring.eks().addons(name), {}, offered, kubernetes)
        except LaunchpodError as exc:  # one unreachable cluster must not stop the others
            logger.warning("drift check skipped a cluster", extra={"cluster": name, "error": exc.message})
            continue
        drifted = [r["name"] for r in rows if r["kind"] == "addon" and r["drift"]]
        wiring.clusters().register(name, source=record["source"], region=record["region"], drift=drifted)
        results[name] = drifted
    return {"checked": len(results), "drifted": {k: v for k, v in results.items() if v}}
