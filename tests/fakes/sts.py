"""STS in memory: the CallerIdentity port (adapters.aws.sts)."""

from __future__ import annotations

import re


class CallerIdentity:
    """Who Launchpod runs as: ``caller`` is GetCallerIdentity's Arn; an assumed-role session is named by its role,
    as an EKS access entry names it."""

    def __init__(self, caller: str = "arn:aws:iam::123456789012:role/launchpod-api") -> None:
        self.caller = caller

    def caller_principal_arn(self) -> str:
        match = re.match(r"^arn:(aws[\w-]*):sts::(\d{12}):assumed-role/([^/]+)/.+$", self.caller)
        return f"arn:{match[1]}:iam::{match[2]}:role/{match[3]}" if match else self.caller
