"""Operations: the record every mutation becomes before anything touches AWS, and its phases."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from launchpod.contracts.common import Contract, OperationId
from launchpod.contracts.plans import PlanStepView


class OperationStatus(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"

    @property
    def terminal(self) -> bool:
        return self in (OperationStatus.SUCCEEDED, OperationStatus.FAILED, OperationStatus.CANCELLED)


class PhaseStatus(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    SKIPPED = "SKIPPED"
    CANCELLED = "CANCELLED"


class OperationKind(StrEnum):
    CREATE_CONTROL_PLANE = "create-control-plane"


class PhaseView(Contract):
    name: str = Field(examples=["CreateCluster"])
    title: str = Field(examples=["Create the EKS cluster"])
    status: PhaseStatus = PhaseStatus.PENDING
    startedAt: datetime | None = None
    endedAt: datetime | None = None
    attempts: int = 0
    message: str | None = Field(default=None, description="Progress or the error, in words a user can act on.")
    error: str | None = Field(default=None, description="The AWS or Kubernetes error code, when the phase failed.")


class OperationView(Contract):
    id: OperationId
    kind: str
    target: str = Field(description="The cluster the operation works on.")
    status: OperationStatus
    phases: list[PhaseView]
    request: dict[str, Any]
    createdAt: datetime
    updatedAt: datetime
    createdBy: str | None = None
    attempt: int = Field(default=1, description="1 for the first run; each retry adds one.")
    error: str | None = None
    message: str | None = None
    statusUrl: str = Field(description="GET this until status is SUCCEEDED, FAILED or CANCELLED.")
    statusTool: str = Field(default="get_operation", description="The MCP tool that decides completion.")
    plan: list[PlanStepView] = Field(
        default_factory=list, description="The steps the planner found when the operation was started, with reasons."
    )


class OperationAcceptedView(Contract):
    """202: the mutation was recorded and its workflow started."""

    status: Literal["ACCEPTED"] = "ACCEPTED"
    operation: OperationView
    statusUrl: str
    statusTool: str = "get_operation"
    warnings: list[str] = Field(
        default_factory=list, description="what the plan found that will not go as asked (the dry run says the same)"
    )


class NoopView(Contract):
    """200: the request asks for nothing that is not already so; no operation was started."""

    status: Literal["NOOP"] = "NOOP"
    message: str = "No changes"


class OperationListView(Contract):
    items: list[OperationView]
    nextToken: str | None = Field(default=None, description="pass it back for the next page; absent on the last")


class RetryOperationRequest(Contract):
    """Resume a FAILED or CANCELLED operation from the phase that did not finish."""


class CancelOperationRequest(Contract):
    reason: str | None = Field(default=None, max_length=500)
