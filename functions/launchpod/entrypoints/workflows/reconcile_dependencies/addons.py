"""Addons: every add-on of the manifest created (with its pod identity) or moved to its pinned
version, then polled until all are ACTIVE."""

from __future__ import annotations

from launchpod.contracts.dependencies import ReconcileDependenciesInput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import dependencies
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

PHASE = "Addons"
BROKEN = {"CREATE_FAILED", "DEGRADED", "UPDATE_FAILED"}


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


def _pod_identity_role(cluster: str, entry: dependencies.AddonEntry, tags: dict[str, str]) -> tuple[str, str]:
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
    for entry in wanted:
        found = present.get(entry.name)
        if found is None:
            identity = _pod_identity_role(doc.target, entry, tags) if entry.podIdentity else None
            eks.create_addon(doc.target, entry.name, tags, entry.version, identity)
            present[entry.name] = {"status": "CREATING", "addonVersion": entry.version}
        elif found.get("addonVersion") != entry.version and found.get("status") == "ACTIVE":
            eks.update_addon(doc.target, entry.name, entry.version)
            present[entry.name] = {**found, "status": "UPDATING"}
    statuses = {e.name: present[e.name].get("status") for e in wanted}
    broken = {n: s for n, s in statuses.items() if s in BROKEN}
    if broken:
        raise PermanentError(
            "Add-ons failed: "
            + ", ".join(f"{n} is {s}" for n, s in broken.items())
            + ". Check their health issues in EKS, then retry."
        )
    waiting = sorted(n for n, s in statuses.items() if s != "ACTIVE")
    if waiting:
        if doc.poll.get(PHASE, 0) >= dependencies.MAX_POLLS:
            raise PermanentError(f"Add-ons {', '.join(waiting)} did not become ACTIVE in 20 minutes; retry.")
        return PhaseResult(
            ready=False,
            wait=dependencies.POLL_SECONDS,
            message="Waiting for " + ", ".join(f"{n} ({statuses[n]})" for n in waiting),
        )
    versions = {e.name: e.version for e in wanted}
    return PhaseResult(
        outputs={"addons": versions}, message=", ".join(f"{n} {v}" for n, v in versions.items()) + " ACTIVE."
    )


handler = phase(PHASE)(run)
