"""Development environments (HyperPod Spaces) on a cluster: create (server-side apply of a Workspace,
checked against the cluster first), list, read, stop or start, and delete. Each write is applied at once:
the amazon-sagemaker-spaces add-on's operator starts or stops the Space, and ``get`` follows it. A dry
run makes every check and answers the plan. The ports are only the calls made, so unit tests pass
in-memory fakes; ``real()`` builds the deployed adapters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.spaces import (
    CreateSpaceInput,
    DeleteSpaceView,
    SpaceListView,
    SpaceView,
    UpdateSpaceInput,
)
from launchpod.domain import spaces
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import Conflict, InvalidInput, NotFound, next_step
from launchpod.domain.plan import Plan, Step
from launchpod.usecases import provisioning, storage
from launchpod.usecases.ports import ControlPlanes, HyperPodReader, KubeObjects
from launchpod.usecases.proposal import at_once

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": spaces.CRD_NAME},
}


@dataclass(frozen=True)
class SpacePorts:
    eks: ControlPlanes
    sagemaker: HyperPodReader
    kube: KubeObjects


def real() -> SpacePorts:
    """The deployed adapters (runtime.wiring)."""
    from launchpod.runtime import wiring

    return SpacePorts(eks=wiring.eks(), sagemaker=wiring.sagemaker(), kube=wiring.kube())


def _require_addon(name: str, ports: SpacePorts) -> None:
    """409 unless the cluster is ACTIVE and serves Workspaces (the add-on installs their CRD)."""
    provisioning.require_active(name, "Spaces need", eks_clusters=ports.eks)
    if ports.kube.read(name, CRD) is None:
        raise Conflict(
            f"{name} has no HyperPod Spaces add-on ({spaces.ADDON}); install the cluster's dependencies with the"
            " optional ones, then try again.",
            details=[next_step(f'POST /api/clusters/{name}/dependencies {{"includeOptional": true}}')],
        )


def _find(name: str, space: str, namespace: str, ports: SpacePorts) -> dict[str, Any]:
    found = ports.kube.read(name, spaces.ref(space, namespace))
    if found is None:
        raise NotFound(f"{name} has no Space {space} in namespace {namespace}; list its Spaces for the names it has.")
    return found


def _check_group(request: CreateSpaceInput, ports: SpacePorts) -> None:
    cluster = ports.sagemaker.hyperpod_cluster(hyperpod.hyperpod_name(request.name))
    groups = {g.name for g in cluster.instance_groups} if cluster is not None else set()
    if request.instanceGroup not in groups:
        have = ", ".join(sorted(groups)) or "none yet"
        raise InvalidInput(
            f"{request.name} has no instance group {request.instanceGroup}; its groups: {have}.",
            field="body.instanceGroup",
            rule="existing_group",
        )


def create(
    request: CreateSpaceInput, owner: str, dry_run: bool = False, *, ports: SpacePorts
) -> SpaceView | NoopView | PlanView:
    """Check the add-on, the instance group, a free name and the claim, then apply the Workspace."""
    name = request.name
    _require_addon(name, ports)
    if request.instanceGroup is not None:
        _check_group(request, ports)
    if ports.kube.read(name, spaces.ref(request.spaceName, request.namespace)) is not None:
        raise Conflict(
            f"A Space {request.spaceName} already exists in {request.namespace} on {name}; choose another"
            " spaceName, or start that one.",
            details=[{"field": "body.spaceName", "rule": "unique", "message": request.spaceName}],
        )
    storage.require_claim(name, request.namespace, request.storageClaim, read=ports.kube.read)
    made = spaces.workspace(request, owner)
    where = f" with the shared bucket at {spaces.MOUNT}" if request.storageClaim else ""
    kind = f"{request.gpus}-GPU" if request.gpus else "CPU"
    plan = Plan(
        target=f"{name}/{request.namespace}/{request.spaceName}",
        steps=(
            Step(
                "create",
                f"Workspace {request.namespace}/{request.spaceName}",
                f"a {kind} {request.ide} Space for {owner}{where}; the Spaces operator starts its pod",
            ),
        ),
    )

    def apply() -> SpaceView:
        ports.kube.apply(name, made)
        return spaces.view(name, _find(name, request.spaceName, request.namespace, ports))

    return at_once(plan, dry_run, "", apply)


def list_spaces(name: str, namespace: str | None, *, ports: SpacePorts) -> SpaceListView:
    _require_addon(name, ports)
    items = (ports.kube.get(name, spaces.list_path(namespace)) or {}).get("items") or []
    views = [spaces.view(name, w) for w in items]
    return SpaceListView(cluster=name, items=sorted(views, key=lambda s: (s.namespace, s.spaceName)))


def get(name: str, space: str, namespace: str, *, ports: SpacePorts) -> SpaceView:
    _require_addon(name, ports)
    return spaces.view(name, _find(name, space, namespace, ports))


def update(request: UpdateSpaceInput, dry_run: bool = False, *, ports: SpacePorts) -> SpaceView | NoopView | PlanView:
    """Stop or start the Space (its desiredStatus); the same status again is NOOP."""
    name = request.name
    _require_addon(name, ports)
    found = _find(name, request.spaceName, request.namespace, ports)
    current = (found.get("spec") or {}).get("desiredStatus") or "Running"
    steps: tuple[Step, ...] = ()
    if current != request.desiredStatus:
        why = (
            "its pod is removed and its node resources freed; the home and /data stay"
            if request.desiredStatus == "Stopped"
            else "the Spaces operator starts its pod again"
        )
        steps = (
            Step(
                "update",
                f"Workspace {request.namespace}/{request.spaceName}",
                f"desiredStatus {current} -> {request.desiredStatus}: {why}",
            ),
        )
    plan = Plan(target=f"{name}/{request.namespace}/{request.spaceName}", steps=steps)

    def apply() -> SpaceView:
        ports.kube.apply(name, spaces.with_desired_status(found, request.desiredStatus))
        return spaces.view(name, _find(name, request.spaceName, request.namespace, ports))

    return at_once(plan, dry_run, f"The Space {request.spaceName} is already {request.desiredStatus}.", apply)


def delete(
    name: str, space: str, namespace: str, confirm: str, dry_run: bool = False, *, ports: SpacePorts
) -> DeleteSpaceView | PlanView:
    """Delete the Space once ``confirm`` repeats its name; one that is not there is 404, a dry run included."""
    if confirm != space:
        raise InvalidInput(
            f"Type the Space's name, {space}, as confirm to delete it; its pod is stopped and its home removed.",
            field="query.confirm",
            rule="confirm_matches_name",
        )
    _require_addon(name, ports)
    found = _find(name, space, namespace, ports)
    if dry_run:
        step = Step("delete", f"Workspace {namespace}/{space}", "its pod, service and home; /data is kept")
        plan = Plan(target=f"{name}/{namespace}/{space}", steps=(step,))
        return PlanView(target=plan.target, steps=plan.views())
    return DeleteSpaceView(cluster=name, spaceName=space, namespace=namespace, deleted=ports.kube.delete(name, found))
