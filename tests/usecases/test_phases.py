"""A provisioning phase run again with the settings its last run recorded: 404 for an unknown cluster, 409
when nothing was recorded, and the same checks as the phase's own route."""

from __future__ import annotations

import pytest
from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.operations import OperationStatus
from launchpod.domain import dependencies
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import Conflict, NotFound
from launchpod.usecases import hyperpod, phases, provisioning, storage

from tests.fakes.clusters import Clusters
from tests.fakes.ec2 import Ec2
from tests.fakes.eks import Eks
from tests.fakes.kube import Kube
from tests.fakes.operations import Operations, Workflows
from tests.fakes.s3 import S3
from tests.fakes.sagemaker import SageMaker
from tests.fakes.service_quotas import ServiceQuotas

ADMIN = ops.Principal("alice", Role.ADMIN)
ACTIVE = {"name": "train", "status": "ACTIVE", "tags": {"launchpod:cluster": "train"}}


def _ports(records: dict[str, dict[str, str]], eks_status: str | None = "ACTIVE") -> phases.PhasePorts:
    table, runs = Operations(), Workflows()
    registry = Clusters(records, operations=table)  # one table: the locks show on the records
    eks = Eks({"train": {**ACTIVE, "status": eks_status}} if eks_status else {})
    ec2 = Ec2(["us-east-1a", "us-east-1b"])
    kube = Kube()
    building = provisioning.ProvisioningPorts(
        region="us-east-1",
        prefix="launchpod",
        clusters=registry,
        operations=table,
        workflows=runs,
        eks=eks,
        ec2=ec2,
        read=Kube(),
    )
    return phases.PhasePorts(
        clusters=registry,
        eks=eks,
        operations=table,
        provisioning=building,
        # the HyperPod ports are the provisioning ports plus SageMaker's clusters and quotas, as hyperpod.real()
        hyperpod=hyperpod.HyperPodPorts(**vars(building), sagemaker=SageMaker({}), quotas=ServiceQuotas({})),
        storage=storage.StoragePorts(
            operations=table,
            workflows=runs,
            eks=eks,
            read=kube.read,
            delete=kube.delete,
            list_labelled=kube.list_labelled,
            s3_page=S3(),
        ),
    )


def test_a_cluster_nobody_knows_is_404() -> None:
    with pytest.raises(NotFound) as refused:
        phases.run_phase("train", "control-plane", ADMIN, ports=_ports({}, None))
    assert str(refused.value) == "Cluster train is not known to Launchpod and EKS has no cluster by that name."


def test_a_phase_that_never_ran_names_the_route_that_takes_its_settings() -> None:
    with pytest.raises(Conflict) as refused:
        phases.run_phase("train", "storage", ADMIN, ports=_ports({"train": {}}))
    assert str(refused.value).startswith("No settings are recorded for the storage phase of train")


def test_the_control_plane_runs_again_with_its_recorded_settings() -> None:
    ports = _ports({"train": {}})
    asked = CreateClusterRequest(name="train", availabilityZones=["us-east-1a", "us-east-1b"])
    first, _ = ops.submit(ports.operations, ports.provisioning.workflows, control_plane.plan(asked), ADMIN)
    ports.operations.finish(first.id, OperationStatus.SUCCEEDED, error=None, message=None)  # type: ignore[attr-defined]
    again = phases.run_phase("train", "control-plane", ADMIN, ports=ports)
    assert again.id != first.id and again.kind == first.kind
    assert again.request["availabilityZones"] == ["us-east-1a", "us-east-1b"]


def test_a_recorded_phase_still_meets_its_routes_checks() -> None:
    ports = _ports({"train": {}}, "CREATING")
    first, _ = ops.submit(ports.operations, ports.provisioning.workflows, dependencies.plan("train", False), ADMIN)
    ports.operations.finish(first.id, OperationStatus.FAILED, error="x", message=None)  # type: ignore[attr-defined]
    with pytest.raises(Conflict) as refused:
        phases.run_phase("train", "dependencies", ADMIN, ports=ports)
    assert str(refused.value) == "The EKS control plane of train is CREATING; dependencies need an ACTIVE cluster."
