"""The registry: every Lambda, state machine, table and event rule Launchpod deploys, described once, by
capability (one module each), assembled here.

``cdk/`` builds the AWS stack from it and ``sandbox/`` provisions moto from it, so the sandbox can never drift
from what is deployed. Handlers are import strings, as in Lambda's Handler setting; a workflow phase is
declared once with ``phase_function`` (its handler and ``${<Phase>Fn}`` placeholder come from it).
"""

from __future__ import annotations

from launchpod.registry import clusters, features, front, inference, instance_groups, nodes, operations, storage
from launchpod.registry.front import (
    HYPERPOD_CLUSTER_EVENT,
    HYPERPOD_NODE_HEALTH,
    HYPERPOD_STATE_CHANGE,
    NOTIFICATIONS_TOPIC,
    event_rules,
)
from launchpod.registry.specs import (
    PHASE_HANDLERS,
    ROOT,
    STATEMACHINES_DIR,
    EventRuleSpec,
    FunctionSpec,
    StateMachineSpec,
    StreamSourceSpec,
    TableSpec,
    handler_attribute,
    phase_function,
)
from launchpod.registry.tables import STREAM_SOURCES, TABLES

__all__ = [
    "FUNCTIONS",
    "FUNCTIONS_BY_NAME",
    "HYPERPOD_CLUSTER_EVENT",
    "HYPERPOD_NODE_HEALTH",
    "HYPERPOD_STATE_CHANGE",
    "NOTIFICATIONS_TOPIC",
    "PHASES_BY_HANDLER",
    "PHASE_HANDLERS",
    "ROOT",
    "STATEMACHINES_DIR",
    "STATE_MACHINES",
    "STATE_MACHINES_BY_NAME",
    "STREAM_SOURCES",
    "TABLES",
    "EventRuleSpec",
    "FunctionSpec",
    "StateMachineSpec",
    "StreamSourceSpec",
    "TableSpec",
    "event_rules",
    "function_name",
    "handler_attribute",
    "machine_placeholder",
    "phase_function",
    "substitutions",
]

_CAPABILITIES = (front, clusters, instance_groups, nodes, features, storage, inference, operations)
FUNCTIONS: tuple[FunctionSpec, ...] = tuple(f for capability in _CAPABILITIES for f in capability.FUNCTIONS)
STATE_MACHINES: tuple[StateMachineSpec, ...] = tuple(
    s for capability in _CAPABILITIES for s in capability.STATE_MACHINES
)

FUNCTIONS_BY_NAME = {f.name: f for f in FUNCTIONS}
PHASES_BY_HANDLER = {handler_attribute(f.name): f for f in FUNCTIONS if f.run}
STATE_MACHINES_BY_NAME = {s.name: s for s in STATE_MACHINES}


def function_name(logical: str, prefix: str = "launchpod") -> str:
    return f"{prefix}-{logical}"


def machine_placeholder(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-")) + "Machine"


def substitutions(
    machine: StateMachineSpec, function_arn: dict[str, str], machine_arn: dict[str, str] | None = None
) -> dict[str, str]:
    """The ${Placeholder} values for one state machine, given each function's ARN by logical name
    and, for machines with children, each state machine's ARN by name."""
    values = {FUNCTIONS_BY_NAME[f].placeholder or f: function_arn[f] for f in machine.functions}
    values.update({machine_placeholder(c): (machine_arn or {})[c] for c in machine.children})
    values.update({k: str(v) for k, v in machine.settings.items()})
    return values
