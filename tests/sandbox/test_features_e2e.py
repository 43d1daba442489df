"""Managed features through the sandbox: tiered checkpointing's whole identity chain (a pod with its
service account reaches the checkpoint prefix and nothing else), removed again; the training operator
installed after cert-manager; a second identical PATCH is NOOP; dryRun starts nothing."""

from __future__ import annotations

import pytest
from kubernetes import client as k8s

from tests.sandbox.aws.support import wait_until
from tests.sandbox.clusters import cluster_body

pytestmark = pytest.mark.e2e

NAME = "e2e-feat"
BUCKET = "sagemaker-launchpod-123456789012-us-east-1"
BODY = cluster_body(NAME, {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 1})
ROLE = f"launchpod-{NAME}-checkpoints"
OPERATOR = "amazon-sagemaker-hyperpod-training-operator"


@pytest.fixture(scope="module")
def cluster(sandbox):
    sandbox.provision(BODY)
    return NAME


def _patch(sandbox, body: dict, dry_run: bool = False):
    with sandbox.client() as c:
        return c.patch(f"/api/clusters/{NAME}/features", json=body, params={"dryRun": "true"} if dry_run else None)


def _features(sandbox) -> dict[str, dict]:
    with sandbox.client("viewer") as c:
        response = c.get(f"/api/clusters/{NAME}/features")
    assert response.status_code == 200, response.text
    return {f["name"]: f for f in response.json()["items"]}


def _as_pod(sandbox, operation: str, params: dict, service_account: str = "launchpod-checkpoints") -> dict:
    with sandbox.client() as c:
        response = c.post(
            "/api/sandbox/pods/aws-call",
            json={
                "cluster": NAME,
                "namespace": "default",
                "serviceAccount": service_account,
                "service": "s3",
                "operation": operation,
                "params": params,
            },
        )
    assert response.status_code == 200, response.text
    return dict(response.json())


def _operations(sandbox) -> list[dict]:
    with sandbox.client("viewer") as c:
        return list(c.get("/api/operations", params={"cluster": NAME}).json()["items"])


def test_tiered_checkpointing_builds_the_identity_chain_and_removes_it(sandbox, cluster):
    on = {"tieredCheckpointing": {"enabled": True, "memoryPercentage": 25}}
    before = len(_operations(sandbox))
    dry = _patch(sandbox, on, dry_run=True)
    assert dry.status_code == 200, dry.text
    plan = dry.json()
    assert plan["status"] == "PLANNED"
    assert [(s["action"], s["target"].split(" ")[0]) for s in plan["steps"]] == [
        ("create", "IAM"),
        ("create", "ServiceAccount"),
        ("update", "HyperPod"),
    ]
    assert all(s["reason"] for s in plan["steps"])
    assert len(_operations(sandbox)) == before  # dryRun started nothing

    response = _patch(sandbox, on)
    assert response.status_code == 202, response.text
    operation = response.json()["operation"]
    assert [s["target"] for s in operation["plan"]] == [s["target"] for s in plan["steps"]]
    done = sandbox.wait_operation(operation["id"], timeout=60)
    assert done["status"] == "SUCCEEDED", done
    assert [p["status"] for p in done["phases"]] == [
        "SKIPPED",
        "SKIPPED",
        "SUCCEEDED",
        "SUCCEEDED",
        "SKIPPED",
        "SKIPPED",
        "SKIPPED",
        "SKIPPED",  # HyperPod observability
    ]

    described = sandbox.aws("sagemaker").describe_cluster(ClusterName=NAME)
    assert described["TieredStorageConfig"] == {"Mode": "Enable", "InstanceMemoryAllocationPercentage": 25}
    iam = sandbox.aws("iam")
    role = iam.get_role(RoleName=ROLE)["Role"]
    trust = role["AssumeRolePolicyDocument"]["Statement"][0]
    assert trust["Action"] == "sts:AssumeRoleWithWebIdentity"
    # the checkpoint account in any namespace: jobs get a copy of it in theirs
    subjects = [v for k, v in trust["Condition"]["StringLike"].items() if k.endswith(":sub")]
    assert subjects == ["system:serviceaccount:*:launchpod-checkpoints"]
    account = k8s.CoreV1Api(sandbox.kube(NAME)).read_namespaced_service_account("launchpod-checkpoints", "default")
    assert account.metadata.annotations["eks.amazonaws.com/role-arn"] == role["Arn"]
    assert _features(sandbox)["tieredCheckpointing"]["enabled"] is True

    key = f"checkpoints/{NAME}/step-100/rank0.pt"
    written = _as_pod(sandbox, "PutObject", {"Bucket": BUCKET, "Key": key, "Body": "weights"})
    assert written["allowed"] is True and written["via"] == "irsa", written
    read = _as_pod(sandbox, "GetObject", {"Bucket": BUCKET, "Key": key})
    assert read["allowed"] is True and read["result"]["Body"] == "weights"
    listed = _as_pod(sandbox, "ListObjectsV2", {"Bucket": BUCKET, "Prefix": f"checkpoints/{NAME}/"})
    assert [o["Key"] for o in listed["result"]["Contents"]] == [key]
    # nothing else: another prefix of the same bucket, listing the whole bucket, another cluster's checkpoints
    for operation_name, params in [
        ("GetObject", {"Bucket": BUCKET, "Key": "datasets/mnist/train.csv"}),
        ("PutObject", {"Bucket": BUCKET, "Key": "checkpoints/other-cluster/x", "Body": "x"}),
        ("ListObjectsV2", {"Bucket": BUCKET}),
    ]:
        refused = _as_pod(sandbox, operation_name, params)
        assert refused["allowed"] is False and "is not authorized to perform" in refused["message"], refused
    assert _as_pod(sandbox, "GetObject", {"Bucket": BUCKET, "Key": key}, service_account="default")["allowed"] is False

    again = _patch(sandbox, on)
    assert again.status_code == 200 and again.json()["status"] == "NOOP", again.text

    off = _patch(sandbox, {"tieredCheckpointing": {"enabled": False}})
    assert off.status_code == 202, off.text
    assert sandbox.wait_operation(off.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
    described = sandbox.aws("sagemaker").describe_cluster(ClusterName=NAME)
    assert described["TieredStorageConfig"]["Mode"] == "Disable"
    assert ROLE not in sandbox.role_names()
    names = [
        a.metadata.name for a in k8s.CoreV1Api(sandbox.kube(NAME)).list_namespaced_service_account("default").items
    ]
    assert "launchpod-checkpoints" not in names
    gone = _as_pod(sandbox, "GetObject", {"Bucket": BUCKET, "Key": key})
    assert gone["allowed"] is False and "no pod identity association" in gone["message"]
    assert _patch(sandbox, {"tieredCheckpointing": {"enabled": False}}).json()["status"] == "NOOP"


def _wait_addon_gone(sandbox, name: str) -> None:
    eks = sandbox.aws("eks")
    wait_until(lambda: name not in eks.list_addons(clusterName=NAME)["addons"], 90, reason=f"{name} was not deleted")


def test_enabling_the_training_operator_installs_cert_manager_first(sandbox, cluster):
    # A cluster whose cert-manager was removed (for instance by hand): the plan installs it first.
    sandbox.aws("eks").delete_addon(clusterName=NAME, addonName="cert-manager")
    _wait_addon_gone(sandbox, "cert-manager")
    body = {"trainingOperator": {"enabled": True}}
    plan = _patch(sandbox, body, dry_run=True).json()
    assert plan["steps"][0]["target"] == "EKS add-on cert-manager", plan
    assert "needs cert-manager" in plan["steps"][0]["reason"]

    response = _patch(sandbox, body)
    assert response.status_code == 202, response.text
    done = sandbox.wait_operation(response.json()["operation"]["id"], timeout=60)
    assert done["status"] == "SUCCEEDED", done
    phases = {p["name"]: p for p in done["phases"]}
    assert phases["CertManager"]["status"] == "SUCCEEDED"
    assert phases["CertManager"]["endedAt"] <= phases["TrainingOperator"]["startedAt"]
    eks = sandbox.aws("eks")
    addon = eks.describe_addon(clusterName=NAME, addonName=OPERATOR)["addon"]
    assert addon["status"] == "ACTIVE", addon
    association = eks.describe_pod_identity_association(
        clusterName=NAME, associationId=addon["podIdentityAssociations"][0].rsplit("/", 1)[-1]
    )["association"]
    assert (association["namespace"], association["serviceAccount"]) == (
        "aws-hyperpod",
        "hp-training-operator-controller-manager",
    )
    feature = _features(sandbox)["trainingOperator"]
    # v1.2.0: the training operator checkpointless training needs (AWS's checkpointless training page)
    assert feature["enabled"] is True and feature["status"] == "ACTIVE" and feature["version"] == "v1.2.0-eksbuild.1"
    assert _patch(sandbox, body).json()["status"] == "NOOP"

    off = _patch(sandbox, {"trainingOperator": {"enabled": False}})
    assert off.status_code == 202, off.text
    assert sandbox.wait_operation(off.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
    assert OPERATOR not in eks.list_addons(clusterName=NAME)["addons"]
    assert "cert-manager" in eks.list_addons(clusterName=NAME)["addons"]  # a dependency stays
    assert _features(sandbox)["trainingOperator"]["enabled"] is False


def test_without_cert_manager_the_operator_add_on_is_degraded_naming_it(sandbox, cluster):
    """The sandbox's add-on physics: created directly without cert-manager, the operator is DEGRADED."""
    eks = sandbox.aws("eks")
    eks.delete_addon(clusterName=NAME, addonName="cert-manager")
    _wait_addon_gone(sandbox, "cert-manager")
    eks.create_addon(clusterName=NAME, addonName=OPERATOR)
    addon = wait_until(
        lambda: (a := eks.describe_addon(clusterName=NAME, addonName=OPERATOR)["addon"])["status"] != "CREATING" and a,
        90,
        reason=f"{OPERATOR} stayed CREATING",
    )
    assert addon["status"] == "DEGRADED"
    assert [i["code"] for i in addon["health"]["issues"]] == ["K8sResourceNotFound"]
    assert "cert-manager" in addon["health"]["issues"][0]["message"]
    # Launchpod did not install it, so disabling it is refused rather than deleting someone else's add-on
    refused = _patch(sandbox, {"trainingOperator": {"enabled": False}})
    assert refused.status_code == 409 and "not installed by Launchpod" in refused.json()["message"]
    eks.delete_addon(clusterName=NAME, addonName=OPERATOR)
    _wait_addon_gone(sandbox, OPERATOR)


def test_task_governance_add_on_is_installed_and_removed(sandbox, cluster):
    body = {"taskGovernance": {"enabled": True}}
    response = _patch(sandbox, body)
    assert response.status_code == 202, response.text
    assert [s["phase"] for s in response.json()["operation"]["plan"]] == ["TaskGovernance"]
    assert sandbox.wait_operation(response.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
    addon = sandbox.aws("eks").describe_addon(clusterName=NAME, addonName="amazon-sagemaker-hyperpod-taskgovernance")
    assert (addon["addon"]["status"], addon["addon"]["addonVersion"]) == ("ACTIVE", "v1.6.0-eksbuild.1")
    assert _features(sandbox)["taskGovernance"]["enabled"] is True
    assert _patch(sandbox, body).json()["status"] == "NOOP"
    off = _patch(sandbox, {"taskGovernance": {"enabled": False}})
    assert sandbox.wait_operation(off.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
    assert "amazon-sagemaker-hyperpod-taskgovernance" not in sandbox.aws("eks").list_addons(clusterName=NAME)["addons"]
