"""What flows between the states of a workflow: one document, passed whole from phase to phase."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import ConfigDict, Field

from launchpod.contracts.common import Contract
from launchpod.contracts.phase_outputs import PhaseOutput

OutputT = TypeVar("OutputT", bound=PhaseOutput)


class WorkflowInput(Contract):
    """The execution input and every phase's input and output.

    Each phase adds what it learned under ``outputs[<phase>]`` and hands the document on, so a
    later phase (or a retried execution) reads earlier results without asking AWS twice.
    """

    model_config = ConfigDict(extra="allow")

    operationId: str
    kind: str
    target: str
    request: dict[str, Any]
    attempt: int = 1
    outputs: dict[str, dict[str, Any]] = Field(default_factory=dict)
    poll: dict[str, int] = Field(default_factory=dict, description="poll counts of wait phases")
    ready: bool | None = Field(default=None, description="set by wait phases for the Choice that follows")
    wait: int = Field(default=30, ge=1, le=3600, description="seconds the next Wait state sleeps")
    child: bool = Field(default=False, description="a child execution: its parent records the end")

    def output(self, model: type[OutputT]) -> OutputT | None:
        """What ``model.PHASE`` recorded, or None when it has not run in this workflow or recorded nothing
        (a skipped phase)."""
        raw = self.outputs.get(model.PHASE)
        return model.model_validate(raw) if raw else None

    def require(self, model: type[OutputT]) -> OutputT:
        """What ``model.PHASE`` recorded; a phase that needs it runs after it in every state machine."""
        found = self.output(model)
        if found is None:
            raise LookupError(f"phase {model.PHASE} recorded no {model.__name__} in operation {self.operationId}")
        return found

    def record(self, output: PhaseOutput) -> None:
        """Keep a phase's output in the document, for its own next poll or the phases after it."""
        self.outputs[output.PHASE] = output.model_dump(mode="json")


class WorkflowFailure(Contract):
    """What a Catch hands to the failure recorder: the document plus Step Functions' error."""

    model_config = ConfigDict(extra="allow")

    operationId: str
    attempt: int = 1
    error: dict[str, Any] = Field(default_factory=dict, description="{Error, Cause} from Step Functions")
