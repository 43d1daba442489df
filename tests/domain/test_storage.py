"""Storage builders: the PersistentVolume and claim validate against Kubernetes 1.32 and match the
Mountpoint for S3 static-provisioning sample; FSx volumes carry the file system's DNS and mount names."""

from __future__ import annotations

from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.domain import storage
from pydantic import ValidationError

SAMPLE = Path("/work/shared/crds/samples/s3-pv-pvc.yaml")


def _s3(prefix: str | None = None) -> list[dict]:
    return storage.s3_objects("datasets", "training", "sagemaker-launchpod-1", "us-east-1", prefix)


def _fsx() -> list[dict]:
    return storage.fsx_objects(
        "scratch", "default", "fs-0123456789abcdef0", "fs-1.fsx.us-east-1.amazonaws.com", "abcd1234"
    )


@pytest.mark.parametrize("built", [_s3(), _s3("data/imagenet"), _fsx()], ids=["s3", "s3-prefix", "fsx"])
def test_volume_and_claim_validate_and_are_labelled(built):
    for obj in built:
        kubernetes_validate.validate(obj, "1.32.0", strict=True)
        labels = obj["metadata"]["labels"]
        assert labels["app.kubernetes.io/managed-by"] == "launchpod"
        assert labels["launchpod.io/storage"] == obj["metadata"]["name"]
    volume, claim = built
    assert volume["spec"]["claimRef"] == {
        "namespace": claim["metadata"]["namespace"],
        "name": claim["metadata"]["name"],
    }
    assert claim["spec"]["volumeName"] == volume["metadata"]["name"]


def test_s3_volume_has_the_shape_of_the_mountpoint_sample():
    sample_pv, sample_pvc = yaml.safe_load_all(SAMPLE.read_text())
    volume, claim = _s3()
    for key in ("capacity", "accessModes", "storageClassName"):
        assert volume["spec"][key] == sample_pv["spec"][key]
    for key in ("accessModes", "storageClassName", "resources"):
        assert claim["spec"][key] == sample_pvc["spec"][key]
    assert volume["spec"]["csi"]["driver"] == sample_pv["spec"]["csi"]["driver"] == "s3.csi.aws.com"
    assert volume["spec"]["csi"]["volumeHandle"] == "s3-csi-driver-volume-datasets"
    assert volume["spec"]["csi"]["volumeAttributes"] == {"bucketName": "sagemaker-launchpod-1"}
    assert volume["spec"]["mountOptions"] == ["allow-delete", "allow-overwrite", "region us-east-1"]


def test_s3_prefix_becomes_a_mount_option_and_is_read_back():
    volume, _ = _s3("data/imagenet")
    assert "prefix data/imagenet/" in volume["spec"]["mountOptions"]
    assert storage.s3_prefix_of(volume) == ("sagemaker-launchpod-1", "data/imagenet/")
    assert storage.s3_prefix_of(_s3()[0]) == ("sagemaker-launchpod-1", "")
    assert storage.s3_prefix_of(_fsx()[0]) is None


def test_fsx_volume_uses_the_file_system_id_and_its_names():
    volume, _ = _fsx()
    csi = volume["spec"]["csi"]
    assert csi["driver"] == "fsx.csi.aws.com" and csi["volumeHandle"] == "fs-0123456789abcdef0"
    assert csi["volumeAttributes"] == {"dnsname": "fs-1.fsx.us-east-1.amazonaws.com", "mountname": "abcd1234"}


def test_describe_reports_kind_source_and_claim_phase():
    volume, claim = _s3("ckpt")
    row = storage.describe(volume, {**claim, "status": {"phase": "Bound"}})
    assert row == {
        "storageName": "datasets",
        "namespace": "training",
        "kind": "s3",
        "source": "s3://sagemaker-launchpod-1/ckpt/",
        "status": "Bound",
    }
    assert storage.describe(volume, None)["status"] == "Missing"
    assert storage.describe(_fsx()[0], None)["kind"] == "fsx"


def test_plan_names_the_three_phases():
    plan = storage.plan(ConfigureStorageInput(name="c1", kind="s3", storageName="data"))
    assert plan.kind == "configure-storage" and [p for p, _ in plan.phases] == [
        "StorageAccess",
        "ApplyVolume",
        "WaitBound",
    ]


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "fsx", "storageName": "x"},
        {"kind": "s3", "storageName": "x", "fileSystemId": "fs-0123456789abcdef0"},
        {"kind": "fsx", "storageName": "x", "fileSystemId": "fs-0123456789abcdef0", "prefix": "a"},
        {"kind": "s3", "storageName": "Bad_Name"},
        {"kind": "s3", "storageName": "x", "prefix": "../etc"},
        {"kind": "s3", "storageName": "x", "prefix": "/abs"},
        {"kind": "fsx", "storageName": "x", "fileSystemId": "vol-123"},
        {"kind": "efs", "storageName": "x"},
    ],
)
def test_request_refuses_fields_that_do_not_fit_the_kind(body):
    with pytest.raises(ValidationError):
        ConfigureStorageInput(name="c1", **body)


def test_request_defaults_and_normalises_the_prefix():
    request = ConfigureStorageInput(name="c1", kind="s3", storageName="data", prefix="datasets/a/")
    assert request.namespace == "default" and request.prefix == "datasets/a"
