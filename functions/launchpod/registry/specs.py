"""What the registry's declarations are made of: tables, functions (a workflow phase declared once with
``phase_function``), state machines, and the action bundles several phases share."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
STATEMACHINES_DIR = ROOT / "statemachines"


@dataclass(frozen=True)
class TableSpec:
    key: str  # logical name; the physical name is given by the deployment
    partition_key: str
    sort_key: str | None = None
    indexes: tuple[tuple[str, str, str | None], ...] = ()  # (index name, partition key, sort key)
    # its DynamoDB stream's view type, when it has one: NEW_IMAGE when its readers want each change's result
    # only ("Change data capture for DynamoDB Streams", StreamViewType)
    stream: str | None = None
    ttl_attribute: str | None = None


@dataclass(frozen=True)
class StreamSourceSpec:
    """A table's DynamoDB stream delivered to a function: the Lambda event source mapping CDK deploys and the
    sandbox creates. Lambda invokes with a batch when it holds ``batch_size`` records or when
    ``batching_window_seconds`` have passed since its first record ("How Lambda processes records from stream
    and queue-based event sources", Batching behavior, Lambda developer guide)."""

    table: str
    function: str
    batch_size: int
    batching_window_seconds: int
    retry_attempts: int
    max_record_age_seconds: int
    bisect_batch_on_error: bool = True
    report_batch_item_failures: bool = True


DEFAULT_TABLES = ("operations", "clusters")


@dataclass(frozen=True)
class FunctionSpec:
    name: str  # logical name; "launchpod-<name>" when deployed
    handler: str
    description: str
    memory: int = 256
    timeout: int = 60
    # IAM actions its adapters call (beyond the tables and workflows below); "*"-free by design.
    actions: tuple[str, ...] = ()
    tables: tuple[str, ...] = DEFAULT_TABLES
    starts_workflows: bool = False
    kubernetes: bool = False  # needs an EKS access entry to reach cluster API servers
    placeholder: str | None = None  # ${Placeholder} it fills in state machine definitions
    # A workflow phase (declared with ``phase_function``): the phase it records on the operation and the use
    # case it runs, "<module>.<function>" under launchpod.usecases.workflows.
    phase: str | None = None
    run: str | None = None


# The two Tasks every workflow ends with (registry/operations.py): success recorded, or the failed phase.
FINISH = "op-finish"
RECORD_FAILURE = "op-record-failure"


@dataclass(frozen=True)
class StateMachineSpec:
    name: str
    description: str
    # its Tasks' functions; FINISH and RECORD_FAILURE follow them unless listed (node actions run one after FINISH)
    functions: tuple[str, ...]
    settings: dict[str, int] = field(default_factory=dict)  # non-function ${Placeholders}
    # state machines this one starts as child executions; ${<Name>Machine} holds each one's ARN
    children: tuple[str, ...] = ()
    # its ASL file under statemachines/ when not <name>.asl.json (the four node actions share one)
    definition: str | None = None

    def __post_init__(self) -> None:
        closing = tuple(f for f in (FINISH, RECORD_FAILURE) if f not in self.functions)
        object.__setattr__(self, "functions", (*self.functions, *closing))

    @property
    def file(self) -> str:
        return self.definition or f"{self.name}.asl.json"

    @property
    def path(self) -> Path:
        return STATEMACHINES_DIR / self.file


PHASES = "launchpod.entrypoints.workflows"
PHASE_HANDLERS = "launchpod.entrypoints.workflows.handlers"


def phase_function(
    name: str, phase: str, run: str, description: str, *, placeholder: str | None = None, **needs: Any
) -> FunctionSpec:
    """One workflow phase, declared once: its function's logical name, the phase it records on the operation,
    the use case it runs ("<module>.<function>" under launchpod.usecases.workflows, taking the WorkflowInput
    and answering a PhaseResult whose outputs, where later phases read them, are the phase's PhaseOutput) and
    what the function needs (actions, tables, memory, ...). The Lambda handler
    (``launchpod.entrypoints.workflows.handlers.<name with underscores>``) and the state machines'
    ``${<Phase>Fn}`` placeholder come from it. Every phase holds itself in the runners table while it runs
    (usecases/workflows/phase.py)."""
    tables = needs.pop("tables", DEFAULT_TABLES)
    return FunctionSpec(
        name,
        f"{PHASE_HANDLERS}.{handler_attribute(name)}",
        description,
        placeholder=placeholder or f"{phase}Fn",
        phase=phase,
        run=run,
        tables=tables if "runners" in tables else (*tables, "runners"),
        **needs,
    )


def handler_attribute(name: str) -> str:
    return name.replace("-", "_")


# What a phase needs to make a role with an inline policy and tags (a service's role, such as HyperPod's).
INLINE_POLICY_ROLE = (
    "iam:GetRole",
    "iam:CreateRole",
    "iam:TagRole",
    "iam:PutRolePolicy",
    "iam:ListAttachedRolePolicies",
)

# What a phase needs to make a pod identity role (inline policy, tags) and pass it to EKS.
POD_IDENTITY_ROLE = (*INLINE_POLICY_ROLE, "iam:PassRole")

# What a phase needs to install or remove a HyperPod operator add-on (training, inference) with its pod
# identity role: the add-on (created with tags), the role made and passed, and on removal the role deleted.
OPERATOR_ADDON = (
    "eks:ListAddons",
    "eks:DescribeAddon",
    # the version to install: the pin when EKS offers it for the cluster's Kubernetes version, else its default
    "eks:DescribeCluster",
    "eks:DescribeAddonVersions",
    "eks:CreateAddon",
    "eks:DeleteAddon",
    "eks:TagResource",
    "sagemaker:DescribeCluster",
    *POD_IDENTITY_ROLE,
    "iam:ListRolePolicies",
    "iam:DeleteRolePolicy",
    "iam:DeleteRole",
)

# An operator add-on installed with configuration values (inference, HyperPod observability): the values are
# checked against the add-on's configuration schema first.
CONFIGURED_OPERATOR_ADDON = (*OPERATOR_ADDON, "eks:DescribeAddonConfiguration")


@dataclass(frozen=True)
class EventRuleSpec:
    """An EventBridge rule and the function it invokes; ``pattern`` is spelled as EventBridge has it."""

    id: str
    function: str
    description: str
    pattern: dict[str, Any] | None = None
    schedule: str | None = None  # rate()/cron() expression
    # a constant JSON the target is sent instead of the event (EventBridge target Input), where two rules
    # share one function
    input: dict[str, Any] | None = None

    def rule_name(self, prefix: str = "launchpod") -> str:
        return prefix + "".join(f"-{c.lower()}" if c.isupper() else c for c in self.id)
