"""The InferenceOperator phase, against what AWS documents for the managed inference add-on: the FSx CSI
driver it fails without is installed first (with its pod identity role) and awaited; then an execution role
the operator assumes through the cluster's OIDC provider (IRSA), with S3 writes to the TLS bucket, ECR and
sagemaker:UpdateClusterInference; then the add-on with executionRoleArn, tlsCertificateS3Bucket and the
HyperPod cluster's ARN, checked against DescribeAddonConfiguration's schema first."""

from __future__ import annotations

import json

import pytest
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import features
from launchpod.domain.errors import PermanentError
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows import configure_features

from sandbox.aws.eks.catalog import INFERENCE_SCHEMA
from tests.entrypoints.fakes import phase_input
from tests.fakes.eks import Eks
from tests.fakes.iam import Iam
from tests.fakes.sagemaker import SageMaker

ADDON = "amazon-sagemaker-hyperpod-inference"
ISSUER = "https://oidc.eks.us-east-1.amazonaws.com/id/ABC"
PROVIDER = "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/ABC"
HYPERPOD_ARN = "arn:aws:sagemaker:us-east-1:123456789012:cluster/abc123"
ACTIVE = {"status": "ACTIVE", "health": {"issues": []}, "addonVersion": "v1"}
# What the sandbox's EKS serves for the add-on (from AWS's pages).
SCHEMA = INFERENCE_SCHEMA


@pytest.fixture
def fakes(monkeypatch) -> tuple[Eks, Iam]:
    control_plane = {"name": "c1", "status": "ACTIVE", "version": "1.34", "identity": {"oidc": {"issuer": ISSUER}}}
    installed = {n: dict(ACTIVE) for n in ("cert-manager", "aws-mountpoint-s3-csi-driver", "metrics-server")}
    eks, iam = Eks({"c1": control_plane}, {"c1": installed}), Iam()
    eks.schemas[ADDON] = SCHEMA
    iam.oidc_providers[ISSUER.removeprefix("https://")] = PROVIDER
    sagemaker = SageMaker({"c1": {"ClusterName": "c1", "ClusterArn": HYPERPOD_ARN}})
    monkeypatch.setattr(wiring, "eks", lambda: eks)
    monkeypatch.setattr(wiring, "iam", lambda: iam)
    monkeypatch.setattr(wiring, "sagemaker", lambda: sagemaker)
    return eks, iam


def _doc(poll: int = 0) -> WorkflowInput:
    return phase_input(
        "configure-features", {"name": "c1", "inferenceOperator": {"enabled": True}}, {"InferenceOperator": poll}
    )


def test_the_fsx_csi_driver_is_installed_and_awaited_before_the_inference_add_on(fakes):
    eks, _ = fakes
    first = configure_features.inference_operator(_doc())

    assert [c["name"] for c in eks.created] == ["aws-fsx-csi-driver"]
    assert eks.created[0]["identity"][0] == "fsx-csi-controller-sa"  # its pod identity, as reconcile gives it
    assert not first.ready and "aws-fsx-csi-driver" in first.message

    eks.addon_map["c1"]["aws-fsx-csi-driver"] = {
        "status": "DEGRADED",
        "health": {"issues": [{"code": "InsufficientNumberOfReplicas", "message": "m"}]},
    }  # rolled out, its controller waiting for nodes: its CSIDriver exists
    configure_features.inference_operator(_doc(poll=1))
    assert [c["name"] for c in eks.created] == ["aws-fsx-csi-driver", ADDON]


def test_the_inference_add_on_gets_its_required_values_and_no_pod_identity(fakes):
    eks, _ = fakes
    eks.addon_map["c1"]["aws-fsx-csi-driver"] = dict(ACTIVE)

    configure_features.inference_operator(_doc())

    created = eks.created[-1]
    role = "arn:aws:iam::123456789012:role/launchpod-c1-inference-operator"
    assert created["name"] == ADDON and created["identity"] is None
    assert created["configuration"] == {
        "executionRoleArn": role,
        "tlsCertificateS3Bucket": settings().bucket,
        "hyperpodClusterArn": HYPERPOD_ARN,
        # KEDA reads a managed endpoint's CloudWatch metrics as the execution role, through IRSA
        "keda": {"auth": {"aws": {"irsa": {"enabled": True, "roleArn": role}}}},
    }


def test_the_execution_role_is_assumed_through_irsa_by_the_operators_and_its_kedas_service_accounts_only(fakes):
    eks, iam = fakes
    eks.addon_map["c1"]["aws-fsx-csi-driver"] = dict(ACTIVE)

    configure_features.inference_operator(_doc())

    (statement,) = iam.trusts["launchpod-c1-inference-operator"]["Statement"]
    assert statement["Principal"] == {"Federated": PROVIDER}
    assert statement["Action"] == "sts:AssumeRoleWithWebIdentity"
    host = ISSUER.removeprefix("https://")
    assert statement["Condition"]["StringEquals"] == {
        f"{host}:sub": [
            "system:serviceaccount:hyperpod-inference-system:hyperpod-inference-operator-controller-manager",
            "system:serviceaccount:hyperpod-inference-system:keda-operator",  # its KEDA reads CloudWatch metrics
        ],
        f"{host}:aud": "sts.amazonaws.com",
    }


def test_the_execution_role_writes_tls_certificates_pulls_images_and_updates_cluster_inference(fakes):
    eks, iam = fakes
    eks.addon_map["c1"]["aws-fsx-csi-driver"] = dict(ACTIVE)

    configure_features.inference_operator(_doc())

    (document,) = iam.inline["launchpod-c1-inference-operator"].values()
    policy = json.dumps(document)
    granted = {a: s["Resource"] for s in document["Statement"] for a in s["Action"]}
    assert granted["sagemaker:UpdateClusterInference"] == HYPERPOD_ARN
    assert granted["s3:PutObject"] == f"arn:aws:s3:::{settings().bucket}/*"
    assert granted["ecr:GetAuthorizationToken"] == "*"
    assert "pods.eks.amazonaws.com" not in policy


def test_values_the_addons_schema_refuses_fail_the_phase_before_create_addon(fakes):
    eks, _ = fakes
    eks.addon_map["c1"]["aws-fsx-csi-driver"] = dict(ACTIVE)
    eks.schemas[ADDON] = {**SCHEMA, "required": [*SCHEMA["required"], "x"]}

    with pytest.raises(PermanentError, match=r"\$\.x: is required"):
        configure_features.inference_operator(_doc())
    assert [c["name"] for c in eks.created] == []


def test_without_the_clusters_oidc_provider_the_phase_says_how_to_make_it(fakes):
    eks, iam = fakes
    eks.addon_map["c1"]["aws-fsx-csi-driver"] = dict(ACTIVE)
    iam.oidc_providers.clear()

    with pytest.raises(PermanentError, match="no IAM OIDC provider"):
        configure_features.inference_operator(_doc())


def test_the_permissions_boundary_lets_the_execution_role_do_everything_its_policy_grants():
    """Every role Launchpod creates carries the boundary: an action the boundary lacks is denied to the
    operator however its own policy reads (IAM evaluates both)."""
    from launchpod import policies

    from sandbox.aws.iam.policy import AuthzRequest, evaluate
    from tests.sandbox.aws.test_iam_escalation import DEPLOYMENT

    cluster_arn = "arn:aws:sagemaker:us-east-1:123456789012:cluster/abc123"
    boundary = policies.boundary_document(DEPLOYMENT)["Statement"]
    for statement in features.inference_policy(cluster_arn, DEPLOYMENT.bucket)["Statement"]:
        resource = statement["Resource"].replace("*", "x") if statement["Resource"] != "*" else "*"
        for action in statement["Action"]:
            assert evaluate(boundary, AuthzRequest(action, resource)) == "Allow", action
