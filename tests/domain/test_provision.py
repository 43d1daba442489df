"""provision-cluster's plan: one operation holding every child's phases, storage's only when asked for,
and a retry that resumes the child that failed."""

from __future__ import annotations

import pytest
from launchpod.contracts.clusters import ProvisionClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.operations import OperationStatus, PhaseStatus
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.domain import operations as ops
from launchpod.domain import storage
from launchpod.domain.clusters import provision
from pydantic import ValidationError

from tests.domain.test_operations import ADMIN
from tests.fakes.operations import Operations, Workflows
from tests.sandbox.clusters import P5_GROUP, cluster_body

BODY = cluster_body("c1", P5_GROUP)
S3 = {"kind": "s3", "storageName": "datasets", "prefix": "datasets/imagenet"}


def test_without_storage_the_operation_shows_control_plane_dependencies_and_hyperpod_only():
    plan = provision.plan(ProvisionClusterRequest.model_validate(BODY))
    assert [name for name, _ in plan.phases] == [name for name, _ in provision.PHASES]
    # the Deployment add-ons are awaited last, once HyperPod's nodes joined
    assert plan.phases[-1][0] == "AwaitAddons" and plan.phases[-2][0] == "WaitInService"
    assert "storage" not in plan.request and "StorageAccess" not in dict(plan.phases)


def test_storage_adds_its_phases_last_and_records_what_configure_storage_records_alone():
    plan = provision.plan(ProvisionClusterRequest.model_validate({**BODY, "storage": S3}))
    before_await = provision.PHASES[:-1]
    assert [n for n, _ in plan.phases[: len(before_await)]] == [n for n, _ in before_await]
    assert [name for name, _ in plan.phases[len(before_await) :]] == [
        "StorageAccess",
        "ApplyVolume",
        "WaitBound",
        "AwaitAddons",
    ]
    alone = storage.plan(ConfigureStorageInput(name="c1", **S3))
    assert plan.request["storage"] == alone.request
    assert set(plan.request) == {"controlPlane", "dependencies", "hyperpod", "storage"}


def test_fsx_storage_needs_the_optional_dependencies_that_install_its_driver():
    fsx = {"kind": "fsx", "storageName": "scratch", "fileSystemId": "fs-0123456789abcdef0"}
    with pytest.raises(ValidationError) as caught:
        ProvisionClusterRequest.model_validate({**BODY, "storage": fsx})
    error = caught.value.errors()[0]
    assert error["loc"] == ("storage",) and "includeOptionalDependencies" in error["msg"]
    ProvisionClusterRequest.model_validate({**BODY, "storage": fsx, "includeOptionalDependencies": True})


def _failed_at(store: Operations, operation_id: str, phase: str, done_meanwhile: tuple[str, ...] = ()) -> None:
    """Every phase before ``phase`` succeeded, ``phase`` failed; a parallel branch may have finished too."""
    operation = store.get(operation_id)
    at = [p.name for p in operation.phases].index(phase)
    phases = [
        p.model_copy(update={"status": PhaseStatus.SUCCEEDED})
        if i < at or p.name in done_meanwhile
        else p.model_copy(update={"status": PhaseStatus.FAILED, "error": "Lost"})
        if i == at
        else p
        for i, p in enumerate(operation.phases)
    ]
    store.ops[operation_id] = operation.model_copy(update={"phases": phases})
    store.finish(operation_id, OperationStatus.FAILED, error="Lost", message="claim is Lost")


def test_retry_after_the_storage_child_failed_resumes_storage_and_keeps_every_other_child_done():
    store, runner = Operations(), Workflows()
    request = ProvisionClusterRequest.model_validate({**BODY, "storage": S3})
    operation, _ = ops.submit(store, runner, provision.plan(request), ADMIN)
    _failed_at(store, operation.id, "WaitBound")

    resumed = ops.retry(store, runner, operation.id, ADMIN, Role.ADMIN)

    statuses = {p.name: p.status for p in resumed.phases}
    assert all(statuses[name] == "SUCCEEDED" for name, _ in provision.PHASES[:-1])
    assert statuses["StorageAccess"] == "SUCCEEDED" and statuses["AwaitAddons"] == "PENDING"
    # a claim that never bound is applied again, as configure-storage does alone
    assert statuses["ApplyVolume"] == statuses["WaitBound"] == "PENDING"
    workflow, execution, document = runner.started[-1]
    assert (workflow, execution, document["attempt"]) == ("provision-cluster", f"{operation.id}-r1", 2)
    assert document["request"]["storage"]["storageName"] == "datasets"


def test_retry_after_the_hyperpod_child_failed_resumes_hyperpod_and_keeps_storage_done_meanwhile():
    store, runner = Operations(), Workflows()
    request = ProvisionClusterRequest.model_validate({**BODY, "storage": S3})
    operation, _ = ops.submit(store, runner, provision.plan(request), ADMIN)
    # storage, in parallel with HyperPod, had finished when HyperPod failed
    _failed_at(store, operation.id, "WaitInService", done_meanwhile=("StorageAccess", "ApplyVolume", "WaitBound"))

    resumed = ops.retry(store, runner, operation.id, ADMIN, Role.ADMIN)

    statuses = {p.name: p.status for p in resumed.phases}
    assert statuses["Manifests"] == statuses["SecurityGroup"] == "SUCCEEDED"
    assert statuses["CreateHyperPod"] == statuses["WaitInService"] == "PENDING"
    assert statuses["StorageAccess"] == statuses["ApplyVolume"] == statuses["WaitBound"] == "SUCCEEDED"


def test_retry_after_the_control_plane_failed_keeps_what_hyperpod_made_meanwhile():
    store, runner = Operations(), Workflows()
    operation, _ = ops.submit(store, runner, provision.plan(ProvisionClusterRequest.model_validate(BODY)), ADMIN)
    # HyperPod's scripts and role are made while EKS is created
    _failed_at(store, operation.id, "CreateCluster", done_meanwhile=("LifecycleScripts", "ExecutionRole"))

    resumed = ops.retry(store, runner, operation.id, ADMIN, Role.ADMIN)

    statuses = {p.name: p.status for p in resumed.phases}
    assert statuses["ClusterRole"] == statuses["LifecycleScripts"] == statuses["ExecutionRole"] == "SUCCEEDED"
    assert statuses["CreateCluster"] == statuses["WaitActive"] == statuses["Addons"] == "PENDING"


def test_phase_titles_name_only_what_is_installed_and_awaited():
    """A title never names an optional dependency that is skipped (FSx CSI, Neuron, KubeRay, the LB controller)."""
    lean = dict(provision.plan(ProvisionClusterRequest.model_validate(BODY)).phases)
    assert "FSx" not in lean["Addons"] and "Mountpoint for S3 CSI" in lean["Addons"]
    assert "KubeRay" not in lean["Manifests"] and "Load Balancer" not in lean["Manifests"]
    assert "FSx" not in lean["AwaitAddons"] and "coredns" in lean["AwaitAddons"]
    full = dict(
        provision.plan(ProvisionClusterRequest.model_validate({**BODY, "includeOptionalDependencies": True})).phases
    )
    assert "FSx for Lustre CSI" in full["Addons"] and "AWS Load Balancer Controller" in full["Manifests"]
