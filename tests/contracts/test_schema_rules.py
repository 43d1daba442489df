"""The OpenAPI document states the rules the contracts' validators apply: a body the document calls valid is
one the API takes, and one it calls invalid is one the API refuses. Each row is a body checked against the
committed document (what generated clients and the MCP tools' input schemas are told) and, where the model
itself holds the rule, against the pydantic model too. What no schema can state is in
launchpod.contracts.refusals; the last tests hold that list to the rules the code raises."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from launchpod.contracts import refusals
from launchpod.contracts.autoscaling import AutoscalingRequest
from launchpod.contracts.catalog_ops import entry
from launchpod.contracts.clusters import CreateClusterRequest, ProvisionClusterRequest
from launchpod.contracts.features import UpdateFeaturesRequest
from launchpod.contracts.hyperpod import AutoPatch
from launchpod.contracts.inference import CreateEndpointRequest, KvCacheSpec, ModelPath
from launchpod.contracts.instance_groups import AddInstanceGroupRequest
from launchpod.contracts.jobs import LogMonitoringRule, SubmitJobRequest
from launchpod.contracts.models import DownloadModelRequest, RepoId, Revision
from launchpod.contracts.nodes import MoveNodesRequest, NodeActionRequest
from launchpod.contracts.storage import ConfigureStorageRequest, S3Prefix
from launchpod.contracts.task_governance import TeamRequest
from pydantic import BaseModel, TypeAdapter, ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from mcp_gateway.tools import tool_for

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = json.loads((ROOT / "web" / "src" / "api" / "openapi.json").read_text(encoding="utf-8"))
_REGISTRY = Registry().with_resource("urn:doc", Resource.from_contents(DOCUMENT, default_specification=DRAFT202012))


def _document_takes(schema_name: str, body: dict[str, Any]) -> bool:
    validator = Draft202012Validator({"$ref": f"urn:doc#/components/schemas/{schema_name}"}, registry=_REGISTRY)
    return validator.is_valid(body)


def _model_takes(model: type[BaseModel], body: dict[str, Any]) -> bool:
    try:
        model.model_validate(body)
    except ValidationError:
        return False
    return True


GROUP = {"group": "g1", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}
ARN = "arn:aws:sagemaker:us-east-1:123456789012:training-plan/p5-week"
ENDPOINT = {"endpoint": "qwen", "instanceType": "ml.g5.12xlarge"}
WORKER = {"image": "vllm/vllm-openai:v0.10.1", "gpus": 1}
CONTAINER = {"worker": WORKER}
MANAGED = {"storageName": "models", "modelPath": "models/qwen", "worker": WORKER}
PROMETHEUS = {"query": "sum(x)", "targetValue": 1}
CLOUDWATCH = {"namespace": "AWS/SageMaker", "metricName": "Invocations", "targetValue": 1}
FSX = {"kind": "fsx", "storageName": "f", "fileSystemId": "fs-01234567"}
JOB = {"jobName": "train", "instanceGroup": "gpu"}
CLUSTER = {"name": "c1", "availabilityZones": ["us-east-1a", "us-east-1b"]}
MOVE = {"sourceGroup": "g1", "targetGroup": "g2", "acknowledgeDataLoss": True}
PARTITION = {"type": "mig-1g.10gb", "count": 2}
TOPOLOGY = {"label": "topology.k8s.aws/network-node-layer-3"}
HYPERPOD = {
    "availabilityZone": "us-east-1a",
    "instanceGroups": [{"name": "g", "instanceType": "ml.g5.xlarge", "instanceCount": 1}],
}

# (model, body, taken): ``taken`` is what the API does with the body; the model holds each of these rules.
ROWS: list[tuple[type[BaseModel], dict[str, Any], bool]] = [
    (AddInstanceGroupRequest, GROUP, True),
    (AddInstanceGroupRequest, {**GROUP, "capacityType": "trainingPlan", "trainingPlanArn": ARN}, True),
    (AddInstanceGroupRequest, {**GROUP, "capacityType": "trainingPlan"}, False),
    (AddInstanceGroupRequest, {**GROUP, "trainingPlanArn": ARN}, False),
    (AddInstanceGroupRequest, {**GROUP, "capacityType": "spot", "trainingPlanArn": ARN}, False),
    (AddInstanceGroupRequest, {**GROUP, "labels": {"example.com/team": "a"}}, True),
    (AddInstanceGroupRequest, {**GROUP, "labels": {"not a key!": "a"}}, False),
    (AddInstanceGroupRequest, {**GROUP, "taints": [{"key": "-x", "effect": "NoSchedule"}]}, False),
    (ConfigureStorageRequest, {"kind": "s3", "storageName": "data", "prefix": "datasets/x"}, True),
    (ConfigureStorageRequest, {"kind": "s3", "storageName": "data", "fileSystemId": "fs-0123456789abcdef0"}, False),
    (ConfigureStorageRequest, {"kind": "s3", "storageName": "data", "prefix": "datasets/../x"}, False),
    (ConfigureStorageRequest, {"kind": "fsx", "storageName": "data", "fileSystemId": "fs-0123456789abcdef0"}, True),
    (ConfigureStorageRequest, {"kind": "fsx", "storageName": "data"}, False),
    (
        ConfigureStorageRequest,
        {"kind": "fsx", "storageName": "data", "fileSystemId": "fs-0123456789abcdef0", "prefix": "x"},
        False,
    ),
    (UpdateFeaturesRequest, {}, False),
    (UpdateFeaturesRequest, {"observability": {"enabled": True}}, True),
    (UpdateFeaturesRequest, {"tieredCheckpointing": {"enabled": True, "memoryPercentage": 20}}, True),
    (UpdateFeaturesRequest, {"tieredCheckpointing": {"enabled": False, "memoryPercentage": 20}}, False),
    (NodeActionRequest, {"nodeIds": ["i-0123456789abcdef0", "i-0123456789abcdef1"]}, True),
    (NodeActionRequest, {"nodeIds": ["i-0123456789abcdef0", "i-0123456789abcdef0"]}, False),
    (AutoscalingRequest, {"enabled": True, "groups": ["g1"]}, True),
    (AutoscalingRequest, {"enabled": True}, False),
    (AutoscalingRequest, {"enabled": True, "groups": ["g1", "g1"]}, False),
    (AutoscalingRequest, {"enabled": False}, True),
    (CreateClusterRequest, CLUSTER, True),
    # a renamed field (launchpod.contracts.naming): its name or its older spelling, never both
    (CreateClusterRequest, {"cluster": "c1", "availabilityZones": ["us-east-1a", "us-east-1b"]}, True),
    (CreateClusterRequest, {**CLUSTER, "cluster": "c1"}, False),
    (CreateClusterRequest, {"availabilityZones": ["us-east-1a", "us-east-1b"]}, False),
    (AddInstanceGroupRequest, {**GROUP, "instanceGroup": "g1"}, False),
    (AutoscalingRequest, {"enabled": True, "instanceGroups": ["g1"]}, True),
    (AutoscalingRequest, {"enabled": True, "instanceGroups": ["g1"], "groups": ["g1"]}, False),
    (CreateClusterRequest, {**CLUSTER, "availabilityZones": ["us-east-1a", "us-east-1a"]}, False),
    (CreateClusterRequest, {**CLUSTER, "network": {"vpcCidr": "10.0.0.0/16"}}, True),
    (CreateClusterRequest, {**CLUSTER, "network": {"vpcId": "vpc-0123abcd", "subnetIds": ["s-1", "s-2"]}}, True),
    (CreateClusterRequest, {**CLUSTER, "network": {"vpcId": "vpc-0123abcd"}}, False),
    (CreateClusterRequest, {**CLUSTER, "network": {"vpcId": "vpc-0123abcd", "subnetIds": ["s-1", "s-1"]}}, False),
    (
        CreateClusterRequest,
        {**CLUSTER, "network": {"vpcCidr": "10.0.0.0/16", "vpcId": "vpc-0123abcd", "subnetIds": ["s-1", "s-2"]}},
        False,
    ),
    (ProvisionClusterRequest, {**CLUSTER, "hyperpod": HYPERPOD}, True),
    (
        ProvisionClusterRequest,
        {
            **CLUSTER,
            "hyperpod": HYPERPOD,
            "storage": FSX,
        },
        False,
    ),
    (
        ProvisionClusterRequest,
        {
            **CLUSTER,
            "hyperpod": HYPERPOD,
            "includeOptionalDependencies": True,
            "storage": FSX,
        },
        True,
    ),
    (CreateEndpointRequest, {**ENDPOINT, "kind": "managed", "managed": MANAGED}, True),
    (CreateEndpointRequest, {**ENDPOINT, "kind": "managed"}, False),
    (
        CreateEndpointRequest,
        {**ENDPOINT, "kind": "managed", "managed": MANAGED, "container": {"worker": WORKER}},
        False,
    ),
    (CreateEndpointRequest, {**ENDPOINT, "kind": "container", "container": {"worker": WORKER}}, True),
    (CreateEndpointRequest, {**ENDPOINT, "kind": "container", "container": {"worker": {**WORKER, "gpus": 0}}}, False),
    (
        CreateEndpointRequest,
        {**ENDPOINT, "kind": "managed", "managed": {**MANAGED, "modelPath": "models/./qwen"}},
        False,
    ),
    (
        CreateEndpointRequest,
        {**ENDPOINT, "kind": "managed", "managed": {**MANAGED, "autoscaling": {"cloudWatch": CLOUDWATCH}}},
        True,
    ),
    (
        CreateEndpointRequest,
        {
            **ENDPOINT,
            "kind": "managed",
            "managed": {**MANAGED, "autoscaling": {"cloudWatch": CLOUDWATCH, "prometheus": PROMETHEUS}},
        },
        False,
    ),
    (CreateEndpointRequest, {**ENDPOINT, "kind": "managed", "managed": {**MANAGED, "autoscaling": {}}}, False),
    (
        CreateEndpointRequest,
        {
            **ENDPOINT,
            "kind": "managed",
            "managed": {
                **MANAGED,
                "autoscaling": {"prometheus": {**PROMETHEUS, "serverAddress": "http://p.monitoring.svc:9090"}},
            },
        },
        False,
    ),
    (
        CreateEndpointRequest,
        {**ENDPOINT, "kind": "container", "container": {"worker": WORKER, "autoscaling": {"cloudWatch": CLOUDWATCH}}},
        False,
    ),
    (KvCacheSpec, {"l2": "redis", "redisUrl": "redis://redis.default.svc:6379"}, True),
    (KvCacheSpec, {"l2": "redis"}, False),
    (KvCacheSpec, {"l2": "tieredstorage", "redisUrl": "redis://redis.default.svc:6379"}, False),
    (KvCacheSpec, {"l2": "tieredstorage"}, True),
    (SubmitJobRequest, {**JOB, "image": "busybox", "command": ["true"]}, True),
    (SubmitJobRequest, {**JOB, "image": "busybox"}, False),
    (SubmitJobRequest, {**JOB, "recipe": "pytorch-torchrun", "image": "busybox", "command": ["true"]}, False),
    (SubmitJobRequest, {**JOB, "image": "busybox", "command": ["true"], "kind": "ray", "runPolicy": {}}, False),
    (SubmitJobRequest, {**JOB, "image": "busybox", "command": ["true"], "env": {"1_NOT_A_NAME": "x"}}, False),
    (SubmitJobRequest, {**JOB, "image": "busybox", "command": ["true"], "env": {"HF_HOME": "/tmp"}}, True),
    (LogMonitoringRule, {"name": "r", "logPattern": "x", "metricThreshold": 1}, False),
    (LogMonitoringRule, {"name": "r", "logPattern": "x", "metricThreshold": 1, "operator": "gt"}, True),
    (TeamRequest, {"resources": [{"instanceType": "ml.p5.48xlarge", "count": 1}], "borrowLimit": 50}, True),
    (
        TeamRequest,
        {"resources": [{"instanceType": "ml.p5.48xlarge", "count": 1}], "sharing": "DontLend", "borrowLimit": 50},
        False,
    ),
    (TeamRequest, {"resources": [{"instanceType": "ml.p5.48xlarge"}]}, False),
    (TeamRequest, {"resources": [{"instanceType": "ml.p5.48xlarge", "vCpu": 12.5}]}, True),
    (
        TeamRequest,
        {
            "resources": [{"instanceType": "ml.p5.48xlarge", "accelerators": 4}],
            "sharing": "Lend",
            "absoluteBorrowLimits": [{"instanceType": "ml.p5.48xlarge", "accelerators": 2}],
        },
        False,
    ),
    (AutoPatch, {"strategy": "DrainFirst", "maxBatchSize": {"type": "INSTANCE_COUNT", "value": 1}}, True),
    (AutoPatch, {"strategy": "DrainFirst", "maxBatchSize": None}, False),
    (AutoPatch, {"strategy": "WhenIdle", "maxBatchSize": {"type": "INSTANCE_COUNT", "value": 1}}, False),
    (MoveNodesRequest, {**MOVE, "count": 2}, True),
    (MoveNodesRequest, {**MOVE, "nodeIds": ["i-0123456789abcdef0"], "count": None}, True),
    (MoveNodesRequest, {**MOVE, "count": None}, False),
    (MoveNodesRequest, {**MOVE, "count": 2, "nodeIds": ["i-0123456789abcdef0"]}, False),
    (TeamRequest, {"resources": [{"instanceType": "ml.p5.48xlarge", "acceleratorPartition": None}]}, False),
    (TeamRequest, {"resources": [{"instanceType": "ml.p5.48xlarge", "acceleratorPartition": PARTITION}]}, True),
    (SubmitJobRequest, {**JOB, "image": "busybox", "command": ["true"], "acceleratorPartition": PARTITION}, True),
    (
        SubmitJobRequest,
        {**JOB, "image": "busybox", "command": ["true"], "acceleratorPartition": PARTITION, "replicas": 2},
        False,
    ),
    (
        SubmitJobRequest,
        {**JOB, "image": "busybox", "command": ["true"], "acceleratorPartition": PARTITION, "kind": "ray"},
        False,
    ),
    (SubmitJobRequest, {**JOB, "image": "busybox", "command": ["true"], "topology": TOPOLOGY, "queue": "q"}, True),
    (SubmitJobRequest, {**JOB, "image": "busybox", "command": ["true"], "topology": TOPOLOGY}, False),
    (DownloadModelRequest, {"repoId": "Qwen/Qwen3-0.6B", "storageName": "models"}, True),
    (DownloadModelRequest, {"repoId": "a-.b", "storageName": "models"}, True),
    (DownloadModelRequest, {"repoId": "a--b", "storageName": "models"}, False),
    (DownloadModelRequest, {"repoId": "Qwen/Qwen3-0.6B", "revision": "v1..0", "storageName": "models"}, False),
    (DownloadModelRequest, {"repoId": "Qwen/Qwen3-0.6B", "hfToken": "hf_abcdefgh", "storageName": "models"}, True),
    (DownloadModelRequest, {"repoId": "Qwen/Qwen3-0.6B", "hfToken": "hf_abcdéfgh", "storageName": "models"}, False),
]


@pytest.mark.parametrize(
    ("model", "body", "taken"), ROWS, ids=[f"{m.__name__}-{i}" for i, (m, _, _) in enumerate(ROWS)]
)
def test_the_document_takes_the_bodies_the_api_takes(model: type[BaseModel], body: dict[str, Any], taken: bool):
    assert _model_takes(model, body) is taken
    assert _document_takes(model.__name__, body) is taken


def test_a_replace_or_delete_states_the_data_loss_acknowledgement_it_needs():
    # The use case refuses without it, in words (usecases.nodes); the document and the MCP tool require true.
    base = {"nodeIds": ["i-0123456789abcdef0"]}
    assert _document_takes("DestructiveNodeActionRequest", {**base, "acknowledgeDataLoss": True})
    assert not _document_takes("DestructiveNodeActionRequest", {**base, "acknowledgeDataLoss": False})
    assert not _document_takes("DestructiveNodeActionRequest", base)
    tool = tool_for(entry("replace_nodes"))
    assert "acknowledgeDataLoss" in tool.inputSchema["required"]
    assert tool.inputSchema["properties"]["acknowledgeDataLoss"]["const"] is True


def test_a_recipe_states_its_kind_and_its_storage_claim():
    # domain.jobs.rules.recipe_for refuses these after the model; the document states them.
    recipe = {**JOB, "recipe": "verl-ppo", "storageClaim": "data"}
    assert _document_takes("SubmitJobRequest", {**recipe, "kind": "ray"})
    assert not _document_takes("SubmitJobRequest", recipe)  # kind pytorch, the default
    assert not _document_takes("SubmitJobRequest", {**JOB, "recipe": "pytorch-torchrun"})
    assert _document_takes("SubmitJobRequest", {**JOB, "recipe": "pytorch-torchrun", "storageClaim": "data"})


def test_an_optional_body_is_an_object_when_sent():
    for path, method in (
        ("/api/clusters/{name}/software-update", "post"),
        ("/api/clusters/{name}/dependencies", "post"),
        ("/api/operations/{operationId}/cancel", "post"),
    ):
        body = DOCUMENT["paths"][path][method]["requestBody"]
        assert not body.get("required")
        assert "null" not in json.dumps(body["content"]["application/json"]["schema"])


_PATH_CHARS = st.text(alphabet="ab1_-./", max_size=12)


@settings(max_examples=300, deadline=None)
@given(_PATH_CHARS)
def test_each_pattern_in_the_document_is_the_validator_it_stands_for(text: str):
    for annotated, schema_of in (
        (RepoId, lambda s: s["pattern"]),
        (Revision, lambda s: s["pattern"]),
        (ModelPath, lambda s: s["pattern"]),
        (S3Prefix, lambda s: s["pattern"]),
    ):
        adapter = TypeAdapter(annotated)
        documented = re.fullmatch(schema_of(adapter.json_schema()), text) is not None
        try:
            adapter.validate_python(text)
            validated = True
        except ValidationError:
            validated = False
        assert documented is validated, (annotated, text)


_RAISED = re.compile(r'rule=f?"([^"{]+)|refused\(\s*"([^"]+)"')


def _rules_raised() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "functions" / "launchpod").rglob("*.py"):
        for match in _RAISED.finditer(path.read_text(encoding="utf-8")):
            found.add((match.group(1) or match.group(2)).removesuffix("_"))
    return found


def test_every_refusal_the_code_raises_is_stated_by_the_document_or_listed_once():
    unlisted = {r for r in _rules_raised() if refusals.refusal_of(r) is None and r not in refusals.STATED_BY_SCHEMA}
    assert unlisted == set()


def test_every_listed_refusal_is_one_the_code_raises_and_the_document_names():
    assert set(refusals.REFUSALS) - _rules_raised() == set()
    described = DOCUMENT["paths"]["/api/clusters"]["post"]["responses"]["422"]["description"]
    assert all(rule in described for rule in refusals.REFUSALS)
