"""What a job submission must meet before anything is applied, each refusal saying what to do.

- The operator that runs the kind must be there: the HyperPod training operator add-on ACTIVE for
  ``pytorch``, KubeRay (its RayJob CRD and a ready operator) for ``ray``: 409 naming the feature.
- The instance group exists, and a pod asks for no more GPUs or Neuron devices than its type has: 422.
- Elastic training (``elasticPolicy``) is refused on Spot instance groups and while managed tiered
  checkpointing is on, as AWS's elastic training page lists under its considerations
  (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-elastic-training.html).
- A queue or priority needs task governance (Kueue) on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from launchpod.contracts.jobs import SubmitJobInput
from launchpod.domain import mig
from launchpod.domain.errors import Conflict, InvalidInput, next_step
from launchpod.domain.jobs.hardware import Accelerators
from launchpod.domain.jobs.recipes import Recipe, all_recipes


@dataclass(frozen=True)
class ClusterFacts:
    """What the API read about the cluster a job goes to."""

    cluster: str
    groups: dict[str, dict[str, Any]]  # instance group name -> DescribeCluster's InstanceGroups entry
    training_operator: str | None  # the add-on's status, None when not installed
    kuberay: bool  # RayJob CRD served and the operator Deployment ready
    task_governance: bool
    tiered_checkpointing: bool
    autoscaling: bool = False  # HyperPod-managed Karpenter: nodes are added for pods that wait


def fit_warnings(request: SubmitJobInput, facts: ClusterFacts) -> list[str]:
    """Each pod takes a whole node of the group (manifests: every accelerator and EFA interface), so pods
    beyond the group's nodes wait Pending until nodes are added; said in the dry run and the answer."""
    if request.acceleratorPartition is not None:
        return []  # a pod of GPU partitions shares a node: usecases.jobs checks the nodes' free partitions
    group = facts.groups.get(request.instanceGroup) or {}
    nodes = int(group.get("CurrentCount") or 0)
    wanted = request.elasticPolicy.minReplicas if request.elasticPolicy else request.replicas
    if request.replicas <= nodes:
        return []
    name, count = request.instanceGroup, f"{nodes} node{'s' if nodes != 1 else ''}"
    if facts.autoscaling:
        return [
            f"{name} has {count} now and each pod takes a whole node: Karpenter adds nodes for the other "
            f"{request.replicas - nodes} pod(s), up to the group's limit."
        ]
    waits = request.replicas - nodes
    ends = (
        "the job runs with fewer nodes until then (elastic)"
        if request.elasticPolicy and wanted <= nodes
        else "the job does not start until then"
    )
    return [
        f"{name} has {count} and each pod takes a whole node: {waits} of {request.replicas} pods will wait "
        f"Pending until the group has {request.replicas} nodes ({ends}). Scale the group to "
        f"{request.replicas} nodes (its instanceCount) or ask for {max(nodes, 1)} replicas."
    ]


def recipe_for(request: SubmitJobInput) -> Recipe | None:
    if request.recipe is None:
        return None
    found = all_recipes()[request.recipe]
    if found.kind != request.kind:
        raise InvalidInput(
            f"Recipe {found.name} runs as kind {found.kind}; send kind {found.kind!r} with it.",
            field="body.kind",
            rule="matches_recipe",
        )
    if request.storageClaim is None:
        raise InvalidInput(
            f"Recipe {found.name} reads datasets/ and models/ and writes jobs/{request.jobName}/ on the shared "
            "bucket; give storageClaim, the claim of one of the cluster's S3 storages.",
            field="body.storageClaim",
            rule="required_with_recipe",
        )
    return found


def _is_spot(group: dict[str, Any]) -> bool:
    return "Spot" in (group.get("CapacityRequirements") or {})


def check_partition(request: SubmitJobInput, acc: Accelerators) -> None:
    """A partition the group's GPUs offer (AWS's MIG profiles per type, domain.mig), at most what a node holds."""
    partition = request.acceleratorPartition
    if partition is None:
        return
    offered = mig.profiles(acc.instance_type)
    if partition.type not in offered:
        raise InvalidInput(
            f"{acc.instance_type} does not offer GPU partition {partition.type}; its MIG profiles: "
            f"{', '.join(offered) or 'none: its GPUs cannot be partitioned'}.",
            field="body.acceleratorPartition.type",
            rule="mig_profile_of_type",
        )
    most = acc.gpus * offered[partition.type]
    if partition.count > most:
        raise InvalidInput(
            f"A {acc.instance_type} node holds at most {most} {partition.type} partitions; {partition.count} asks"
            " for more.",
            field="body.acceleratorPartition.count",
            rule=f"at_most_{most}",
        )


def check_processes(request: SubmitJobInput, acc: Accelerators) -> None:
    """nprocPerNode fits the node's accelerators (EC2's count for the group's type)."""
    check_partition(request, acc)
    have = acc.per_node
    if request.nprocPerNode is not None and have and request.nprocPerNode > have:
        raise InvalidInput(
            f"{acc.instance_type} has {have} {acc.device} per node; nprocPerNode {request.nprocPerNode} asks for "
            f"more. Use at most {have}, or more replicas.",
            field="body.nprocPerNode",
            rule=f"at_most_{have}",
        )


def check(request: SubmitJobInput, facts: ClusterFacts) -> str:
    """The instance type the job runs on, once every rule but check_processes holds."""
    if request.kind == "pytorch" and facts.training_operator != "ACTIVE":
        state = facts.training_operator or "not installed"
        raise Conflict(
            f"HyperPodPyTorchJob needs the HyperPod training operator, which is {state} on {facts.cluster}. Turn on"
            " the training operator in the cluster's features, and submit again once it is ACTIVE.",
            details=[
                {"field": "body.kind", "rule": "feature_enabled", "message": "trainingOperator"},
                next_step(f'PATCH /api/clusters/{facts.cluster}/features {{"trainingOperator": {{"enabled": true}}}}'),
            ],
        )
    if request.kind == "ray" and not facts.kuberay:
        raise Conflict(
            f"RayJob needs KubeRay, which is not running on {facts.cluster}. Install the cluster's dependencies"
            " with the optional ones (KubeRay is one), then submit again.",
            details=[
                {"field": "body.kind", "rule": "feature_enabled", "message": "kuberay-operator"},
                next_step(f'POST /api/clusters/{facts.cluster}/dependencies {{"includeOptional": true}}'),
            ],
        )
    group = facts.groups.get(request.instanceGroup)
    if group is None:
        known = ", ".join(sorted(facts.groups)) or "none yet"
        raise InvalidInput(
            f"{facts.cluster} has no instance group {request.instanceGroup}; its groups: {known}.",
            field="body.instanceGroup",
            rule="existing_group",
        )
    instance_type = str(group.get("InstanceType"))
    if request.elasticPolicy is not None:
        if _is_spot(group):
            raise InvalidInput(
                f"Elastic training is not supported on Spot capacity, and {request.instanceGroup} is a Spot group; "
                "drop elasticPolicy or use an on-demand or training-plan group.",
                field="body.elasticPolicy",
                rule="not_on_spot",
            )
        if facts.tiered_checkpointing:
            raise InvalidInput(
                f"Elastic training is not supported with managed tiered checkpointing, which is on for "
                f"{facts.cluster}; drop elasticPolicy or turn tieredCheckpointing off.",
                field="body.elasticPolicy",
                rule="not_with_tiered_checkpointing",
            )
        if not request.elasticPolicy.minReplicas <= request.replicas <= request.elasticPolicy.maxReplicas:
            raise InvalidInput(
                "replicas must lie between elasticPolicy.minReplicas and maxReplicas.",
                field="body.replicas",
                rule="within_elastic_range",
            )
    if (request.queue or request.priority) and not facts.task_governance:
        raise Conflict(
            f"queue and priority are Kueue settings and task governance is off on {facts.cluster}. Turn on task"
            " governance in the cluster's features first.",
            details=[
                {"field": "body.queue", "rule": "feature_enabled", "message": "taskGovernance"},
                next_step(f'PATCH /api/clusters/{facts.cluster}/features {{"taskGovernance": {{"enabled": true}}}}'),
            ],
        )
    return instance_type
