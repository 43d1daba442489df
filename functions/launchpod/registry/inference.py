"""Inference endpoints."""

from __future__ import annotations

from launchpod.registry.specs import FunctionSpec, StateMachineSpec, phase_function

FUNCTIONS: tuple[FunctionSpec, ...] = (
    # ---- inference: endpoints deployed, scaled, deleted
    phase_function(
        "inf-apply-endpoint",
        "ApplyEndpoint",
        "inference.apply_endpoint",
        "inference: the endpoint's objects applied, scaled or deleted",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
    phase_function(
        "inf-wait-endpoint",
        "WaitEndpoint",
        "inference.wait_endpoint",
        "inference: polls until every replica is Ready (and the load balancer's hostname), or every object is gone",
        actions=("eks:DescribeCluster",),
        kubernetes=True,
    ),
)

STATE_MACHINES: tuple[StateMachineSpec, ...] = (
    StateMachineSpec(
        "inference",
        "An endpoint deployed, scaled or deleted, then followed until Ready or gone",
        functions=("inf-apply-endpoint", "inf-wait-endpoint"),
    ),
)
