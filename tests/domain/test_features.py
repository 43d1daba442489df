"""Managed features planned against the real cluster: cert-manager first for the training operator,
the whole checkpoint identity chain (and only it) for tiered checkpointing, nothing when they match,
and only what Launchpod created removed."""

from __future__ import annotations

import pytest
from launchpod.adapters.aws.sagemaker import hyperpod_cluster_of
from launchpod.contracts.features import UpdateFeaturesInput
from launchpod.domain import features, ownership
from launchpod.domain.clusters.eks_addon import AddonIssue, EksAddon
from launchpod.domain.errors import Conflict

OURS = ownership.aws_tags("c1", "launchpod")
OPERATOR, GOVERNANCE = "amazon-sagemaker-hyperpod-training-operator", "amazon-sagemaker-hyperpod-taskgovernance"
IN_SERVICE = {"ClusterStatus": "InService", "ClusterArn": "arn:aws:sagemaker:us-east-1:123456789012:cluster/abc"}


def _real(**kw) -> features.RealState:
    """``hyperpod``: DescribeCluster's answer, read as the adapter reads it."""
    base = {"cluster": "c1", "addons": {}, "hyperpod": IN_SERVICE, "checkpoint_account": None, "checkpoint_role": None}
    real = base | kw
    described = real.pop("hyperpod")
    return features.RealState(**real, hyperpod=hyperpod_cluster_of(described) if described is not None else None)


def _plan(body: dict, real: features.RealState) -> list[tuple[str, str, str | None]]:
    steps = features.plan(UpdateFeaturesInput(name="c1", **body), real).steps
    return [(s.action, s.target, s.phase) for s in steps]


def test_enabling_the_training_operator_installs_cert_manager_first():
    steps = _plan({"trainingOperator": {"enabled": True}}, _real())
    assert steps[0] == ("install", "EKS add-on cert-manager", "CertManager")
    assert steps[-1][1].startswith("EKS add-on amazon-sagemaker-hyperpod-training-operator v")


def test_with_cert_manager_active_the_plan_does_not_touch_it():
    steps = _plan(
        {"trainingOperator": {"enabled": True}}, _real(addons={"cert-manager": EksAddon("cert-manager", "ACTIVE")})
    )
    assert "EKS add-on cert-manager" not in [t for _, t, _ in steps]


def test_a_broken_cert_manager_refuses_the_training_operator_naming_it():
    broken = EksAddon("cert-manager", "CREATE_FAILED", issues=(AddonIssue("AccessDenied", "no"),))
    with pytest.raises(Conflict, match="cert-manager, which is cert-manager is CREATE_FAILED"):
        _plan({"trainingOperator": {"enabled": True}}, _real(addons={"cert-manager": broken}))


def test_an_installed_operator_is_noop_and_one_not_ours_is_not_removed():
    mine = {
        "amazon-sagemaker-hyperpod-training-operator": EksAddon(
            "amazon-sagemaker-hyperpod-training-operator", "ACTIVE", tags=OURS
        )
    }
    assert _plan({"trainingOperator": {"enabled": True}}, _real(addons=mine)) == []
    assert [a for a, _, _ in _plan({"trainingOperator": {"enabled": False}}, _real(addons=mine))] == [
        "delete",
        "delete",
    ]
    theirs = {
        "amazon-sagemaker-hyperpod-training-operator": EksAddon("amazon-sagemaker-hyperpod-training-operator", "ACTIVE")
    }
    with pytest.raises(Conflict, match="not installed by Launchpod"):
        _plan({"trainingOperator": {"enabled": False}}, _real(addons=theirs))


def test_tiered_checkpointing_plans_the_identity_chain_then_update_cluster():
    steps = _plan({"tieredCheckpointing": {"enabled": True}}, _real())
    assert [(a, p) for a, _, p in steps] == [
        ("create", "CheckpointIdentity"),
        ("create", "CheckpointIdentity"),
        ("update", "TieredStorage"),
    ]
    assert steps[0][1] == "IAM role launchpod-c1-checkpoints"
    assert steps[1][1] == "ServiceAccount default/launchpod-checkpoints"


def test_tiered_checkpointing_on_with_its_chain_is_noop_unless_the_share_changes():
    account = features.service_account("c1", "arn:aws:iam::123456789012:role/launchpod-c1-checkpoints")
    on = {**IN_SERVICE, "TieredStorageConfig": {"Mode": "Enable", "InstanceMemoryAllocationPercentage": 20}}
    real = _real(hyperpod=on, checkpoint_account=account, checkpoint_role="arn:role")
    assert _plan({"tieredCheckpointing": {"enabled": True}}, real) == []
    assert _plan({"tieredCheckpointing": {"enabled": True, "memoryPercentage": 20}}, real) == []
    assert _plan({"tieredCheckpointing": {"enabled": True, "memoryPercentage": 30}}, real) == [
        ("update", "HyperPod TieredStorageConfig", "TieredStorage")
    ]
    off = _plan({"tieredCheckpointing": {"enabled": False}}, real)
    assert [a for a, _, _ in off] == ["update", "delete", "delete"]


def test_disabling_leaves_a_service_account_launchpod_did_not_make():
    theirs = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "launchpod-checkpoints"}}
    assert _plan({"tieredCheckpointing": {"enabled": False}}, _real(checkpoint_account=theirs)) == []


def test_tiered_checkpointing_needs_a_hyperpod_cluster():
    with pytest.raises(Conflict, match="no HyperPod cluster") as refused:
        _plan({"tieredCheckpointing": {"enabled": True}}, _real(hyperpod=None))
    assert refused.value.details[0]["field"] == "body.tieredCheckpointing"


def test_the_checkpoint_policy_reaches_only_the_clusters_prefix():
    policy = features.checkpoint_policy("bucket", "c1")
    s3 = [s for s in policy["Statement"] if any(a.startswith("s3:") for a in s["Action"])]
    assert [s["Resource"] for s in s3] == ["arn:aws:s3:::bucket", "arn:aws:s3:::bucket/checkpoints/c1/*"]
    assert s3[0]["Condition"] == {"StringLike": {"s3:prefix": ["checkpoints/c1/*"]}}
    # and the metrics AWS's setup page says training pods push
    assert [s["Action"] for s in policy["Statement"] if s not in s3] == [["cloudwatch:PutMetricData"]]


def test_the_checkpoint_role_trusts_the_checkpoint_account_in_any_namespace_of_this_cluster_only():
    trust = features.checkpoint_trust("arn:aws:iam::1:oidc-provider/oidc.eks/id/X", "oidc.eks/id/X")
    condition = trust["Statement"][0]["Condition"]
    assert condition == {
        "StringLike": {"oidc.eks/id/X:sub": "system:serviceaccount:*:launchpod-checkpoints"},
        "StringEquals": {"oidc.eks/id/X:aud": "sts.amazonaws.com"},
    }


def test_the_workflow_records_the_plan_and_not_dry_run():
    request = UpdateFeaturesInput(name="c1", tieredCheckpointing={"enabled": True}, dryRun=True)
    made = features.workflow(request, features.plan(request, _real()))
    assert "dryRun" not in made.request and len(made.steps) == 3 and made.kind == "configure-features"


def test_task_governance_is_one_add_on_step_and_needs_hyperpod():
    assert _plan({"taskGovernance": {"enabled": True}}, _real()) == [
        ("create", "EKS add-on amazon-sagemaker-hyperpod-taskgovernance v1.6.0-eksbuild.1", "TaskGovernance")
    ]
    with pytest.raises(Conflict, match="no HyperPod cluster"):
        _plan({"taskGovernance": {"enabled": True}}, _real(hyperpod=None))
    mine = {
        "amazon-sagemaker-hyperpod-taskgovernance": EksAddon(
            "amazon-sagemaker-hyperpod-taskgovernance", "ACTIVE", tags=OURS
        )
    }
    assert _plan({"taskGovernance": {"enabled": True}}, _real(addons=mine)) == []
    assert [a for a, _, _ in _plan({"taskGovernance": {"enabled": False}}, _real(addons=mine))] == ["delete"]


def test_autoscaling_is_read_back_with_its_status_and_failure_message():
    failing = {
        **IN_SERVICE,
        "AutoScaling": {
            "Mode": "Enable",
            "AutoScalerType": "Karpenter",
            "Status": "Failed",
            "FailureMessage": "ClusterRole may not BatchAddClusterNodes",
        },
    }
    view = {v.name: v for v in features.views(_real(hyperpod=failing))}["autoscaling"]
    assert (view.enabled, view.status, view.note) == (True, "Failed", "ClusterRole may not BatchAddClusterNodes")
    assert view.changedWith == "Autoscaling, in the cluster's instance groups"
    off = {v.name: v for v in features.views(_real())}["autoscaling"]
    assert (off.enabled, off.status) == (False, "DISABLED")


def test_enabling_inference_installs_the_fsx_csi_driver_it_fails_without_then_its_role_and_values():
    installed = {n: EksAddon(n, "ACTIVE") for n in ("cert-manager", "aws-mountpoint-s3-csi-driver", "metrics-server")}
    steps = _plan({"inferenceOperator": {"enabled": True}}, _real(addons=installed))
    assert steps[0][:2] == ("install", "EKS add-on aws-fsx-csi-driver")
    assert all(p == "InferenceOperator" for _, _, p in steps)
    role, addon = features.plan(
        UpdateFeaturesInput(name="c1", inferenceOperator={"enabled": True}), _real(addons=installed)
    ).steps[1:]
    assert "IRSA" in role.reason and "UpdateClusterInference" in role.reason
    assert "executionRoleArn, tlsCertificateS3Bucket" in addon.reason


def test_enabling_inference_with_the_fsx_csi_driver_installed_plans_no_install_of_it():
    installed = {
        n: EksAddon(n, "ACTIVE")
        for n in ("cert-manager", "aws-mountpoint-s3-csi-driver", "metrics-server", "aws-fsx-csi-driver")
    }
    steps = _plan({"inferenceOperator": {"enabled": True}}, _real(addons=installed))
    assert "EKS add-on aws-fsx-csi-driver" not in [t for _, t, _ in steps]
