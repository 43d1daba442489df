"""A catalog entry: one REST operation with its route, role, input and answer, and the MCP tool made from it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel, Field, create_model

from launchpod.contracts.common import ClusterName, Contract, Role


class NoInput(Contract):
    """This operation takes no input."""


class ClusterRef(Contract):
    name: ClusterName


class DryRun(Contract):
    dryRun: bool = Field(default=False, description="answer the plan (each step with its reason) and start nothing")


def _with_dry_run(model: type[BaseModel]) -> type[BaseModel]:
    """``model`` plus dryRun, under the same name and words (an MCP tool's input schema is this model's)."""
    if "dryRun" in model.model_fields:
        return model
    made = create_model(model.__name__, __base__=(model, DryRun), __module__=model.__module__)
    made.__doc__ = model.__doc__
    return made


@dataclass(frozen=True)
class CatalogEntry:
    id: str
    method: str
    path: str
    summary: str
    input: type[BaseModel]
    response: type[BaseModel]
    role: Role | None  # None: no token needed (health only)
    mutates: bool = False
    destructive: bool = False
    idempotent: bool = True
    tags: tuple[str, ...] = ()
    accepted: bool = field(default=False)  # answers 202 with an operation
    immediate: bool = field(default=False)  # a write that is complete when the call returns (no operation)
    # The operation kinds (workflows) this route starts; retrying or cancelling one needs this route's role.
    starts: tuple[str, ...] = ()
    # Input fields sent in the query string even on a body method (dryRun on PATCH/POST).
    query: tuple[str, ...] = ()
    # False: no MCP tool for this route (the OpenAI-compatible routes: OpenAI SDKs call them, agents call
    # invoke_endpoint); REST, the OpenAPI document and the console's types still have it.
    tool: bool = True
    # True when the route's own code reads dryRun (it is in ``query`` as written). Every other mutating
    # route gets dryRun declared here all the same, and the API's dry-run middleware answers it
    # (routing._dry_run): a workflow stops where it would start and answers its plan.
    own_plan: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "own_plan", "dryRun" in self.query)
        if self.mutates and not self.accepted and not self.own_plan:
            # the dry-run middleware can only stop a workflow before it starts; a write done at once plans itself
            raise ValueError(f"{self.id} writes at once: its route must read dryRun and answer the plan itself")
        if self.mutates:
            object.__setattr__(self, "input", _with_dry_run(self.input))
        if self.mutates and not self.own_plan:
            object.__setattr__(self, "query", (*self.query, "dryRun"))

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(re.findall(r"{(\w+)}", self.path))

    @property
    def status_tool(self) -> str | None:
        return "get_operation" if self.accepted else None

    @property
    def description(self) -> str:
        text = self.summary
        if self.accepted:
            text += (
                " Answers with an operation; the work is done only when get_operation reports"
                " SUCCEEDED (or FAILED/CANCELLED). Use wait_for_operation to follow it."
            )
        return text
