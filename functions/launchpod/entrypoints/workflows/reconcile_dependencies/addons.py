"""Addons: every add-on of the manifest created (with its pod identity) or moved up to its version for the
cluster's Kubernetes version (the pin when DescribeAddonVersions offers it, else EKS's default), then polled
until each is ACTIVE or only waits for nodes: cert-manager, metrics-server and the CSI controllers are
Deployments, DEGRADED (InsufficientNumberOfReplicas) until HyperPod's nodes join, which happens after this
workflow when provision-cluster runs it (launchpod.domain.addons)."""

from __future__ import annotations

from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import addons, dependencies
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

PHASE = "Addons"


def _policy(access: str, bucket: str) -> dict[str, object]:
    if access == "shared-bucket-read-write":
        return {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": f"arn:aws:s3:::{bucket}"},
                {
                    "Effect": "Allow",
                    "Action": ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:DeleteObject"],
                    "Resource": f"arn:aws:s3:::{bucket}/*",
                },
            ],
        }
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": ["fsx:DescribeFileSystems", "fsx:DescribeVolumes"], "Resource": "*"}
        ],
    }


def pod_identity_role(cluster: str, entry: dependencies.AddonEntry, tags: dict[str, str]) -> tuple[str, str]:
    """The dependency add-on's pod identity role (made once, its policy set again): (service account, ARN)."""
    assert entry.podIdentity is not None
    s = settings()
    name = control_plane.resource_name(s.resource_prefix, cluster, entry.name.removeprefix("aws-"))
    iam = wiring.iam()
    arn = iam.ensure_role(name, "pods.eks.amazonaws.com", [], tags, f"{entry.name} on {cluster}, created by Launchpod")
    iam.put_inline_policy(name, "launchpod-addon", _policy(entry.podIdentity.access, s.bucket))
    return entry.podIdentity.serviceAccount, arn


def run(doc: WorkflowInput) -> PhaseResult:
    request = ReconcileDependenciesInput.model_validate(doc.request)
    eks, tags = wiring.eks(), control_plane.tags(doc.target, settings().resource_prefix)
    wanted = dependencies.wanted_addons(request.includeOptional)
    present = eks.addons(doc.target)
    kubernetes = str((eks.cluster(doc.target) or {}).get("version") or "")
    for entry in wanted:
        version = dependencies.wanted_version(
            entry.name, entry.version, eks.addon_versions(entry.name, kubernetes), kubernetes
        )
        found = present.get(entry.name)
        if found is None:
            identity = pod_identity_role(doc.target, entry, tags) if entry.podIdentity else None
            eks.create_addon(doc.target, entry.name, tags, version, identity)
            present[entry.name] = {"status": "CREATING", "addonVersion": version}
        elif (
            found.get("addonVersion") != version
            and addons.settled(found)
            and not addons.is_downgrade(found.get("addonVersion") or "", version)
        ):
            eks.update_addon(doc.target, entry.name, version)
            present[entry.name] = {**found, "status": "UPDATING"}
    states = {e.name: present[e.name] for e in wanted}
    broken = [addons.problem(n, a) for n, a in states.items() if addons.broken(a)]
    if broken:
        raise PermanentError(f"Add-ons failed: {'; '.join(broken)}. Fix the cause shown, then retry.")
    waiting = sorted(n for n, a in states.items() if not addons.settled(a))
    if waiting:
        if doc.poll.get(PHASE, 0) >= dependencies.MAX_POLLS:
            raise PermanentError(f"Add-ons {', '.join(waiting)} did not become ACTIVE in 20 minutes; retry.")
        return PhaseResult(
            ready=False,
            wait=dependencies.POLL_SECONDS,
            message="Waiting for " + ", ".join(f"{n} ({states[n].get('status')})" for n in waiting),
        )
    versions = {n: a.get("addonVersion") for n, a in states.items()}
    active = [f"{n} {versions[n]}" for n, a in states.items() if a.get("status") == "ACTIVE"]
    for_nodes = [n for n, a in states.items() if addons.waits_for_nodes(a)]
    parts = [", ".join(active) + " ACTIVE."] if active else []
    parts += [addons.waiting_note(n, versions[n]) + "." for n in for_nodes]
    return PhaseResult(outputs={"addons": versions, "waitingForNodes": for_nodes}, message=" ".join(parts))


handler = phase(PHASE)(run)
