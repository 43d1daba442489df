"""The two Tasks every workflow ends with."""

from __future__ import annotations

from launchpod.registry.specs import FINISH, PHASES, RECORD_FAILURE, FunctionSpec, StateMachineSpec

FUNCTIONS: tuple[FunctionSpec, ...] = (
    FunctionSpec(
        FINISH,
        f"{PHASES}.finish.handler",
        "Every workflow: records success and releases the cluster",
        placeholder="FinishFn",
    ),
    FunctionSpec(
        RECORD_FAILURE,
        f"{PHASES}.record_failure.handler",
        "Every workflow: records the failed phase and its error, releases the cluster, tells the subscribers",
        actions=("sns:Publish",),
        tables=("operations", "clusters", "notifications"),
        placeholder="RecordFailureFn",
    ),
)

STATE_MACHINES: tuple[StateMachineSpec, ...] = ()
