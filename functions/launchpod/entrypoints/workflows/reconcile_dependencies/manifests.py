"""Manifests: the health agent, device plugins, KubeRay operator and AWS Load Balancer Controller (its pod
identity role first, its webhook serving certificate kept while valid) applied with server-side apply, then
polled until each DaemonSet or Deployment is ready. A Deployment cannot be ready on a cluster with
no nodes yet (its Pods stay Pending until HyperPod's instances join), so there it counts as applied and
waiting for nodes, as EKS's own Deployment add-ons do."""

from __future__ import annotations

import datetime

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import dependencies
from launchpod.domain.clusters.instance_types import DevicePlacement
from launchpod.domain.dependencies import lbc, lbc_tls, objects
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.entrypoints.workflows.reconcile_dependencies import lbc_identity
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

PHASE = "Manifests"


def run(doc: WorkflowInput) -> PhaseResult:
    request = ReconcileDependenciesInput.model_validate(doc.request)
    wanted = dependencies.wanted_manifests(request.includeOptional)
    first_pass = doc.poll.get(PHASE, 0) == 0
    waiting, for_nodes = [], []
    no_nodes: bool | None = None
    placement = DevicePlacement()
    if first_pass and any(e.name in objects.DEVICE_PLUGINS for e in wanted):
        # Each plugin runs on every type HyperPod offers whose EC2 facts have its device.
        placement = DevicePlacement.of(wiring.instance_facts().all().values())
    for entry in wanted:
        vpc, tls = "", None
        if entry.name == lbc.NAME and first_pass:
            vpc = lbc_identity.vpc_id(doc.target)
            lbc_identity.ensure(doc.target)
            tls = _webhook_tls(doc.target)
        built = objects.objects_for(entry.name, entry.version, settings().region, doc.target, vpc, tls, placement)
        if first_pass:
            for obj in built:
                k8s.apply(doc.target, obj)
        workload = objects.workload_of(built)
        if k8s.ready(k8s.read(doc.target, workload)):
            continue
        if workload["kind"] == "Deployment":
            if no_nodes is None:
                no_nodes = not k8s.list_labelled(doc.target, "v1", "Node", "")
            if no_nodes:
                for_nodes.append(entry.name)
                continue
        waiting.append(entry.name)
    if waiting:
        if doc.poll.get(PHASE, 0) >= dependencies.MAX_POLLS:
            raise PermanentError(
                f"{', '.join(waiting)} did not become ready in 20 minutes; check their pods, then retry."
            )
        return PhaseResult(ready=False, wait=dependencies.POLL_SECONDS, message="Waiting for " + ", ".join(waiting))
    versions = {e.name: e.version for e in wanted}
    ready = [f"{n} {v}" for n, v in versions.items() if n not in for_nodes]
    message = ", ".join(ready) + " ready."
    if for_nodes:
        message += " " + ", ".join(for_nodes) + " applied; waits for nodes (its pods run once HyperPod's nodes join)."
    return PhaseResult(outputs={"manifests": versions, "waitingForNodes": for_nodes}, message=message)


def _webhook_tls(cluster: str) -> lbc_tls.Tls:
    """The stored serving certificate while it is valid (re-applying it changes nothing), else a new one."""
    now = datetime.datetime.now(datetime.UTC)
    return lbc_tls.kept(k8s.read(cluster, lbc_tls.secret_ref()), now) or lbc_tls.generate(now)


handler = phase(PHASE)(run)
