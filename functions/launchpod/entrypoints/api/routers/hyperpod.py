"""The HyperPod cluster of a Launchpod cluster: create it on an ACTIVE control plane."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
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
from launchpod.domain import operations as ops
from launchpod.domain import storage
from launchpod.domain.clusters import control_plane, hyperpod, provision, software
from launchpod.domain.clusters.instance_types import to_ec2, to_sagemaker
from launchpod.domain.clusters.views import owned_by_launchpod
from launchpod.domain.errors import Conflict, InvalidInput, NotFound
from launchpod.entrypoints.api.routing import json_response, route
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

router = APIGatewayRouter()


def check_offered(request: CreateHyperPodInput, zones: list[str], at: str = "body") -> None:
    """The zone exists and offers every instance type asked for (422 naming the field otherwise)."""
    if request.availabilityZone not in zones:
        raise InvalidInput(
            f"{request.availabilityZone} is not an availability zone in {settings().region}; "
            f"choose from {', '.join(zones)}.",
            field=f"{at}.availabilityZone",
            rule="offered_zone",
        )
    types = sorted({g.instanceType for g in request.instanceGroups})
    offered = {to_sagemaker(k): v for k, v in wiring.ec2().offerings([to_ec2(t) for t in types]).items()}
    hyperpod.check_instance_types(request, {t: offered.get(t, []) for t in types}, at)


def _has_storage(request: ProvisionClusterRequest) -> bool:
    """The storage asked for (if any) is already there, so provisioning again would change nothing."""
    if request.storage is None:
        return True
    volume = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": request.storage.storageName}}
    return storage.managed(k8s.read(request.name, volume))


@route(router, "provision_cluster")
def provision_cluster(request: ProvisionClusterRequest) -> Response[OperationAcceptedView | NoopView]:
    who: ops.Principal = router.context["principal"]
    zones = [z["name"] for z in wiring.ec2().zones()]
    control_plane.check_zones(request, zones, settings().region)
    check_offered(CreateHyperPodInput(name=request.name, **request.hyperpod.model_dump()), zones, "body.hyperpod")
    existing = wiring.eks().cluster(request.name)
    if existing is not None and not owned_by_launchpod(existing, request.name, settings().resource_prefix):
        raise Conflict(
            f"An EKS cluster named {request.name} already exists and Launchpod did not create it; "
            "import it (POST /api/clusters/import) or choose another name."
        )
    hp = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(request.name))
    if hp is not None and hp.get("ClusterStatus") == "InService" and _has_storage(request):
        return json_response(NoopView(message=f"Cluster {request.name} is already provisioned; no changes."))
    operation, _ = ops.submit(wiring.operations(), wiring.workflows(), provision.plan(request), who)
    wiring.clusters().register(request.name, source="created", region=settings().region)
    accepted = OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl)
    return json_response(accepted, 202, {"Location": accepted.statusUrl})


def check_hyperpod(request: CreateHyperPodInput) -> None:
    """The zone offers the instance types, and the EKS control plane is ACTIVE."""
    check_offered(request, [z["name"] for z in wiring.ec2().zones()])
    eks = wiring.eks().cluster(request.name)
    if eks is None or eks.get("status") != "ACTIVE":
        state = eks.get("status") if eks else "not created"
        raise Conflict(
            f"The EKS control plane of {request.name} is {state}; create it with POST /api/clusters and wait for"
            " SUCCEEDED."
        )


def submit_hyperpod(request: CreateHyperPodInput, who: ops.Principal) -> OperationView:
    operation, _ = ops.submit(wiring.operations(), wiring.workflows(), hyperpod.plan(request), who)
    return operation


def start_hyperpod(request: CreateHyperPodInput, who: ops.Principal) -> OperationView:
    """create-hyperpod whatever HyperPod's state: each of its phases skips what is already done."""
    check_hyperpod(request)
    return submit_hyperpod(request, who)


@route(router, "create_hyperpod")
def create_hyperpod(
    name: Annotated[ClusterName, Path()], request: CreateHyperPodRequest
) -> Response[OperationAcceptedView | NoopView]:
    who: ops.Principal = router.context["principal"]
    full = CreateHyperPodInput(name=name, **request.model_dump())
    check_hyperpod(full)
    existing = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name))
    if existing is not None and existing.get("ClusterStatus") == "InService":
        return json_response(NoopView(message=f"HyperPod cluster {name} is already InService; no changes."))
    operation = submit_hyperpod(full, who)
    accepted = OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl)
    return json_response(accepted, 202, {"Location": accepted.statusUrl})


@route(router, "update_software")
def update_software(
    name: Annotated[ClusterName, Path()], body: Annotated[UpdateSoftwareRequest | None, Body()] = None
) -> Response[OperationAcceptedView]:
    request = UpdateSoftwareInput(name=name, **(body.model_dump() if body else {}))
    existing = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(name))
    if existing is None:
        raise NotFound(f"{name} has no HyperPod cluster; create it with POST /api/clusters/{name}/hyperpod.")
    if existing["ClusterStatus"] not in ("InService", "SystemUpdating"):
        raise Conflict(f"The HyperPod cluster {name} is {existing['ClusterStatus']}; update it once it is InService.")
    operation, _ = ops.submit(
        wiring.operations(), wiring.workflows(), software.plan(request), router.context["principal"]
    )
    return json_response(OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl), 202)
