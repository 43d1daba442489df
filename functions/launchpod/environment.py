"""The environment variables each Lambda function is deployed with: one source for the CDK stack and
the sandbox, so a function never runs in the sandbox with a key it would not have on AWS.

Every function gets the table names, the kube-access role, the resource prefix, the shared bucket and
the permissions boundary; only the functions that start workflows get the state machines' ARNs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from launchpod.registry import FunctionSpec
from launchpod.runtime.settings import ENV_KEYS


@dataclass(frozen=True)
class DeployedNames:
    """The names and ARNs a deployment gives its resources (CDK tokens on AWS, literals in the sandbox)."""

    tables: dict[str, str]  # registry table key -> table name
    kube_role_arn: str
    prefix: str
    bucket: str
    boundary_arn: str
    workflows: dict[str, str]  # workflow name -> state machine ARN
    notifications_topic_arn: str = ""  # the deployment's SNS topic (docs/notifications.md)


def function_environment(spec: FunctionSpec, names: DeployedNames) -> dict[str, str]:
    # the names of the tables it is granted (spec.tables: its role's DynamoDB statements), as it can read no other
    env = {ENV_KEYS[f"{key}_table"]: name for key, name in names.tables.items() if key in spec.tables}
    env |= {
        ENV_KEYS["kube_role_arn"]: names.kube_role_arn,
        ENV_KEYS["resource_prefix"]: names.prefix,
        ENV_KEYS["bucket"]: names.bucket,
        ENV_KEYS["role_boundary_arn"]: names.boundary_arn,
        "POWERTOOLS_SERVICE_NAME": names.prefix,
        "POWERTOOLS_METRICS_NAMESPACE": "Launchpod",
        "POWERTOOLS_LOG_LEVEL": "INFO",
    }
    if "notifications" in spec.tables:  # the functions that tell people (docs/notifications.md)
        env[ENV_KEYS["notifications_topic_arn"]] = names.notifications_topic_arn
    if spec.starts_workflows:
        env[ENV_KEYS["workflows"]] = json.dumps(names.workflows)
    return env
