"""Storage: the PersistentVolume and PersistentVolumeClaim that expose the shared bucket (Mountpoint for
S3 CSI) or an existing FSx for Lustre file system to pods, statically provisioned, and how to read them back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from launchpod.contracts.phase_outputs import StorageAccessOutput
from launchpod.contracts.storage import ConfigureStorageInput
from launchpod.domain import ownership
from launchpod.domain.operations import WorkflowPlan
from launchpod.domain.plan import Plan, Step


@dataclass(frozen=True)
class StoredObject:
    """An object in the shared bucket: its key, size in bytes and when it was last written."""

    key: str
    size: int
    last_modified: datetime


@dataclass(frozen=True)
class ObjectPage:
    """One page of a prefix's listing with "/" as delimiter, as the ObjectPages port (adapters.aws.s3) reads
    ListObjectsV2's answer (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html)."""

    objects: tuple[StoredObject, ...] = ()  # Contents: the objects right under the prefix
    prefixes: tuple[str, ...] = ()  # CommonPrefixes: the "folders" right under it, each ending in "/"
    next_token: str | None = None  # NextContinuationToken: where the rest starts, when the page is truncated


KIND = "configure-storage"
PHASES: tuple[tuple[str, str], ...] = (
    ("StorageAccess", "The CSI driver add-on is ACTIVE with its identity; the source exists"),
    ("ApplyVolume", "PersistentVolume and PersistentVolumeClaim, server-side applied"),
    ("WaitBound", "The claim is Bound to its volume"),
)
MAX_POLLS = 60
POLL_SECONDS = 5

S3_DRIVER, FSX_DRIVER = "s3.csi.aws.com", "fsx.csi.aws.com"
ADDON = {"s3": "aws-mountpoint-s3-csi-driver", "fsx": "aws-fsx-csi-driver"}
# Static provisioning ignores capacity for S3 and FSx mounts, but Kubernetes requires one.
NOMINAL_CAPACITY = "1200Gi"
MANAGED_BY, STORAGE_LABEL, SOURCE_ANNOTATION = (
    ownership.K8S_MANAGED_BY,
    "launchpod.io/storage",
    "launchpod.io/source",
)


def plan(request: ConfigureStorageInput) -> WorkflowPlan:
    return WorkflowPlan.of(KIND, request, PHASES)


def _metadata(name: str, source: str, namespace: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": name,
        "labels": {**ownership.K8S_LABELS, STORAGE_LABEL: name},
        "annotations": {SOURCE_ANNOTATION: source},
    }
    return meta | ({"namespace": namespace} if namespace else {})


def s3_source(bucket: str, prefix: str | None) -> str:
    return f"s3://{bucket}/" + (f"{prefix}/" if prefix else "")


def _volume(name: str, namespace: str, source: str, csi: dict[str, Any], mount_options: list[str]) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "capacity": {"storage": NOMINAL_CAPACITY},
        "accessModes": ["ReadWriteMany"],
        "persistentVolumeReclaimPolicy": "Retain",
        "storageClassName": "",
        "claimRef": {"namespace": namespace, "name": name},
        "csi": csi,
    }
    if mount_options:
        spec["mountOptions"] = mount_options
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": _metadata(name, source), "spec": spec}


def claim(name: str, namespace: str, source: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": _metadata(name, source, namespace),
        "spec": {
            "accessModes": ["ReadWriteMany"],
            "storageClassName": "",
            "resources": {"requests": {"storage": NOMINAL_CAPACITY}},
            "volumeName": name,
        },
    }


def s3_objects(name: str, namespace: str, bucket: str, region: str, prefix: str | None) -> list[dict[str, Any]]:
    """Mountpoint for S3: the driver mounts the bucket (or one prefix of it) with the identity its
    add-on's service account holds, each mount option a ``mount-s3`` flag (awslabs/mountpoint-s3-csi-driver
    docs/CONFIGURATION.md). By default Mountpoint only creates files (awslabs/mountpoint-s3
    doc/CONFIGURATION.md, "File modifications and deletions"): allow-delete lets training jobs rotate their
    checkpoints and a download replace a partial file; allow-overwrite lets a writer replace a file by opening
    it with O_TRUNC, as trainers rewrite their checkpoint tracker at every save (VERL's
    ``latest_checkpointed_iteration.txt``, verl/trainer/ppo/ray_trainer.py ``_save_checkpoint``; a script
    saving ``checkpoint.pt`` each epoch). Appends, renames and in-place edits stay impossible on a general
    purpose bucket (doc/SEMANTICS.md). The bucket is versioned, which Mountpoint recommends against losing
    data to a delete; a replaced object's old version is kept the same way."""
    source = s3_source(bucket, prefix)
    options = ["allow-delete", "allow-overwrite", f"region {region}"] + ([f"prefix {prefix}/"] if prefix else [])
    csi = {
        "driver": S3_DRIVER,
        "volumeHandle": f"s3-csi-driver-volume-{name}",
        "volumeAttributes": {"bucketName": bucket},
    }
    return [_volume(name, namespace, source, csi, options), claim(name, namespace, source)]


def fsx_objects(name: str, namespace: str, file_system_id: str, dns_name: str, mount_name: str) -> list[dict[str, Any]]:
    """FSx for Lustre, statically provisioned: the volume handle is the file system id."""
    source = f"fsx://{file_system_id} ({dns_name}@tcp:/{mount_name})"
    csi = {
        "driver": FSX_DRIVER,
        "volumeHandle": file_system_id,
        "volumeAttributes": {"dnsname": dns_name, "mountname": mount_name},
    }
    return [_volume(name, namespace, source, csi, ["flock"]), claim(name, namespace, source)]


def volume_objects(request: ConfigureStorageInput, access: StorageAccessOutput) -> list[dict[str, Any]]:
    """The volume and claim a configure-storage request makes, from what StorageAccess found."""
    if request.kind == "s3":
        assert access.bucket is not None and access.region is not None
        return s3_objects(request.storageName, request.namespace, access.bucket, access.region, access.prefix)
    assert request.fileSystemId is not None and access.dnsName is not None and access.mountName is not None
    return fsx_objects(request.storageName, request.namespace, request.fileSystemId, access.dnsName, access.mountName)


def managed(obj: dict[str, Any] | None) -> bool:
    return ownership.owns_k8s(obj)


def describe(volume: dict[str, Any], claim_found: dict[str, Any] | None) -> dict[str, Any]:
    """A storage row from its PersistentVolume and (if still there) its claim."""
    spec = volume.get("spec") or {}
    csi, ref = spec.get("csi") or {}, spec.get("claimRef") or {}
    kind = "fsx" if csi.get("driver") == FSX_DRIVER else "s3"
    annotations = volume["metadata"].get("annotations") or {}
    return {
        "storageName": volume["metadata"]["name"],
        "namespace": ref.get("namespace", "default"),
        "kind": kind,
        "source": annotations.get(SOURCE_ANNOTATION, csi.get("volumeHandle", "")),
        "status": ((claim_found or {}).get("status") or {}).get("phase", "Pending") if claim_found else "Missing",
    }


def s3_prefix_of(volume: dict[str, Any]) -> tuple[str, str] | None:
    """(bucket, key prefix ending in "/" or "") of a Mountpoint volume; None for other drivers."""
    spec = volume.get("spec") or {}
    csi = spec.get("csi") or {}
    if csi.get("driver") != S3_DRIVER:
        return None
    prefix = next((o.removeprefix("prefix ") for o in spec.get("mountOptions", []) if o.startswith("prefix ")), "")
    return csi["volumeAttributes"]["bucketName"], prefix


def fsx_source_of(volume: dict[str, Any]) -> tuple[str, str, str] | None:
    """(file system id, DNS name, mount name) of an FSx for Lustre volume; None for other drivers."""
    csi = (volume.get("spec") or {}).get("csi") or {}
    if csi.get("driver") != FSX_DRIVER:
        return None
    attributes = csi.get("volumeAttributes") or {}
    return csi["volumeHandle"], attributes.get("dnsname", ""), attributes.get("mountname", "")


def delete_plan(
    cluster: str, storage_name: str, volume: dict[str, Any] | None, claim_found: dict[str, Any] | None
) -> Plan:
    """What deleting a storage Launchpod configured removes: its claim (only one Launchpod created), then its
    volume; the data stays where it is. Empty when there is no such volume: nothing to delete."""
    target = f"storage {storage_name} of {cluster}"
    if volume is None:
        return Plan(target, ())
    steps = []
    if claim_found is not None and managed(claim_found):
        meta = claim_found["metadata"]
        # Kubernetes keeps a claim a pod still uses (kubernetes.io/pvc-protection finalizer) until that pod is
        # gone: https://kubernetes.io/docs/concepts/storage/persistent-volumes/#storage-object-in-use-protection
        steps.append(
            Step(
                "delete",
                f"PersistentVolumeClaim {meta['namespace']}/{meta['name']}",
                f"the claim of storage {storage_name}, created by Launchpod; pods still mounting it keep it until"
                " they end",
            )
        )
    source = describe(volume, claim_found)["source"]
    steps.append(
        Step(
            "delete",
            f"PersistentVolume {storage_name}",
            f"the volume of storage {storage_name}, configured by Launchpod; the data in {source} is kept",
        )
    )
    return Plan(target, tuple(steps))
