"""A cluster's storage as a caller configures, lists, deletes and browses it: only Launchpod's own volumes
are touched, a delete is planned first (NOOP once gone, the plan on a dry run, neither deleting anything), an
FSx storage cannot be browsed, and every route needs an ACTIVE control plane."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.common import Role
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.contracts.storage import ConfigureStorageRequest
from launchpod.domain import operations as ops
from launchpod.domain import storage as storage_domain
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.usecases import storage

from tests.fakes import s3
from tests.fakes.eks import Eks
from tests.fakes.kube import Kube
from tests.fakes.operations import Operations, Workflows

ADMIN = ops.Principal("alice", Role.ADMIN)
S3 = storage_domain.s3_objects("data", "default", "shared-bucket", "us-east-1", "datasets")


def _ports(
    objects: list[dict[str, Any]], status: str = "ACTIVE", keys: dict[str, int] | None = None
) -> storage.StoragePorts:
    kube = Kube(objects)
    return storage.StoragePorts(
        operations=Operations(),
        workflows=Workflows(),
        eks=Eks({"train": {"status": status}}),
        read=kube.read,
        delete=kube.delete,
        list_labelled=kube.list_labelled,
        s3_page=s3.S3({"shared-bucket": keys or {}}),
    )


def test_a_new_storage_is_planned_and_configure_storage_started() -> None:
    ports = _ports([])
    proposal = storage.configure("train", ConfigureStorageRequest(kind="s3", storageName="data"), ADMIN, ports=ports)
    assert proposal.plan.steps and proposal.plan.steps[0].reason == "train has no storage data"
    assert proposal.start().kind == "configure-storage"


def test_a_volume_launchpod_did_not_create_is_refused_naming_the_field() -> None:
    foreign = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "data", "labels": {}}}
    with pytest.raises(Conflict) as refused:
        storage.configure(
            "train", ConfigureStorageRequest(kind="s3", storageName="data"), ADMIN, ports=_ports([foreign])
        )
    assert "Launchpod did not create it; choose another storageName" in str(refused.value)
    assert refused.value.details[0]["field"] == "body.storageName"


def test_storage_on_a_creating_control_plane_is_refused() -> None:
    with pytest.raises(Conflict) as refused:
        storage.list_storage("train", ports=_ports([], status="CREATING"))
    assert str(refused.value) == "The EKS control plane of train is CREATING; storage needs an ACTIVE cluster."


def test_the_list_has_only_launchpods_volumes_with_their_claims_state() -> None:
    foreign = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "other", "labels": {}}}
    listed = storage.list_storage("train", ports=_ports([*S3, foreign]))
    assert [(s.storageName, s.kind, s.status) for s in listed.items] == [("data", "s3", "Pending")]


def test_delete_removes_the_claim_then_the_volume_and_again_is_noop() -> None:
    ports = _ports(S3)
    deleted = storage.delete_storage("train", "data", False, ports=ports)
    assert isinstance(deleted, storage.DeleteStorageView)
    assert deleted.deleted == ["PersistentVolumeClaim/default/data", "PersistentVolume/data"]
    assert storage.delete_storage("train", "data", False, ports=ports) == NoopView(
        message="train has no storage data; nothing to delete (list its storage for the names it has)."
    )
    assert storage.list_storage("train", ports=ports).items == []


def test_a_dry_run_of_delete_names_the_claim_and_the_volume_and_deletes_neither() -> None:
    ports = _ports(S3)
    planned = storage.delete_storage("train", "data", True, ports=ports)
    assert isinstance(planned, PlanView) and planned.target == "storage data of train"
    assert [(s.action, s.target) for s in planned.steps] == [
        ("delete", "PersistentVolumeClaim default/data"),
        ("delete", "PersistentVolume data"),
    ]
    assert planned.steps[1].reason.endswith("the data in s3://shared-bucket/datasets/ is kept")
    assert [s.storageName for s in storage.list_storage("train", ports=ports).items] == ["data"]
    assert ports.read("train", S3[1]) is not None  # the claim is still there


def test_a_volume_launchpod_did_not_create_is_not_deleted_even_in_a_dry_run() -> None:
    foreign = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "data", "labels": {}}}
    ports = _ports([foreign])
    for dry_run in (True, False):
        with pytest.raises(Conflict) as refused:
            storage.delete_storage("train", "data", dry_run, ports=ports)
        assert str(refused.value) == (
            "The PersistentVolume data on train was not created by Launchpod; it is left in place."
        )
        assert refused.value.details[0]["rule"] == "owned_by_launchpod"
    assert ports.read("train", foreign) is not None


def test_browsing_lists_objects_and_folders_under_the_storages_prefix() -> None:
    keys = {"datasets/a.txt": 3, "datasets/imgs/1.png": 9, "other/b.txt": 1}
    page = storage.browse("train", "data", None, None, ports=_ports(S3, keys=keys))
    assert (page.bucket, page.prefix) == ("shared-bucket", "datasets/")
    assert [(o.key, o.size) for o in page.objects] == [("a.txt", 3)]
    assert page.prefixes == ["imgs/"]


def test_an_fsx_storage_cannot_be_browsed() -> None:
    fsx = storage_domain.fsx_objects("scratch", "default", "fs-0123456789abcdef0", "fs.example", "abcd")
    with pytest.raises(InvalidInput) as refused:
        storage.browse("train", "scratch", None, None, ports=_ports(fsx))
    assert str(refused.value) == "scratch is an FSx for Lustre storage; only S3 storage can be browsed here."
