"""Plans: what a mutation would change, step by step, each with the reason (the explicit-diff contract)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from launchpod.contracts.common import Contract


class PlanStepView(Contract):
    action: str = Field(examples=["create"], description="create, update, delete or install")
    target: str = Field(examples=["EKS add-on cert-manager"], description="the AWS or Kubernetes object it changes")
    reason: str = Field(description="why: the sent field and what the real cluster has now")
    phase: str | None = Field(default=None, description="the workflow phase that carries the step out")


class PlanView(Contract):
    """200 for ?dryRun=true: the plan the request would run; nothing was started."""

    status: Literal["PLANNED"] = "PLANNED"
    target: str
    steps: list[PlanStepView]
    warnings: list[str] = Field(
        default_factory=list, description="what will not go as asked, such as pods that must wait for nodes"
    )
    message: str = "Dry run: nothing was started. Send the same request without dryRun to run this plan."
