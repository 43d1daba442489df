"""Incidents: a node's health events folded into one record, and the remediation ladder's steps on it."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from launchpod.contracts.common import ClusterName, Contract
from launchpod.contracts.hyperpod import HyperPodInstanceType
from launchpod.contracts.naming import renamed

LadderPolicy = Literal["off", "suggest", "auto"]
IncidentState = Literal["open", "acting", "watching", "resolved", "stuck", "fleet-instability", "replacement-failed"]


class SuggestedCommand(Contract):
    """The next step as a person or an agent would run it: the MCP tool and its arguments, or REST."""

    action: Literal["investigate", "reboot", "replace", "alert"]
    tool: str | None = Field(default=None, examples=["reboot_nodes"])
    arguments: dict[str, Any] = Field(default_factory=dict)
    rest: str | None = Field(default=None, examples=["POST /api/clusters/ml-team-a/nodes/reboot"])
    why: str


class IncidentStep(Contract):
    at: datetime
    action: str = Field(description="investigate, reboot, replace, watch, alert or resolve")
    mode: Literal["recorded", "suggested", "ran", "blocked", "done", "failed"]
    note: str
    operationId: str | None = None


class IncidentView(Contract):
    id: str
    cluster: str
    nodeId: str = Field(description="the node now (a replacement takes over the incident)")
    nodes: list[str] = Field(description="every instance of the chain, first the one that failed")
    state: IncidentState
    faultType: str | None = None
    reason: str | None = None
    recommendation: str | None = None
    openedAt: datetime
    lastEventAt: datetime
    events: int = Field(description="health events received, duplicates included")
    duplicates: int
    reboots: int
    replacements: int
    nextStep: SuggestedCommand | None = None
    steps: list[IncidentStep]


class IncidentListView(Contract):
    cluster: str
    policy: LadderPolicy
    items: list[IncidentView]


class LadderPolicyRequest(Contract):
    policy: LadderPolicy = Field(
        description="off: incidents only; suggest (default): record the next command for a person or agent;"
        " auto: run it as an operation"
    )


class LadderPolicyInput(LadderPolicyRequest):
    name: ClusterName


class LadderPolicyView(Contract):
    cluster: str
    policy: LadderPolicy


class Finding(Contract):
    severity: Literal["info", "warning", "error"]
    title: str
    evidence: list[str] = Field(default_factory=list, description="what was read, verbatim where AWS said it")


class SuggestedStep(Contract):
    """A command for a person or an agent to run after approval; diagnostics never run one."""

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    rest: str | None = None
    why: str
    mutates: bool = True


class DiagnosisView(Contract):
    subject: str = Field(examples=["node i-0123456789abcdef0 of ml-team-a"])
    cause: str | None = Field(default=None, description="the most likely cause, when the evidence names one")
    findings: list[Finding]
    suggestions: list[SuggestedStep] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list, description="what this diagnosis could not look at")


class DiagnoseCreationInput(Contract):
    name: ClusterName
    instanceTypes: list[HyperPodInstanceType] | None = Field(
        default=None, max_length=10, description="check capacity for these types (default: the cluster's)"
    )


class DiagnoseNcclInput(Contract):
    name: ClusterName
    jobName: str | None = Field(
        default=None,
        validation_alias=renamed("jobName", "job"),
        max_length=63,
        pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        description="the training job (its pods' name prefix or job-name label)",
    )
    namespace: str | None = Field(
        default=None,
        max_length=63,
        pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        description="the job's namespace (a team's job is in hyperpod-ns-<team>); default: every namespace",
    )
