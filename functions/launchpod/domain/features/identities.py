"""The managed features' identities: the IAM roles their pods assume (policies and IRSA trusts), the
checkpoint service account, the inference add-on's configuration values, and the manifest entries they
come from. Pure builders; ``launchpod.domain.features.plans`` plans with them."""

from __future__ import annotations

from functools import partial
from typing import Any

from launchpod.domain import ownership
from launchpod.domain.clusters.control_plane import resource_name
from launchpod.domain.dependencies import manifest

ROLE_ANNOTATION = "eks.amazonaws.com/role-arn"  # IRSA: the role the pod's web identity token assumes


def training_operator() -> Any:
    return manifest().features.trainingOperator


def inference_operator() -> Any:
    return manifest().features.inferenceOperator


def checkpointing() -> Any:
    return manifest().features.tieredCheckpointing


def task_governance() -> Any:
    return manifest().features.taskGovernance


# The names of the roles the features' pods assume: name(prefix, cluster), as resource_name spells them.
inference_role_name = partial(resource_name, purpose="inference-operator")
operator_role_name = partial(resource_name, purpose="training-operator")
checkpoint_role_name = partial(resource_name, purpose="checkpoints")


def checkpoint_prefix(cluster: str) -> str:
    return f"{checkpointing().prefix}/{cluster}/"


CHECKPOINT_LABEL = "launchpod.io/feature=tiered-checkpointing"


def service_account(cluster: str, role_arn: str | None, namespace: str | None = None) -> dict[str, Any]:
    """The checkpoint service account (in the feature's namespace, or a job's); with ``role_arn`` annotated
    for IRSA. A job's pods run as it in their own namespace: a pod can only use a service account of its
    namespace (https://kubernetes.io/docs/concepts/security/service-accounts/)."""
    c = checkpointing()
    meta: dict[str, Any] = {
        "name": c.serviceAccount,
        "namespace": namespace or c.namespace,
        "labels": {**ownership.K8S_LABELS, "launchpod.io/feature": "tiered-checkpointing"},
    }
    if role_arn:
        meta["annotations"] = {ROLE_ANNOTATION: role_arn}
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta}


def checkpoint_policy(bucket: str, cluster: str) -> dict[str, Any]:
    """S3 access to this cluster's checkpoint prefix of the shared bucket, and nothing else."""
    prefix = checkpoint_prefix(cluster)
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": ["s3:ListBucket"],
                "Resource": f"arn:aws:s3:::{bucket}",
                "Condition": {"StringLike": {"s3:prefix": [f"{prefix}*"]}},
            },
            {
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
                "Resource": f"arn:aws:s3:::{bucket}/{prefix}*",
            },
            {
                # "CloudWatch and S3 write permissions for the training pod to read/write checkpoints and
                # push metrics" (https://docs.aws.amazon.com/sagemaker/latest/dg/managed-tier-checkpointing-setup.html);
                # PutMetricData takes no resource (Service Authorization Reference, CloudWatch).
                "Effect": "Allow",
                "Action": ["cloudwatch:PutMetricData"],
                "Resource": "*",
            },
        ],
    }


def irsa_trust(provider_arn: str, condition: dict[str, Any]) -> dict[str, Any]:
    """A role assumed through IRSA: web identity tokens of the cluster's OIDC provider that meet ``condition``
    (https://docs.aws.amazon.com/eks/latest/userguide/associate-service-account-role.html)."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Federated": provider_arn},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": condition,
            }
        ],
    }


def checkpoint_trust(provider_arn: str, issuer_host: str) -> dict[str, Any]:
    """IRSA trust: only the checkpoint service accounts' web identity tokens from this cluster's issuer.
    The checkpoint service account in any namespace: jobs run in theirs, and each gets its own copy of the
    account (a pod can use only its namespace's). Making a service account of that name already takes the
    right to create service accounts in the namespace, and the role reaches only this cluster's checkpoint
    prefix."""
    c = checkpointing()
    return irsa_trust(
        provider_arn,
        {
            "StringLike": {f"{issuer_host}:sub": f"system:serviceaccount:*:{c.serviceAccount}"},
            "StringEquals": {f"{issuer_host}:aud": "sts.amazonaws.com"},
        },
    )


def operator_policy(cluster_arn: str | None) -> dict[str, Any]:
    """What AmazonSageMakerHyperPodTrainingOperatorAccess grants the operator: reading its cluster's nodes."""
    return {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": ["sagemaker:DescribeClusterNode"], "Resource": cluster_arn or "*"}],
    }


def inference_policy(cluster_arn: str | None, bucket: str) -> dict[str, Any]:
    """The inference operator's execution role, narrowed to this cluster and the shared bucket, as AWS's
    pages list it: S3 reads and writes on the TLS certificate bucket (tlsCertificateS3Bucket is the shared
    bucket, which also holds the models an s3 modelSourceType reads) with PutObjectTagging ("SageMaker
    HyperPod Inference release notes" v3.0, sagemaker-hyperpod-inference-release-notes.html), ECR pulls
    with GetAuthorizationToken ("Inference operator fails to start",
    https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-ts-startup.html),
    sagemaker:UpdateClusterInference, the call its watcher makes at start ("IAM trust relationship issue",
    https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-ts-trust.html) with
    DescribeClusterInference, and its nodes. Its KEDA reads the CloudWatch metrics a managed endpoint's
    cloudWatchTrigger names (cloudwatch:GetMetricData has no resource-level permissions: Resource "*").
    The full list in "Setting up your HyperPod clusters for model deployment" also covers SageMaker
    endpoints, ACM and load balancers, which Launchpod's endpoints do not use."""
    cluster = cluster_arn or "*"
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": [
                    "sagemaker:DescribeClusterNode",
                    "sagemaker:DescribeClusterInference",
                    "sagemaker:UpdateClusterInference",
                ],
                "Resource": cluster,
            },
            {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": f"arn:aws:s3:::{bucket}"},
            {
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:PutObjectTagging"],
                "Resource": f"arn:aws:s3:::{bucket}/*",
            },
            {"Effect": "Allow", "Action": ["ecr:GetAuthorizationToken"], "Resource": "*"},
            {
                "Effect": "Allow",
                "Action": ["ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:BatchCheckLayerAvailability"],
                "Resource": "*",
            },
            {"Effect": "Allow", "Action": ["cloudwatch:GetMetricData"], "Resource": "*"},
        ],
    }


#: The service account of the KEDA operator the inference add-on installs (KEDA's chart names it keda-operator,
#: kedacore/charts keda/values.yaml serviceAccount.operator.name); in the add-on's namespace (inferred: AWS
#: does not document where the add-on runs KEDA).
KEDA_SERVICE_ACCOUNT = "keda-operator"


def inference_trust(provider_arn: str, issuer_host: str) -> dict[str, Any]:
    """IRSA trust of the inference operator's execution role: only the web identity tokens of its controller's
    service account and of its KEDA operator's (which reads the CloudWatch metrics a managed endpoint scales
    on), from this cluster's issuer. AWS's pages have the operator assume the role through the cluster's OIDC
    provider (sts:AssumeRoleWithWebIdentity, "IAM trust relationship issue",
    sagemaker-hyperpod-model-deployment-ts-trust.html); the page's StringLike is narrowed to StringEquals."""
    op = inference_operator()
    return irsa_trust(
        provider_arn,
        {
            "StringEquals": {
                f"{issuer_host}:sub": [
                    f"system:serviceaccount:{op.namespace}:{op.serviceAccount}",
                    f"system:serviceaccount:{op.namespace}:{KEDA_SERVICE_ACCOUNT}",
                ],
                f"{issuer_host}:aud": "sts.amazonaws.com",
            }
        },
    )


def inference_configuration(role_arn: str, bucket: str, cluster_arn: str | None) -> dict[str, Any]:
    """The add-on's configuration values: the two AWS requires (executionRoleArn, tlsCertificateS3Bucket) and
    the HyperPod cluster's ARN, which the operator otherwise reads from the labels of the node it runs on
    ("Inference operator installation failures through AWS CLI", sagemaker-hyperpod-model-deployment-ts-cli.html)."""
    values: dict[str, Any] = {
        "executionRoleArn": role_arn,
        "tlsCertificateS3Bucket": bucket,
        # KEDA's own IRSA role, as the add-on's examples pass it (keda.auth.aws.irsa): without one its
        # CloudWatch scaler has no credentials and a managed endpoint's cloudWatchTrigger scales nothing.
        # The execution role already reads CloudWatch metrics and trusts KEDA's service account.
        "keda": {"auth": {"aws": {"irsa": {"enabled": True, "roleArn": role_arn}}}},
    }
    if cluster_arn:
        values["hyperpodClusterArn"] = cluster_arn
    return values
