"""What a mutating use case hands back to its route: the plan (each step with its reason), how to start the
operation that carries it out, and the words of a NOOP. The route only answers it (routing.answer): an empty
plan is 200 NOOP, a dry run 200 with the plan, anything else starts the operation and is 202."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from launchpod.contracts.operations import OperationView
from launchpod.domain.plan import Plan


@dataclass(frozen=True)
class Proposal:
    plan: Plan
    start: Callable[[], OperationView]
    noop: str | None = None
