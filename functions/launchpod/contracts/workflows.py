"""What flows between the states of a workflow: one document, passed whole from phase to phase."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from launchpod.contracts.common import Contract


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


class WorkflowFailure(Contract):
    """What a Catch hands to the failure recorder: the document plus Step Functions' error."""

    model_config = ConfigDict(extra="allow")

    operationId: str
    error: dict[str, Any] = Field(default_factory=dict, description="{Error, Cause} from Step Functions")
