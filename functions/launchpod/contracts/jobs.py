"""Training jobs over REST: the submit request (HyperPodPyTorchJob or RayJob, from a recipe or a custom
image and command), the job view with its restart budget, pods and events, and its logs."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, model_validator

from launchpod.contracts.common import (
    ABSENT,
    ClusterName,
    Contract,
    K8sName,
    PartitionType,
    case,
    one_of,
    refused,
    rules,
)
from launchpod.contracts.mlflow import JobMlflowView

JobKind = Literal["pytorch", "ray"]
RecipeName = Literal[
    "pytorch-torchrun", "llama-factory", "ms-swift-sft", "ms-swift-grpo", "verl-ppo", "torchtitan", "hyperpod-llmft"
]
# The kind each recipe runs as, from its file in domain/jobs/recipes (tests/domain/test_jobs.py holds the two
# equal): the document says it, so a recipe with another kind is refused by the schema too.
RECIPE_KINDS: dict[str, JobKind] = {
    "pytorch-torchrun": "pytorch",
    "llama-factory": "pytorch",
    "ms-swift-sft": "pytorch",
    "ms-swift-grpo": "pytorch",
    "verl-ppo": "ray",
    "torchtitan": "pytorch",
    "hyperpod-llmft": "pytorch",
}


def _recipes_of(kind: JobKind) -> dict[str, Any]:
    """A branch of SubmitJobRequest's source: the recipes of one kind, which read and write the shared bucket
    through storageClaim (domain.jobs.rules.recipe_for)."""
    return case(
        f"A {kind} recipe",
        required=["recipe", "storageClaim", *(["kind"] if kind == "ray" else [])],
        properties={
            "recipe": {"enum": sorted(r for r, k in RECIPE_KINDS.items() if k == kind)},
            "kind": {"const": kind},
            "storageClaim": {"type": "string"},
            "image": ABSENT,
        },
    )


_ENV_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
_ENV_NAME = re.compile(_ENV_PATTERN)


class RestartPolicyRequest(Contract):
    """The HyperPod training operator's restart policy: process-level restarts first, then full job restarts."""

    numRestartBeforeFullJobRestart: int = Field(default=3, ge=0, le=100)
    evalPeriodSeconds: int = Field(default=21600, ge=1, description="the window restarts are counted in")
    maxFullJobRestarts: int = Field(default=1, ge=0, le=100)
    scaleUpSnoozeTimeInSeconds: int | None = Field(default=None, ge=0, le=86400, description="elastic jobs")


class LogMonitoringRule(Contract):
    """A log-pattern rule: a job that never matches (start cut-off) or stops matching (recurring
    frequency) is hanging; a captured number beyond the threshold is slow."""

    model_config = one_of(
        case(
            "With a threshold",
            required=["metricThreshold", "operator"],
            properties={"metricThreshold": {"type": "number"}, "operator": {"type": "string"}},
        ),
        case("Without a threshold", properties={"metricThreshold": ABSENT, "operator": ABSENT}),
    )

    name: str = Field(min_length=1, max_length=63, pattern=r"^[A-Za-z0-9_-]+$")
    logPattern: str = Field(min_length=1, max_length=1024)
    expectedStartCutOffInSeconds: int | None = Field(default=None, ge=1)
    expectedRecurringFrequencyInSeconds: int | None = Field(default=None, ge=1)
    metricThreshold: float | None = None
    operator: Literal["gt", "gteq", "lt", "lteq", "eq"] | None = None
    metricEvaluationDataPoints: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _threshold_with_operator(self) -> LogMonitoringRule:
        if (self.metricThreshold is None) != (self.operator is None):
            raise ValueError("give metricThreshold and operator together")
        return self


class RunPolicyRequest(Contract):
    jobMaxRetryCount: int = Field(default=10, ge=0, le=1000, description="the total restart budget")
    restartPolicy: RestartPolicyRequest | None = None
    logMonitoringConfiguration: list[LogMonitoringRule] = Field(default_factory=list, max_length=20)
    cleanPodPolicy: Literal["All", "OnlyComplete", "None"] = "None"


# HyperPodPyTorchJob spec.elasticPolicy ("Using elastic training in Amazon SageMaker HyperPod",
# https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-elastic-training.html): minReplicas..maxReplicas
# nodes, in steps of replicaIncrementStep (world sizes minReplicas + N x step) or at one of replicaDiscreteValues,
# never both (the hyp CLI's template refuses both, and values above the maximum).
_ONE_SCALING_RULE: dict[str, Any] = {
    "not": {
        "required": ["replicaIncrementStep", "replicaDiscreteValues"],
        "properties": {"replicaIncrementStep": {"type": "integer"}, "replicaDiscreteValues": {"type": "array"}},
    }
}


class ElasticPolicyRequest(Contract):
    """Elastic training: the node range and how the job scales within it."""

    model_config = ConfigDict(json_schema_extra=rules(**_ONE_SCALING_RULE))

    minReplicas: int = Field(ge=1, le=512)
    maxReplicas: int = Field(ge=1, le=512)
    replicaIncrementStep: int | None = Field(default=None, ge=1, le=512)
    replicaDiscreteValues: list[Annotated[int, Field(ge=1, le=512)]] | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        json_schema_extra={"uniqueItems": True},
    )
    gracefulShutdownTimeoutInSeconds: int | None = Field(default=None, ge=0, le=86400)
    scalingTimeoutInSeconds: int | None = Field(default=None, ge=0, le=86400)
    faultyScaleDownTimeoutInSeconds: int | None = Field(default=None, ge=0, le=86400)

    @model_validator(mode="after")
    def _ordered(self) -> ElasticPolicyRequest:
        if self.minReplicas > self.maxReplicas:
            raise refused("ordered", "minReplicas is at most maxReplicas")
        if self.replicaIncrementStep is not None and self.replicaDiscreteValues is not None:
            raise ValueError("give replicaIncrementStep or replicaDiscreteValues, not both")
        values = self.replicaDiscreteValues or []
        if len(set(values)) != len(values):
            raise ValueError("replicaDiscreteValues are distinct node counts")
        over = [v for v in values if v > self.maxReplicas]
        if over:
            raise refused(
                "within_max_replicas",
                f"replicaDiscreteValues {over} exceed maxReplicas {self.maxReplicas}: raise maxReplicas or drop them",
            )
        return self

    def world_sizes(self) -> list[int]:
        """The node counts the job may run at, smallest first."""
        if self.replicaDiscreteValues:
            return sorted(v for v in self.replicaDiscreteValues if v >= self.minReplicas)
        step = self.replicaIncrementStep or 1
        return list(range(self.minReplicas, self.maxReplicas + 1, step))


# HyperPod checkpointless training (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-checkpointless.html):
# the code runs under hyperpodrun --inprocess-restart with the checkpointless package, and a failed node's model
# and optimizer state comes from its peer replicas instead of the last checkpoint.
class CheckpointlessRequest(Contract):
    """Checkpointless training: recovery from peer replicas."""

    inProcessRestartTimeoutSeconds: int = Field(default=1800, ge=60, le=86400)


# The node labels HyperPod puts on nodes of the supported types ("Topology-aware scheduling" in the task
# governance guide, https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-operate-console-ui-governance-tasks-scheduling.html;
# layer-1 is the top of the network, layer-3 the bottom, nearest the instances).
TopologyLabel = Literal[
    "topology.k8s.aws/network-node-layer-1",
    "topology.k8s.aws/network-node-layer-2",
    "topology.k8s.aws/network-node-layer-3",
    "topology.k8s.aws/ultraserver-id",
]


class TopologyRequest(Contract):
    """Every pod on nodes with one value of ``label``: required (else wait), or preferred."""

    label: TopologyLabel
    required: bool = True


class PartitionRequest(Contract):
    """GPU partitions per pod instead of whole GPUs (a MIG group's nvidia.com/mig-<profile>)."""

    type: PartitionType
    count: int = Field(default=1, ge=1, le=56)


class SubmitJobRequest(Contract):
    model_config = ConfigDict(
        json_schema_extra=rules(
            allOf=[
                {
                    "oneOf": [
                        *(_recipes_of(kind) for kind in ("pytorch", "ray")),
                        case(
                            "An image and its command",
                            required=["image", "command"],
                            properties={"recipe": ABSENT, "image": {"type": "string"}, "command": {"type": "array"}},
                        ),
                    ]
                },
                {
                    "oneOf": [
                        case("A HyperPodPyTorchJob", properties={"kind": {"const": "pytorch"}}),
                        case(
                            "A RayJob",
                            required=["kind"],
                            properties={
                                "kind": {"const": "ray"},
                                "runPolicy": ABSENT,
                                "elasticPolicy": ABSENT,
                                "checkpointless": ABSENT,
                                "topology": ABSENT,
                                "acceleratorPartition": ABSENT,
                            },
                        ),
                    ]
                },
                {
                    "oneOf": [
                        case("Whole nodes", properties={"acceleratorPartition": ABSENT}),
                        case(
                            "GPU partitions of one pod",
                            required=["acceleratorPartition"],
                            properties={"acceleratorPartition": {"type": "object"}, "replicas": {"const": 1}},
                        ),
                    ]
                },
                {
                    "oneOf": [
                        case("Not checkpointless", properties={"checkpointless": ABSENT}),
                        case(
                            "Checkpointless, not elastic",
                            required=["checkpointless"],
                            properties={"checkpointless": {"type": "object"}, "elasticPolicy": ABSENT},
                        ),
                    ]
                },
                {
                    "oneOf": [
                        case("No topology", properties={"topology": ABSENT}),
                        case(
                            "Topology-aware, in a queue",
                            required=["topology", "queue"],
                            properties={"topology": {"type": "object"}, "queue": {"type": "string"}},
                        ),
                    ]
                },
            ]
        )
    )

    jobName: K8sName
    kind: JobKind = "pytorch"
    namespace: K8sName = "default"
    recipe: RecipeName | None = Field(default=None, description="a versioned recipe; or give image and command")
    image: str | None = Field(default=None, min_length=1, max_length=512)
    command: list[str] | None = Field(default=None, min_length=1, max_length=100)
    dataset: str | None = Field(default=None, pattern=r"^[A-Za-z0-9._/-]{1,200}$", description="under datasets/")
    model: str | None = Field(default=None, pattern=r"^[A-Za-z0-9._/-]{1,200}$", description="under models/")
    instanceGroup: str = Field(min_length=1, max_length=63, description="the HyperPod instance group to run on")
    replicas: int = Field(default=1, ge=1, le=512, description="nodes (one pod per node)")
    nprocPerNode: int | None = Field(
        default=None, ge=1, le=64, description="processes per node; default: every GPU or Neuron device of the type"
    )
    storageClaim: K8sName | None = Field(
        default=None, description="a PersistentVolumeClaim on the shared bucket, mounted at /data"
    )
    env: dict[str, str] = Field(
        default_factory=dict, max_length=50, json_schema_extra={"propertyNames": {"pattern": _ENV_PATTERN}}
    )
    runPolicy: RunPolicyRequest | None = Field(default=None, description="pytorch only")
    elasticPolicy: ElasticPolicyRequest | None = Field(default=None, description="pytorch only")
    checkpointless: CheckpointlessRequest | None = Field(default=None, description="pytorch, 2+ nodes, not elastic")
    queue: K8sName | None = Field(default=None, description="the team's LocalQueue (task governance)")
    priority: K8sName | None = Field(default=None, description="a WorkloadPriorityClass (task governance)")
    topology: TopologyRequest | None = Field(default=None, description="pytorch with a queue")
    acceleratorPartition: PartitionRequest | None = Field(default=None, description="pytorch, one pod")

    @model_validator(mode="after")
    def _source(self) -> SubmitJobRequest:
        if (self.recipe is None) == (self.image is None):
            raise ValueError("give either recipe, or image and command")
        if self.image is not None and not self.command:
            raise ValueError("a custom image needs its command")
        if self.acceleratorPartition is not None and (self.kind == "ray" or self.replicas != 1):
            raise ValueError("acceleratorPartition is for a one-pod pytorch job (a partition is not a whole node)")
        if self.topology is not None and (self.kind == "ray" or not self.queue):
            raise ValueError("topology is Kueue's topology-aware scheduling: a pytorch job with a queue")
        if self.kind == "ray" and (
            self.runPolicy is not None or self.elasticPolicy is not None or self.checkpointless is not None
        ):
            raise ValueError(
                "runPolicy, elasticPolicy and checkpointless are HyperPodPyTorchJob settings; kind ray takes none"
            )
        if self.checkpointless is not None and self.elasticPolicy is not None:
            # "HyperPod checkpointless training is currently incompatible with ... elastic training"
            # (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-checkpointless-considerations.html)
            raise ValueError("checkpointless training does not work with elastic training: drop one of them")
        bad = [k for k in self.env if not _ENV_NAME.match(k)]
        if bad:
            raise ValueError(f"environment variable names are letters, digits and _: {', '.join(bad)}")
        return self


class SubmitJobInput(SubmitJobRequest):
    name: ClusterName


class JobRef(Contract):
    name: ClusterName
    jobName: K8sName
    namespace: K8sName = "default"


class DeleteJobInput(JobRef):
    confirm: str = Field(description="the job's name, typed again: its pods are stopped")


class ListJobsInput(Contract):
    name: ClusterName
    namespace: K8sName | None = Field(default=None, description="only jobs in this namespace")


class JobLogsInput(JobRef):
    pod: K8sName | None = Field(default=None, description="default: the job's first pod")
    container: K8sName | None = Field(default=None, description="default: the pod's first container")
    tail: int = Field(default=200, ge=1, le=5000)
    since: int | None = Field(default=None, ge=1, description="only lines from the last this many seconds")


class RestartBudgetView(Contract):
    processRestarts: int = Field(description="process-level restarts in the current evaluation period")
    fullJobRestarts: int
    retriesUsed: int = Field(description="restarts of any kind, counted against jobMaxRetryCount")
    retriesLeft: int | None
    jobMaxRetryCount: int | None
    numRestartBeforeFullJobRestart: int | None
    maxFullJobRestarts: int | None


class JobPodView(Contract):
    name: str
    phase: str
    kubernetesNode: str | None
    availabilityZone: str | None
    restarts: int
    containers: list[str]


class JobEventView(Contract):
    time: str | None
    type: str
    reason: str
    message: str
    object: str


class JobView(Contract):
    cluster: ClusterName
    jobName: str
    namespace: str
    kind: JobKind
    recipe: str | None
    image: str
    instanceType: str | None
    replicas: int
    status: str = Field(
        description="Pending, Queued (Kueue has not admitted it: reason and message say why), Created, Running,"
        " Restarting, Succeeded or Failed"
    )
    reason: str | None = None
    message: str | None = None
    createdAt: str | None = None
    budget: RestartBudgetView | None = Field(default=None, description="pytorch only")
    hangDetections: int = 0
    pods: list[JobPodView] = Field(default_factory=list)
    events: list[JobEventView] = Field(default_factory=list)
    mlflow: JobMlflowView | None = Field(default=None, description="where the job logs to MLflow, when it does")
    warnings: list[str] = Field(
        default_factory=list, description="on submission: what will not go as asked (pods that wait for nodes)"
    )


class JobSummaryView(Contract):
    jobName: str
    namespace: str
    kind: JobKind
    recipe: str | None
    status: str
    reason: str | None = None
    createdAt: str | None = None


class JobListView(Contract):
    cluster: ClusterName
    items: list[JobSummaryView]


class DeleteJobView(Contract):
    cluster: ClusterName
    jobName: str
    namespace: str
    deleted: bool


class JobLogsView(Contract):
    jobName: str
    pod: str
    container: str
    lines: list[str]
    retained: bool = Field(default=True, description="false when the pod is gone and its log was not kept")
    source: Literal["kubernetes", "cloudwatch"] | None = Field(
        default=None,
        description="where the lines come from: the pod's log (kubernetes) or, once the pod is gone, CloudWatch"
        " Logs (cloudwatch, when the observability feature shipped them); unset when nothing was retained",
    )
    note: str | None = None
