"""STS: who Launchpod is, as an IAM principal an EKS access entry can name."""

from __future__ import annotations

import re

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call


def caller_principal_arn() -> str:
    """The caller as an IAM ARN: an assumed-role session becomes its role (access entries name roles)."""
    with aws_call("sts:GetCallerIdentity"):
        arn = str(client("sts").get_caller_identity()["Arn"])
    match = re.match(r"^arn:(aws[\w-]*):sts::(\d{12}):assumed-role/([^/]+)/.+$", arn)
    if match:
        partition, account, role = match.groups()
        return f"arn:{partition}:iam::{account}:role/{role}"
    return arn
