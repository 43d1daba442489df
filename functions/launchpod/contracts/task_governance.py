"""Task governance policy and teams: the cluster scheduler config (priority classes, fair share, idle-resource
sharing) and one compute quota per team (instances, accelerators, vCPUs, memory or GPU partitions per instance
type; how idle compute is lent and borrowed, within a percentage and absolute caps; preemption).

Shapes follow SageMaker's CreateClusterSchedulerConfig and CreateComputeQuota (botocore's model); the names
follow ComputeQuotaTargetTeamName and ClusterSchedulerPriorityClassName, ``[a-z0-9]([-a-z0-9]*[a-z0-9])``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, model_validator

from launchpod.contracts.common import ABSENT, ClusterName, Contract, case, one_of, refuse_repeats, rules
from launchpod.contracts.naming import renamed

_NAME = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
# A team becomes namespace hyperpod-ns-<team> and LocalQueue hyperpod-ns-<team>-localqueue: 63 characters at most.
TeamName = Annotated[str, Field(min_length=1, max_length=40, pattern=_NAME, examples=["ml-research"])]
PriorityClassName = Annotated[str, Field(min_length=1, max_length=40, pattern=_NAME, examples=["inference"])]
SharingStrategy = Literal["Lend", "DontLend", "LendAndBorrow"]
Preemption = Literal["Never", "LowerPriority"]
# botocore's MIGProfileType: "mig-" and every A100/H100/H200/B200/GB200 profile (AcceleratorPartitionConfig.Type)
MigProfile = Literal[
    "mig-1g.5gb", "mig-1g.10gb", "mig-1g.18gb", "mig-1g.20gb", "mig-1g.23gb", "mig-1g.35gb", "mig-1g.45gb",
    "mig-1g.47gb", "mig-2g.10gb", "mig-2g.20gb", "mig-2g.35gb", "mig-2g.45gb", "mig-2g.47gb", "mig-3g.20gb",
    "mig-3g.40gb", "mig-3g.71gb", "mig-3g.90gb", "mig-3g.93gb", "mig-4g.20gb", "mig-4g.40gb", "mig-4g.71gb",
    "mig-4g.90gb", "mig-4g.93gb", "mig-7g.40gb", "mig-7g.80gb", "mig-7g.141gb", "mig-7g.180gb", "mig-7g.186gb",
]  # fmt: skip
_AMOUNT = 10_000_000  # ComputeQuotaResourceConfig's numbers: 0..10^7


class PriorityClassSpec(Contract):
    name: PriorityClassName
    weight: int = Field(ge=0, le=100, description="higher runs first; tasks of a higher class may preempt lower ones")


class GovernancePolicyRequest(Contract):
    """The whole policy: the cluster has one scheduler config; what is sent replaces it."""

    priorityClasses: list[PriorityClassSpec] = Field(default_factory=list, max_length=10)
    fairShare: bool = Field(default=True, description="share idle compute by the teams' fair-share weights")
    idleResourceSharing: bool = Field(default=False, description="lend compute no team is allocated")

    @model_validator(mode="after")
    def _unique(self) -> GovernancePolicyRequest:
        refuse_repeats((p.name for p in self.priorityClasses), "priority class names must be unique")
        return self


class GovernancePolicyInput(GovernancePolicyRequest):
    name: ClusterName
    dryRun: bool = Field(default=False, description="answer the plan and change nothing")


class GovernancePolicyView(Contract):
    cluster: ClusterName
    configured: bool = Field(description="false when the cluster has no scheduler config yet")
    priorityClasses: list[PriorityClassSpec] = Field(default_factory=list)
    fairShare: bool = True
    idleResourceSharing: bool = False
    status: str | None = Field(default=None, description="the scheduler config's status (Created, Updated, ...)")
    version: int | None = None
    workloadPriorityClasses: list[str] = Field(
        default_factory=list, description="the Kueue WorkloadPriorityClasses the add-on made: <name>-priority"
    )


class PartitionQuota(Contract):
    type: MigProfile
    count: int = Field(ge=0, le=_AMOUNT)


_AMOUNTS = ("instanceCount", "accelerators", "vCpu", "memoryInGiB", "acceleratorPartition")
# count: instanceCount's older spelling (launchpod.contracts.naming), absent or null as well
_NONE_GIVEN: dict[str, Any] = {"not": {"properties": dict.fromkeys((*_AMOUNTS, "count"), ABSENT)}}


class InstanceQuota(Contract):
    """Of one instance type: instances, or accelerators, vCPUs, memory or partitions (the rest by ratio)."""

    # SageMaker fills what is left out by ratio (API reference ComputeQuotaResourceConfig): accelerators (or
    # partitions) alone bring their share of the type's vCPUs and memory; vCPUs alone their share of memory,
    # memory alone its share of vCPUs, and then no accelerators.

    # instanceType and at least one amount that is not null (the validator below): not all of them absent or
    # null. A "not" rather than an anyOf of five branches, which generated clients read as five other shapes.
    model_config = ConfigDict(json_schema_extra=rules(**_NONE_GIVEN))

    instanceType: str = Field(pattern=r"^ml\.[a-z0-9.\-]+$", examples=["ml.p5.48xlarge"])
    instanceCount: int | None = Field(
        default=None,
        ge=0,
        le=_AMOUNT,
        description="whole instances",
        validation_alias=renamed("instanceCount", "count"),
    )
    accelerators: int | None = Field(default=None, ge=0, le=_AMOUNT)
    vCpu: float | None = Field(default=None, ge=0, le=_AMOUNT)
    memoryInGiB: float | None = Field(default=None, ge=0, le=_AMOUNT)
    acceleratorPartition: PartitionQuota | None = None

    @model_validator(mode="after")
    def _some(self) -> InstanceQuota:
        if all(getattr(self, name) is None for name in _AMOUNTS):
            raise ValueError("give instanceCount, accelerators, vCpu, memoryInGiB or acceleratorPartition")
        return self


class ResourceAmounts(Contract):
    """Of one instance type."""

    instanceType: str
    instanceCount: float = Field(description="instances, equivalent: the largest share of any resource")
    accelerators: float = 0
    vCpu: float = 0
    memoryInGiB: float = 0
    partitions: dict[str, float] = Field(default_factory=dict)


class TeamRequest(Contract):
    """The team's whole quota; what is sent replaces it (explicit diff against the real quota)."""

    model_config = one_of(
        case("Lend and borrow", properties={"sharing": {"const": "LendAndBorrow"}}),
        case(
            "Lend, or keep, without borrowing",
            required=["sharing"],
            properties={
                "sharing": {"enum": ["Lend", "DontLend"]},
                "borrowLimit": ABSENT,
                "absoluteBorrowLimits": {"maxItems": 0},
            },
        ),
    )

    resources: list[InstanceQuota] = Field(min_length=1, max_length=15)
    sharing: SharingStrategy = Field(
        default="LendAndBorrow",
        description="Lend: idle compute lent to other teams; DontLend: kept; LendAndBorrow: lent, and the team may"
        " borrow idle compute of others",
    )
    borrowLimit: int | None = Field(
        default=None, ge=1, le=500, description="LendAndBorrow only: the most it may borrow, percent of its quota"
    )
    absoluteBorrowLimits: list[InstanceQuota] = Field(
        default_factory=list, max_length=15, description="LendAndBorrow only: caps on what it borrows"
    )
    preemptTeamTasks: Preemption = Field(default="LowerPriority", description="preempt the team's own lower tasks")
    fairShareWeight: int = Field(default=0, ge=0, le=100, description="its share of idle compute under fair share")
    enabled: bool = Field(default=True, description="ActivationState: false keeps the quota but does not apply it")

    @model_validator(mode="after")
    def _rules(self) -> TeamRequest:
        refuse_repeats((r.instanceType for r in self.resources), "each instance type appears once in resources")
        if self.borrowLimit is not None and self.sharing != "LendAndBorrow":
            raise ValueError("borrowLimit applies only with sharing LendAndBorrow")
        if self.absoluteBorrowLimits and self.sharing != "LendAndBorrow":
            raise ValueError("absoluteBorrowLimits apply only with sharing LendAndBorrow")
        refuse_repeats(
            (r.instanceType for r in self.absoluteBorrowLimits),
            "each instance type appears once in absoluteBorrowLimits",
        )
        return self


class TeamInput(TeamRequest):
    name: ClusterName
    team: TeamName
    dryRun: bool = Field(default=False, description="answer the plan and change nothing")


class TeamRef(Contract):
    name: ClusterName
    team: TeamName


class DeleteTeamInput(TeamRef):
    confirm: str = Field(description="the team's name, typed again: its quota and queues are removed")


class TeamView(Contract):
    team: str
    namespace: str = Field(examples=["hyperpod-ns-ml-research"])
    queue: str = Field(examples=["hyperpod-ns-ml-research-localqueue"], description="the team's LocalQueue")
    quotaName: str
    quotaId: str
    status: str
    version: int
    resources: list[InstanceQuota]
    sharing: SharingStrategy
    borrowLimit: int | None = None
    preemptTeamTasks: Preemption
    fairShareWeight: int
    enabled: bool
    absoluteBorrowLimits: list[InstanceQuota] = Field(default_factory=list)
    managed: bool = Field(description="created by Launchpod (only those can be changed or deleted here)")
    queueReady: bool = Field(description="the team's namespace and LocalQueue exist in the cluster")
    guaranteed: list[ResourceAmounts] = Field(default_factory=list)
    used: list[ResourceAmounts] = Field(default_factory=list, description="by its admitted workloads")
    borrowed: list[ResourceAmounts] = Field(default_factory=list, description="used beyond its quota")


class TeamListView(Contract):
    cluster: ClusterName
    items: list[TeamView]


class TeamAppliedView(Contract):
    """200: the quota was created or updated (effective at once; nothing to follow)."""

    status: Literal["CREATED", "UPDATED"]
    message: str
    team: TeamView


class PolicyAppliedView(Contract):
    status: Literal["CREATED", "UPDATED"]
    message: str
    policy: GovernancePolicyView


class DeleteTeamView(Contract):
    cluster: ClusterName
    team: str
    deleted: bool
    message: str
