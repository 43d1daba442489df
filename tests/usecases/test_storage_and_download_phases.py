"""configure-storage's and model-download's phases as use cases, with their ports (runtime.wiring's Kubernetes
objects, FSx and EKS) replaced by in-memory fakes: what each refuses, and what it leaves behind."""

from __future__ import annotations

from typing import Any

import pytest
from launchpod.contracts.models import ModelDownloadWorkflowRequest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import storage
from launchpod.domain.errors import Conflict, PermanentError
from launchpod.domain.inference import models
from launchpod.runtime import wiring
from launchpod.usecases.workflows import configure_storage, model_download

from tests.fakes.eks import Eks
from tests.fakes.kube import Kube as Objects

ACTIVE = {"status": "ACTIVE", "health": {"issues": []}}


def _storage(kind: str = "s3", poll: int = 0, outputs: dict[str, Any] | None = None) -> WorkflowInput:
    request: dict[str, Any] = {"name": "c1", "kind": kind, "storageName": "data"}
    if kind == "fsx":
        request["fileSystemId"] = "fs-0123456789abcdef0"
    return WorkflowInput(
        operationId="op-0123456789",
        kind="configure-storage",
        target="c1",
        request=request,
        poll={"WaitBound": poll} if poll else {},
        outputs=outputs or {},
    )


def _download(token: str | None = "hf-token-c1") -> WorkflowInput:
    return WorkflowInput(
        operationId="op-0123456789",
        kind="model-download",
        target="c1",
        request={
            "name": "c1",
            "repoId": "org/gated-model",
            "revision": "main",
            "repoType": "model",
            "storage": "data",
            "namespace": "default",
            "job": "hf-org-gated-model-1234abcd",
            "tokenSecret": token,
            "path": "s3://bucket/models/org/gated-model/",
        },
    )


class FakeFsx:
    def __init__(self, described: dict[str, Any]) -> None:
        self.described = described

    def file_system(self, file_system_id: str) -> dict[str, Any]:
        return {"FileSystemId": file_system_id, **self.described}


@pytest.fixture
def kube(monkeypatch) -> Objects:
    objects = Objects()
    monkeypatch.setattr(wiring, "kube", lambda: objects)
    return objects


def test_an_fsx_file_system_that_is_not_lustre_is_refused_before_any_volume_is_made(monkeypatch):
    monkeypatch.setattr(wiring, "eks", lambda: Eks(addons={"c1": {"aws-fsx-csi-driver": ACTIVE}}))
    monkeypatch.setattr(wiring, "fsx", lambda: FakeFsx({"FileSystemType": "WINDOWS", "DNSName": "fs.example"}))

    with pytest.raises(PermanentError, match="FSx for Windows file system; storage attaches FSx for Lustre only"):
        configure_storage.storage_access(_storage("fsx"))


def test_an_available_lustre_file_system_gives_apply_volume_its_dns_and_mount_names(monkeypatch, kube):
    monkeypatch.setattr(wiring, "eks", lambda: Eks(addons={"c1": {"aws-fsx-csi-driver": ACTIVE}}))
    described = {"FileSystemType": "LUSTRE", "DNSName": "fs.example", "LustreConfiguration": {"MountName": "abcd"}}
    monkeypatch.setattr(wiring, "fsx", lambda: FakeFsx(described))

    access = configure_storage.storage_access(_storage("fsx"))
    assert access.message and "fs-0123456789abcdef0 at fs.example@tcp:/abcd" in access.message
    configure_storage.apply_volume(_storage("fsx", outputs={"StorageAccess": access.outputs.model_dump()}))

    volume, claim = kube.applied
    assert volume["spec"]["csi"]["volumeAttributes"] == {"dnsname": "fs.example", "mountname": "abcd"}
    assert claim["kind"] == "PersistentVolumeClaim" and claim["metadata"]["name"] == "data"


def test_a_volume_launchpod_did_not_make_is_left_alone_and_named(kube):
    kube._put({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "data"}})
    access = {"StorageAccess": {"bucket": "launchpod-shared", "region": "us-east-1"}}

    with pytest.raises(Conflict, match="Launchpod did not create it; choose another storageName"):
        configure_storage.apply_volume(_storage(outputs=access))
    assert kube.applied == []


def test_a_lost_claim_fails_wait_bound_with_the_command_that_shows_why(kube):
    claim = storage.claim("data", "default", "")
    kube._put({**claim, "status": {"phase": "Lost"}})

    with pytest.raises(PermanentError, match="is Lost, not Bound; check `kubectl describe pvc data -n default`"):
        configure_storage.wait_bound(_storage())


def test_a_failed_download_deletes_its_token_and_fails_with_the_jobs_words(kube):
    doc = _download()
    job = models.job(ModelDownloadWorkflowRequest.model_validate(doc.request))
    failed = {"conditions": [{"type": "Failed", "status": "True", "message": "401: the repository is gated"}]}
    kube._put({**job, "status": failed})
    kube._put(models.secret("hf-token-c1", "default", "hf_secret"))

    with pytest.raises(PermanentError, match="Downloading org/gated-model failed: 401: the repository is gated"):
        model_download.wait_download(doc)
    assert kube.path_of(models.secret("hf-token-c1", "default", "hf_secret")) not in kube.objects


def test_a_running_download_keeps_its_token_until_the_job_ends(kube):
    doc = _download()
    job = models.job(ModelDownloadWorkflowRequest.model_validate(doc.request))
    kube._put({**job, "status": {"active": 1}})
    kube._put(models.secret("hf-token-c1", "default", "hf_secret"))

    result = model_download.wait_download(doc)

    assert not result.ready and result.message == "Downloading org/gated-model@main (running)"
    assert kube.deleted == []
