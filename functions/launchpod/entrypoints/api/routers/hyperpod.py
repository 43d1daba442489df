"""The HyperPod cluster of a Launchpod cluster: create it on an ACTIVE control plane."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.adapters.k8s import apply as k8s
from launchpod.contracts.clusters import ProvisionClusterRequest
from launchpod.contracts.common import ClusterName
from launchpod.contracts.hyperpod import (
    CreateHyperPodInput,
    CreateHyperPodRequest,
    UpdateSoftwareInput,
    UpdateSoftwareRequest,
)
from launchpod.contracts.operations import NoopView, OperationAcceptedView, OperationView
from launchpod.contracts.plans import PlanView
from launchpod.domain import operations as ops
from launchpod.domain import storage
from launchpod.domain.clusters import control_plane, hyperpod, plans, provision, software
from launchpod.domain.clusters.views import owned_by_launchpod
from launchpod.domain.errors import Conflict, NotFound
from launchpod.entrypoints.api.routing import planned, route
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases import hyperpod as hyperpod_cases
from launchpod.usecases import provisioning

router = APIGatewayRouter()


def _volume_and_claim(cluster: str, storage_name: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """A storage Launchpod configured, and its claim; (None, None) when there is none."""
    volume = k8s.read(cluster, {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": storage_name}})
    if not storage.managed(volume):
        return None, None
    assert volume is not None
    ref = (volume.get("spec") or {}).get("claimRef") or {}
    claim = k8s.read(cluster, storage.claim(ref["name"], ref.get("namespace", "default"), "")) if ref else None
    return volume, claim


def hyperpod_zone(cluster: dict[str, Any] | None) -> str | None:
    """The zone of the HyperPod cluster's compute subnet."""
    ids = list(((cluster or {}).get("VpcConfig") or {}).get("Subnets") or [])
    found = wiring.ec2().subnets(ids) if ids else []
    return found[0]["AvailabilityZone"] if found else None


@route(router, "provision_cluster")
def provision_cluster(
    request: ProvisionClusterRequest, dryRun: Annotated[bool, Query()] = False
) -> Response[OperationAcceptedView | NoopView | PlanView]:
    who: ops.Principal = router.context["principal"]
    zones = [z["name"] for z in wiring.ec2().zones()]
    control_plane.check_zones(request, zones, settings().region)
    hyperpod_request = CreateHyperPodInput(name=request.name, **request.hyperpod.model_dump())
    hyperpod_cases.check_offered(hyperpod_request, zones, "body.hyperpod")
    hyperpod_cases.check_quotas(hyperpod_request)
    existing = wiring.eks().cluster(request.name)
    if existing is not None and not owned_by_launchpod(existing, request.name, settings().resource_prefix):
        raise Conflict(
            f"An EKS cluster named {request.name} already exists and Launchpod did not create it; "
            "import it (POST /api/clusters/import) or choose another name."
        )
    hp = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(request.name))
    volume, claim = (
        _volume_and_claim(request.name, request.storage.storageName)
        if request.storage is not None and existing is not None and existing.get("status") == "ACTIVE"
        else (None, None)
    )
    zones_now = provisioning.subnet_zones(existing, ec2=wiring.ec2())
    found = plans.provision_plan(request, existing, zones_now, hp, hyperpod_zone(hp), volume, claim)

    def start() -> OperationView:
        workflow = replace(provision.plan(request), steps=found.views())
        operation, _ = ops.submit(wiring.operations(), wiring.workflows(), workflow, who)
        wiring.clusters().register(request.name, source="created", region=settings().region)
        return operation

    return planned(found, dryRun, start, noop=f"Cluster {request.name} is already provisioned as asked; no changes.")


@route(router, "create_hyperpod")
def create_hyperpod(
    name: Annotated[ClusterName, Path()], request: CreateHyperPodRequest, dryRun: Annotated[bool, Query()] = False
) -> Response[OperationAcceptedView | NoopView | PlanView]:
    who: ops.Principal = router.context["principal"]
    full = CreateHyperPodInput(name=name, **request.model_dump())
    hyperpod_cases.check_hyperpod(full)
    existing = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name))
    found = plans.hyperpod_plan(name, request, existing, hyperpod_zone(existing))

    def start() -> OperationView:
        workflow = replace(hyperpod.plan(full), steps=found.views())
        operation, _ = ops.submit(wiring.operations(), wiring.workflows(), workflow, who)
        return operation

    return planned(found, dryRun, start, noop=f"HyperPod cluster {name} is already InService as asked; no changes.")


@route(router, "update_software")
def update_software(
    name: Annotated[ClusterName, Path()],
    body: Annotated[UpdateSoftwareRequest | None, Body()] = None,
    dryRun: Annotated[bool, Query()] = False,
) -> Response[OperationAcceptedView | PlanView]:
    request = UpdateSoftwareInput(name=name, **(body.model_dump() if body else {}))
    existing = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name))
    if existing is None:
        raise NotFound(f"{name} has no HyperPod cluster; create it with POST /api/clusters/{name}/hyperpod.")
    if existing["ClusterStatus"] not in ("InService", "SystemUpdating"):
        raise Conflict(f"The HyperPod cluster {name} is {existing['ClusterStatus']}; update it once it is InService.")
    groups = [g["InstanceGroupName"] for g in existing.get("InstanceGroups", [])]
    found = plans.software_plan(name, request, groups)

    def start() -> OperationView:
        workflow = replace(software.plan(request), steps=found.views())
        operation, _ = ops.submit(wiring.operations(), wiring.workflows(), workflow, router.context["principal"])
        return operation

    return planned(found, dryRun, start)
