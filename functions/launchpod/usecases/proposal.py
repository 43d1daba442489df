"""What a mutating use case hands back to its route: the plan (each step with its reason), how to start the
operation that carries it out, and the words of a NOOP. The route only answers it (routing.answer): an empty
plan is 200 NOOP, a dry run 200 with the plan, anything else starts the operation and is 202. A write applied
at once (no operation) is answered the same way by ``at_once``, with what the write returns in place of 202."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel

from launchpod.contracts.operations import NoopView, OperationView
from launchpod.contracts.plans import PlanView
from launchpod.domain.plan import Plan

Applied = TypeVar("Applied", bound=BaseModel)


@dataclass(frozen=True)
class Proposal:
    plan: Plan
    start: Callable[[], OperationView]
    noop: str | None = None


def at_once(plan: Plan, dry_run: bool, noop: str, apply: Callable[[], Applied]) -> Applied | NoopView | PlanView:
    """A write applied at once, planned first: an empty plan is NOOP with ``noop`` and writes nothing; a dry
    run is the plan and writes nothing; otherwise ``apply()`` writes and its answer is the route's. Every check
    (refusals included) runs before this, so a dry run is refused where the write would be."""
    if plan.empty:
        return NoopView(message=noop)
    if dry_run:
        return PlanView(target=plan.target, steps=plan.views(), warnings=list(plan.warnings))
    return apply()
