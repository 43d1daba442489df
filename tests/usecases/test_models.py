"""The model use cases with in-memory ports: a download keeps its token in a Secret only (and removes it when
the operation cannot be recorded), refuses a storage that is not Launchpod's S3 one, and the models listed
are those under models/ of each S3 storage."""

from __future__ import annotations

import base64
import json

import pytest
from launchpod.contracts.common import Role
from launchpod.contracts.models import DownloadModelInput
from launchpod.domain import operations as ops
from launchpod.domain import ownership, storage
from launchpod.domain.errors import Conflict
from launchpod.usecases import models as cases

from tests.fakes.eks import Eks
from tests.fakes.kube import Kube
from tests.fakes.operations import Operations, Workflows
from tests.fakes.s3 import S3

WHO = ops.Principal("olga", Role.OPERATOR)
TOKEN = "hf_secretvalue123"


def _volume(name: str, driver: str = storage.S3_DRIVER, prefix: str = "team/") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "labels": {**ownership.K8S_LABELS, storage.STORAGE_LABEL: name}},
        "spec": {
            "csi": {"driver": driver, "volumeAttributes": {"bucketName": f"{name}-bucket"}},
            "mountOptions": [f"prefix {prefix}"],
            "claimRef": {"namespace": "ml", "name": name},
        },
    }


def _ports(objects=(), keys=None) -> cases.ModelPorts:
    return cases.ModelPorts(
        eks=Eks({"c1": {"status": "ACTIVE"}}),
        kube=Kube(
            [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}}, *objects]
        ),  # the claims' namespace
        s3=S3(keys or {}),
        operations=Operations(),
        workflows=Workflows(),
    )


def _request(**more) -> DownloadModelInput:
    return DownloadModelInput(name="c1", repoId="Qwen/Qwen3-0.6B", storage="shared", **more)


def test_a_download_keeps_the_token_in_a_secret_of_the_claim_s_namespace_and_nowhere_else():
    ports = _ports([_volume("shared")])
    operation = cases.download(_request(hfToken=TOKEN), who=WHO, ports=ports)
    (secret,) = ports.kube.applied
    assert secret["kind"] == "Secret" and secret["metadata"]["namespace"] == "ml"
    stored = secret.get("stringData") or {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    assert TOKEN in stored.values()
    ((kind, _, document),) = ports.workflows.started
    assert kind == operation.kind
    assert TOKEN not in json.dumps(document) and TOKEN not in operation.model_dump_json()
    assert document["request"]["tokenSecret"] == secret["metadata"]["name"]
    assert document["request"]["path"] == "s3://shared-bucket/team/models/Qwen/Qwen3-0.6B/"


def test_a_download_that_cannot_be_recorded_takes_its_token_secret_away():
    ports = _ports([_volume("shared")])
    first = DownloadModelInput(name="c1", repoId="Qwen/Qwen3-8B", storage="shared")
    running = cases.download(first, who=WHO, ports=ports)  # still running: it holds the cluster
    with pytest.raises(Conflict, match=f"busy with operation {running.id}"):
        cases.download(_request(hfToken=TOKEN), who=WHO, ports=ports)
    assert [o["kind"] for o in ports.kube.applied] == ["Secret"]
    assert [o["metadata"]["name"] for o in ports.kube.deleted] == [ports.kube.applied[0]["metadata"]["name"]]
    assert len(ports.workflows.started) == 1  # only the first


def test_a_download_into_anything_but_launchpod_s_s3_storage_is_refused_before_a_secret_exists():
    ports = _ports([_volume("shared", driver=storage.FSX_DRIVER)])
    with pytest.raises(Conflict, match=r"no S3 storage shared configured by Launchpod; add it") as refused:
        cases.download(_request(hfToken=TOKEN), who=WHO, ports=ports)
    assert {"field": None, "rule": "next_step", "message": "POST /api/clusters/c1/storage"} in refused.value.details
    assert ports.kube.applied == [] and ports.workflows.started == []


def test_the_models_listed_are_the_folders_with_a_marker_under_each_s3_storage_s_models_prefix():
    keys = {
        "shared-bucket": {
            "team/models/Qwen/Qwen3-0.6B/config.json": 10,
            "team/models/Qwen/Qwen3-0.6B/model.safetensors": 90,
            "team/datasets/x/config.json": 1,
        }
    }
    ports = _ports([_volume("shared"), _volume("lustre", driver=storage.FSX_DRIVER)], keys)
    listed = cases.list_models("c1", ports=ports)
    assert [(m.repoId, m.storageName, m.files, m.sizeBytes) for m in listed.items] == [
        ("Qwen/Qwen3-0.6B", "shared", 2, 100)
    ]
    assert ports.s3.listed == [("shared-bucket", "team/models/")]  # FSx is not read through S3
