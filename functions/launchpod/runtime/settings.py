"""Settings: the only module that reads the environment.

Every Lambda gets the same keys (the sandbox runs all handlers in one process, so keys must not
mean different things to different functions).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache

from pydantic import BaseModel, Field, field_validator


def shared_bucket_name(prefix: str, *where: str) -> str:
    """The shared bucket's name, the one place it is composed: ``sagemaker-<prefix>``, then what a deployment
    appends to make it unique (its account and region: S3 bucket names are global). It starts with
    "sagemaker-" because HyperPod reads lifecycle scripts from such buckets only: "Make sure that the S3 bucket
    path starts with s3://sagemaker-. The IAM role for SageMaker HyperPod has the managed
    AmazonSageMakerClusterInstanceRolePolicy attached, which allows access to S3 buckets with the specific prefix
    sagemaker-" (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterLifeCycleConfig.html)."""
    return "-".join(("sagemaker", prefix, *where))


class Settings(BaseModel):
    region: str = "us-east-1"
    operations_table: str = "launchpod-operations"
    clusters_table: str = "launchpod-clusters"
    runners_table: str = "launchpod-runners"
    connections_table: str = "launchpod-connections"
    idempotency_table: str = "launchpod-idempotency"
    preferences_table: str = "launchpod-preferences"
    incidents_table: str = "launchpod-incidents"
    notifications_table: str = "launchpod-notifications"
    # the deployment's SNS topic every notification is published to (docs/notifications.md)
    notifications_topic_arn: str | None = None
    # the web console's URL: every notification links to the page it is about
    console_url: str | None = None
    # webhooks on loopback addresses are refused (SSRF) except where this is set: the sandbox's seam,
    # so tests can receive on 127.0.0.1
    allow_loopback_webhooks: bool = False
    # plan-expiring: a training plan in use is told this many hours before its end, once per threshold
    # ("72,24": three days before and again one day before; docs/notifications.md)
    plan_expiring_hours: list[int] = Field(default_factory=lambda: [24])
    # workflow name -> state machine ARN (only the API needs it)
    workflows: dict[str, str] = Field(default_factory=dict)
    # the role Kubernetes-calling functions assume; it gets the EKS access entry in every cluster
    kube_role_arn: str | None = None
    # prefix of every AWS resource name Launchpod creates in the user's account
    resource_prefix: str = "launchpod"
    # the permissions boundary every role Launchpod creates carries (its IAM grants require it)
    role_boundary_arn: str | None = None
    # the shared bucket: lifecycle scripts, models, datasets, checkpoints (deployments name it
    # shared_bucket_name(prefix, account, region); this default is the prefix's name alone)
    bucket: str = shared_bucket_name("launchpod")
    # optional endpoint override for every boto3 client (a seam for emulators; unset on AWS)
    aws_endpoint_url: str | None = None
    # optional endpoint of SageMaker managed MLflow's REST API (the sagemaker-mlflow plugin's
    # SAGEMAKER_MLFLOW_CUSTOM_ENDPOINT; unset on AWS: https://<region>.experiments.sagemaker.aws)
    mlflow_endpoint_url: str | None = None
    # optional base URL in place of https://aps-workspaces.<region>.amazonaws.com for Amazon Managed
    # Prometheus workspaces' query API (a seam for emulators; unset on AWS)
    amp_endpoint_url: str | None = None
    # the OIDC issuer (a Cognito user pool URL or your own IdP) and audience (its client id) of user
    # tokens; checked by the WebSocket authorizer, and by the REST authorizer with your own IdP
    jwt_issuer: str | None = None
    jwt_audience: str | None = None
    # the token claim naming the user's groups ("groups" for Okta or Entra ID)
    jwt_groups_claim: str = "cognito:groups"
    version: str = "0.1.0"

    @field_validator("plan_expiring_hours", mode="before")
    @classmethod
    def _hours(cls, value: object) -> object:
        return [int(h) for h in value.split(",") if h.strip()] if isinstance(value, str) else value


ENV_KEYS = {
    "region": "AWS_REGION",
    "operations_table": "LAUNCHPOD_OPERATIONS_TABLE",
    "clusters_table": "LAUNCHPOD_CLUSTERS_TABLE",
    "runners_table": "LAUNCHPOD_RUNNERS_TABLE",
    "connections_table": "LAUNCHPOD_CONNECTIONS_TABLE",
    "idempotency_table": "LAUNCHPOD_IDEMPOTENCY_TABLE",
    "preferences_table": "LAUNCHPOD_PREFERENCES_TABLE",
    "incidents_table": "LAUNCHPOD_INCIDENTS_TABLE",
    "notifications_table": "LAUNCHPOD_NOTIFICATIONS_TABLE",
    "notifications_topic_arn": "LAUNCHPOD_NOTIFICATIONS_TOPIC_ARN",
    "console_url": "LAUNCHPOD_CONSOLE_URL",
    "allow_loopback_webhooks": "LAUNCHPOD_ALLOW_LOOPBACK_WEBHOOKS",
    "plan_expiring_hours": "LAUNCHPOD_PLAN_EXPIRING_HOURS",
    "workflows": "LAUNCHPOD_WORKFLOWS",
    "kube_role_arn": "LAUNCHPOD_KUBE_ROLE_ARN",
    "resource_prefix": "LAUNCHPOD_RESOURCE_PREFIX",
    "role_boundary_arn": "LAUNCHPOD_ROLE_BOUNDARY_ARN",
    "bucket": "LAUNCHPOD_BUCKET",
    "jwt_issuer": "LAUNCHPOD_JWT_ISSUER",
    "jwt_audience": "LAUNCHPOD_JWT_AUDIENCE",
    "jwt_groups_claim": "LAUNCHPOD_JWT_GROUPS_CLAIM",
    "aws_endpoint_url": "LAUNCHPOD_AWS_ENDPOINT_URL",
    "mlflow_endpoint_url": "LAUNCHPOD_MLFLOW_ENDPOINT_URL",
    "amp_endpoint_url": "LAUNCHPOD_AMP_ENDPOINT_URL",
}


@lru_cache(maxsize=1)
def settings() -> Settings:
    values: dict[str, object] = {}
    for field, key in ENV_KEYS.items():
        raw = os.environ.get(key) or (os.environ.get("AWS_DEFAULT_REGION") if field == "region" else None)
        if raw:
            values[field] = json.loads(raw) if field == "workflows" else raw
    return Settings.model_validate(values)
