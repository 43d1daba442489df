"""What a job submission must meet before anything is applied, each refusal saying what to do.

- The operator that runs the kind must be there: the HyperPod training operator add-on ACTIVE for
  ``pytorch``, KubeRay (its RayJob CRD and a ready operator) for ``ray``: 409 naming the feature.
- The instance group exists, and a pod asks for no more GPUs or Neuron devices than its type has: 422.
- Elastic training (``elasticPolicy``) is refused on Spot instance groups and while managed tiered
  checkpointing is on, as AWS's elastic training page lists under its considerations
  (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-elastic-training.html).
- Elastic and checkpointless training need the training operator add-on at v1.2.0 or later (AWS's elastic
  training page: "v. 1.2 and above"; checkpointless: "You must install v1.2.0 or above",
  https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-eks-checkpointless.html): 409 naming the version.
- Checkpointless training keeps the model and optimizer state on peer replicas ("In-process recovery and
  checkpointless training", .../sagemaker-eks-checkpointless-in-process-recovery.html: replicated across node
  groups, ``num_distributed_optimizer_instances`` at least 2), so it needs 2 or more nodes; it does not work
  with managed tiered checkpointing (.../sagemaker-eks-checkpointless-considerations.html); its processes run
  under ``hyperpodrun --inprocess-restart`` with code built on the checkpointless package, so it takes a custom
  image whose command runs hyperpodrun, or the pytorch-torchrun recipe (the user's own script), not a recipe
  whose trainer Launchpod knows does not use the package.
- A queue or priority needs task governance (Kueue) on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from launchpod.contracts.jobs import SubmitJobInput
from launchpod.domain import mig
from launchpod.domain.clusters.hyperpod_cluster import InstanceGroupState
from launchpod.domain.errors import Conflict, InvalidInput, next_step
from launchpod.domain.jobs.hardware import Accelerators
from launchpod.domain.jobs.manifests import INPROCESS_FLAG
from launchpod.domain.jobs.recipes import Recipe, all_recipes


@dataclass(frozen=True)
class ClusterFacts:
    """What the API read about the cluster a job goes to."""

    cluster: str
    groups: dict[str, InstanceGroupState]  # instance group name -> the group as DescribeCluster reports it
    training_operator: str | None  # the add-on's status, None when not installed
    kuberay: bool  # RayJob CRD served and the operator Deployment ready
    task_governance: bool
    tiered_checkpointing: bool
    autoscaling: bool = False  # HyperPod-managed Karpenter: nodes are added for pods that wait
    training_operator_version: str | None = None  # the add-on's addonVersion, e.g. v1.2.0-eksbuild.1


# The first training operator add-on version with elastic and checkpointless training (AWS pages above).
RESILIENCE_OPERATOR = (1, 2, 0)
# Recipes whose processes may run checkpointless: the user's own script (pytorch-torchrun). The other recipes'
# trainers (LLaMA-Factory, ms-swift, TorchTitan, AWS's LLMFT) are not built on the checkpointless package.
CHECKPOINTLESS_RECIPES = ("pytorch-torchrun",)


def _version(text: str | None) -> tuple[int, ...] | None:
    """``v1.2.0-eksbuild.1`` -> (1, 2, 0); None when there is no version to read."""
    digits = re.match(r"^v?(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    return tuple(int(d or 0) for d in digits.groups()) if digits else None


def fit_warnings(request: SubmitJobInput, facts: ClusterFacts) -> list[str]:
    """Each pod takes a whole node of the group (manifests: every accelerator and EFA interface), so pods
    beyond the group's nodes wait Pending until nodes are added; said in the dry run and the answer."""
    if request.acceleratorPartition is not None:
        return []  # a pod of GPU partitions shares a node: usecases.jobs checks the nodes' free partitions
    group = facts.groups.get(request.instanceGroup)
    nodes = group.current_count if group else 0
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


def _feature_off(message: str, field: str, feature: str, call: str) -> Conflict:
    """The job needs ``feature`` (asked for by ``field``), which the cluster has off: ``call`` turns it on."""
    return Conflict(message, details=[{"field": field, "rule": "feature_enabled", "message": feature}, next_step(call)])


def check(request: SubmitJobInput, facts: ClusterFacts) -> str:
    """The instance type the job runs on, once every rule but check_processes holds."""
    if request.kind == "pytorch" and facts.training_operator != "ACTIVE":
        state = facts.training_operator or "not installed"
        raise _feature_off(
            f"HyperPodPyTorchJob needs the HyperPod training operator, which is {state} on {facts.cluster}. Turn on"
            " the training operator in the cluster's features, and submit again once it is ACTIVE.",
            "body.kind",
            "trainingOperator",
            f'PATCH /api/clusters/{facts.cluster}/features {{"trainingOperator": {{"enabled": true}}}}',
        )
    if request.kind == "ray" and not facts.kuberay:
        raise _feature_off(
            f"RayJob needs KubeRay, which is not running on {facts.cluster}. Install the cluster's dependencies"
            " with the optional ones (KubeRay is one), then submit again.",
            "body.kind",
            "kuberay-operator",
            f'POST /api/clusters/{facts.cluster}/dependencies {{"includeOptional": true}}',
        )
    group = facts.groups.get(request.instanceGroup)
    if group is None:
        known = ", ".join(sorted(facts.groups)) or "none yet"
        raise InvalidInput(
            f"{facts.cluster} has no instance group {request.instanceGroup}; its groups: {known}.",
            field="body.instanceGroup",
            rule="existing_group",
        )
    instance_type = str(group.instance_type)
    if request.elasticPolicy is not None:
        if group.spot:
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
    _check_resilience(request, facts)
    if (request.queue or request.priority) and not facts.task_governance:
        raise _feature_off(
            f"queue and priority are Kueue settings and task governance is off on {facts.cluster}. Turn on task"
            " governance in the cluster's features first.",
            "body.queue",
            "taskGovernance",
            f'PATCH /api/clusters/{facts.cluster}/features {{"taskGovernance": {{"enabled": true}}}}',
        )
    return instance_type


def _check_resilience(request: SubmitJobInput, facts: ClusterFacts) -> None:
    """Elastic and checkpointless training: the operator version both need, and what checkpointless needs."""
    wanted = "checkpointless" if request.checkpointless is not None else "elastic" if request.elasticPolicy else None
    if wanted is None:
        return
    have = _version(facts.training_operator_version)
    if have is not None and have < RESILIENCE_OPERATOR:
        raise Conflict(
            f"{wanted.capitalize()} training needs the HyperPod training operator v1.2.0 or later, and "
            f"{facts.cluster} runs {facts.training_operator_version}. Update the add-on (turn the trainingOperator "
            f"feature off and on again: PATCH /api/clusters/{facts.cluster}/features installs v1.2.0), then submit.",
            details=[
                {
                    "field": f"body.{wanted if wanted == 'checkpointless' else 'elasticPolicy'}",
                    "rule": "operator_version",
                    "message": "v1.2.0",
                }
            ],
        )
    if request.checkpointless is None:
        return
    if facts.tiered_checkpointing:
        raise InvalidInput(
            f"Checkpointless training does not work with managed tiered checkpointing, which is on for "
            f"{facts.cluster}; drop checkpointless or turn tieredCheckpointing off.",
            field="body.checkpointless",
            rule="not_with_tiered_checkpointing",
        )
    if request.replicas < 2:
        raise InvalidInput(
            "Checkpointless training recovers a failed node's model and optimizer state from its peer replicas, so "
            "it needs at least 2 nodes (replicas 2 or more); with one node, recover from checkpoints instead.",
            field="body.replicas",
            rule="peer_replicas",
        )
    if request.recipe is not None and request.recipe not in CHECKPOINTLESS_RECIPES:
        raise InvalidInput(
            f"Recipe {request.recipe}'s trainer is not built on the HyperPod checkpointless training package; "
            f"checkpointless runs your own script (recipe {', '.join(CHECKPOINTLESS_RECIPES)}) or a custom image "
            "built on it (AWS's checkpointless recipes use image hyperpod-checkpointless-training).",
            field="body.recipe",
            rule="checkpointless_recipe",
        )
    command = request.command or []
    if request.recipe is None and "hyperpodrun" not in command and not any(INPROCESS_FLAG in c for c in command):
        raise InvalidInput(
            "Checkpointless training runs the processes under the HyperPod elastic agent's in-process restart: "
            f"start them with hyperpodrun (a command element of its own, Launchpod adds {INPROCESS_FLAG}) or "
            f"pass {INPROCESS_FLAG} to hyperpodrun yourself.",
            field="body.command",
            rule="inprocess_restart",
        )
