"""The reconcile-dependencies workflow's phases: EKS add-ons and Kubernetes manifests from the pinned
manifest, in parallel; and the pod identity roles the add-ons and the AWS Load Balancer Controller run as."""

from __future__ import annotations

import dataclasses
import datetime

from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import addons as addon_health
from launchpod.domain import dependencies
from launchpod.domain.clusters import control_plane
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.clusters.instance_types import DevicePlacement
from launchpod.domain.dependencies import lbc, lbc_tls, objects
from launchpod.domain.errors import PermanentError
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows.phase import PhaseResult

ADDONS = "Addons"
MANIFESTS = "Manifests"


def pod_identity_role(cluster: str, entry: dependencies.AddonEntry, tags: dict[str, str]) -> tuple[str, str]:
    """The dependency add-on's pod identity role (made once, its policy set again): (service account, ARN)."""
    assert entry.podIdentity is not None
    s = settings()
    name = control_plane.resource_name(s.resource_prefix, cluster, entry.name.removeprefix("aws-"))
    iam = wiring.iam()
    arn = iam.ensure_role(name, "pods.eks.amazonaws.com", [], tags, f"{entry.name} on {cluster}, created by Launchpod")
    iam.put_inline_policy(name, "launchpod-addon", dependencies.pod_identity_policy(entry.podIdentity.access, s.bucket))
    return entry.podIdentity.serviceAccount, arn


def addons(doc: WorkflowInput) -> PhaseResult:
    """Addons: every add-on of the manifest created (with its pod identity) or moved up to its version for the
    cluster's Kubernetes version (the pin when DescribeAddonVersions offers it, else EKS's default), then polled
    until each is ACTIVE or only waits for nodes: cert-manager, metrics-server and the CSI controllers are
    Deployments, DEGRADED (InsufficientNumberOfReplicas) until HyperPod's nodes join, which happens after this
    workflow when provision-cluster runs it (launchpod.domain.addons)."""
    request = ReconcileDependenciesInput.model_validate(doc.request)
    eks, tags = wiring.eks(), control_plane.tags(doc.target, settings().resource_prefix)
    wanted = dependencies.wanted_addons(request.includeOptional)
    present = eks.addons(doc.target)
    found_cluster = eks.cluster(doc.target)
    kubernetes = str((found_cluster.version if found_cluster else None) or "")
    for entry in wanted:
        version = dependencies.wanted_version(
            entry.name, entry.version, eks.addon_versions(entry.name, kubernetes), kubernetes
        )
        found = present.get(entry.name)
        if found is None:
            identity = pod_identity_role(doc.target, entry, tags) if entry.podIdentity else None
            eks.create_addon(doc.target, entry.name, tags, version, identity)
            present[entry.name] = EksAddon(name=entry.name, status="CREATING", version=version)
        elif (
            found.version != version
            and addon_health.settled(found)
            and not addon_health.is_downgrade(found.version or "", version)
        ):
            eks.update_addon(doc.target, entry.name, version)
            present[entry.name] = dataclasses.replace(found, status="UPDATING")
    states = {e.name: present[e.name] for e in wanted}
    broken = [addon_health.problem(n, a) for n, a in states.items() if addon_health.broken(a)]
    if broken:
        raise PermanentError(f"Add-ons failed: {'; '.join(broken)}. Fix the cause shown, then retry.")
    waiting = sorted(n for n, a in states.items() if not addon_health.settled(a))
    if waiting:
        if doc.poll.get(ADDONS, 0) >= dependencies.MAX_POLLS:
            raise PermanentError(f"Add-ons {', '.join(waiting)} did not become ACTIVE in 20 minutes; retry.")
        return PhaseResult(
            ready=False,
            wait=dependencies.POLL_SECONDS,
            message="Waiting for " + ", ".join(f"{n} ({states[n].status})" for n in waiting),
        )
    versions = {n: a.version for n, a in states.items()}
    active = [f"{n} {versions[n]}" for n, a in states.items() if a.status == "ACTIVE"]
    for_nodes = [n for n, a in states.items() if addon_health.waits_for_nodes(a)]
    parts = [", ".join(active) + " ACTIVE."] if active else []
    parts += [addon_health.waiting_note(n, versions[n]) + "." for n in for_nodes]
    return PhaseResult(outputs={"addons": versions, "waitingForNodes": for_nodes}, message=" ".join(parts))


def lbc_vpc_id(cluster: str) -> str:
    """The cluster's VPC, which the AWS Load Balancer Controller's Deployment names."""
    found = wiring.eks().cluster(cluster)
    vpc = str((found.vpc_id if found else None) or "")
    if not vpc:
        raise PermanentError(f"EKS reports no VPC for {cluster}; the load balancer controller needs it. Retry.")
    return vpc


def ensure_lbc_identity(cluster: str) -> str:
    """The AWS Load Balancer Controller's role (created once, its policy kept at upstream's), associated with
    its service account through EKS Pod Identity; returns the role's ARN."""
    s = settings()
    tags = control_plane.tags(cluster, s.resource_prefix)
    name = control_plane.resource_name(s.resource_prefix, cluster, "lb-controller")
    iam = wiring.iam()
    arn = iam.ensure_role(name, "pods.eks.amazonaws.com", [], tags, f"{lbc.NAME} on {cluster}, created by Launchpod")
    iam.put_inline_policy(name, "launchpod-lb-controller", lbc.iam_policy())
    wiring.eks().ensure_pod_identity_association(cluster, lbc.NAMESPACE, lbc.NAME, arn, tags)
    return arn


def manifests(doc: WorkflowInput) -> PhaseResult:
    """Manifests: the health agent, device plugins, KubeRay operator and AWS Load Balancer Controller (its pod
    identity role first, its webhook serving certificate kept while valid) applied with server-side apply, then
    polled until each DaemonSet or Deployment is ready. A Deployment cannot be ready on a cluster with
    no nodes yet (its Pods stay Pending until HyperPod's instances join), so there it counts as applied and
    waiting for nodes, as EKS's own Deployment add-ons do."""
    request = ReconcileDependenciesInput.model_validate(doc.request)
    wanted = dependencies.wanted_manifests(request.includeOptional)
    first_pass = doc.poll.get(MANIFESTS, 0) == 0
    kube = wiring.kube()
    waiting, for_nodes = [], []
    no_nodes: bool | None = None
    placement = DevicePlacement()
    if first_pass and any(e.name in objects.DEVICE_PLUGINS for e in wanted):
        # Each plugin runs on every type HyperPod offers whose EC2 facts have its device.
        placement = DevicePlacement.of(wiring.instance_facts().all().values())
    for entry in wanted:
        vpc, tls = "", None
        if entry.name == lbc.NAME and first_pass:
            vpc = lbc_vpc_id(doc.target)
            ensure_lbc_identity(doc.target)
            tls = _webhook_tls(doc.target)
        built = objects.objects_for(entry.name, entry.version, wiring.region(), doc.target, vpc, tls, placement)
        if first_pass:
            for obj in built:
                kube.apply(doc.target, obj)
        workload = objects.workload_of(built)
        if kube.ready(kube.read(doc.target, workload)):
            continue
        if workload["kind"] == "Deployment":
            if no_nodes is None:
                no_nodes = not kube.list_labelled(doc.target, "v1", "Node", "")
            if no_nodes:
                for_nodes.append(entry.name)
                continue
        waiting.append(entry.name)
    if waiting:
        if doc.poll.get(MANIFESTS, 0) >= dependencies.MAX_POLLS:
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
    return lbc_tls.kept(wiring.kube().read(cluster, lbc_tls.secret_ref()), now) or lbc_tls.generate(now)
