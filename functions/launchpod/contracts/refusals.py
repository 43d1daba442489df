"""The refusals a request can meet that its schema does not predict: the one list of them.

The OpenAPI document states every rule a JSON Schema can state (patterns, uniqueItems, const, minProperties,
oneOf), so a request valid against it is refused only for what is listed here, each with its status and
error code (and the ``details[].rule`` the error carries):

- what only state decides: a zone the region does not have, a type a zone does not offer, a cursor this
  API never issued, a group, node, claim or queue the cluster does not have (``REFUSALS``), and on every
  route an unknown cluster or other resource (404) or a busy one (409) (``BY_STATUS``);
- what a schema cannot say: a query parameter equal to a path parameter, objects distinct by one field,
  one number at most another, one list within another.

tests/sandbox/test_fuzz_api.py accepts exactly these refusals from schemathesis's positive data acceptance
check, and tests/contracts/test_schema_rules.py holds this list to the rules the code raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from launchpod.contracts.errors import ErrorCode


@dataclass(frozen=True)
class Refusal:
    rule: str  # the error's details[].rule
    status: int
    code: ErrorCode
    decided_by: Literal["state", "cross-field"]
    what: str


def _state(rule: str, what: str) -> Refusal:
    return Refusal(rule, 422, ErrorCode.VALIDATION_FAILED, "state", what)


def _cross(rule: str, what: str) -> Refusal:
    return Refusal(rule, 422, ErrorCode.VALIDATION_FAILED, "cross-field", what)


REFUSALS: dict[str, Refusal] = {
    r.rule: r
    for r in (
        _state("cursor", "a nextToken this listing never issued, or issued under other filters"),
        _state("offered_zone", "an availability zone the region does not have"),
        _state("offered_in_zone", "an instance type the zone does not offer"),
        _state("zone_of_subnet", "a zone other than the one the cluster's subnet is in"),
        _state("zone", "no zone given, and the cluster reports no subnet to take it from"),
        _state("described_by_ec2", "an instance type EC2 does not describe in the region"),
        _state("gpu_instance_type", "an instance type without GPUs where GPUs are needed"),
        _state("gpus_per_node", "more GPUs per endpoint replica than one node of the instance type has"),
        _state("efa_only_type", "EFA-only interfaces on a type with too few EFA cards"),
        _state("instance_type_in_cluster", "an instance type no group of the cluster runs"),
        _state("training_plan_exists", "a training plan the account does not have"),
        _state("training_plan_active", "a training plan that is not Active"),
        _state("training_plan_type", "an instance type other than the one the training plan reserves"),
        _state("training_plan_capacity", "more instances than the training plan has free"),
        _state("training_plan", "a training plan that cannot serve the group (its zone, type or free instances)"),
        _state("confirm_price", "a purchase whose confirmPrice is not the offering's upfront fee now"),
        _cross("zone_in_region", "an availability zone outside the Region asked for the cluster"),
        # not an enum in the schema (it would repeat in every tool an agent is given): the 422 lists them
        _state("hyperpod_region", "a Region SageMaker HyperPod does not run in"),
        _cross("search_window", "a capacity search whose window ends before it starts"),
        _cross("metrics_window", "a metrics range whose end is not after its start"),
        _cross("max_points", "a metrics range of more than 11,000 steps (Prometheus' limit per series)"),
        _state("existing_group", "an instance group the cluster does not have"),
        _state("existing_instance_group", "an instance group the cluster does not have"),
        _state("known_instance_group", "an instance group the cluster does not have"),
        _state("instance_group_exists", "an instance group name the cluster already has"),
        _state("known_node", "a node id the cluster does not have"),
        _state("node_in_group", "a node id that is not in the instance group named with it"),
        _state("known_cluster", "a target cluster that has no HyperPod cluster"),
        _state("same_region", "a move to a cluster in another Region"),
        _state("immutable_field", "a change to what is fixed for the life of a group"),
        _state("continuous_provisioning", "a flexible group or minInstanceCount on a cluster without Continuous"),
        _state("existing_claim", "a storage claim the cluster does not have"),
        _state("an S3 storage", "an FSx for Lustre storage where an S3 one is needed"),
        _state("existing_queue", "a LocalQueue the cluster does not have"),
        _state("existing_priority_class", "a WorkloadPriorityClass the cluster does not have"),
        _state("mig_profile_of_type", "a GPU partition profile the instance type's GPUs do not offer"),
        _state("mig_layout_of_type", "a MIG layout the instance group's GPUs cannot take (profile or mix)"),
        _state("mig_single_type", "GPU partitions on a flexible instance group (MIG needs one instanceType)"),
        _state("not_on_spot", "elastic training on a Spot group"),
        _state("not_with_tiered_checkpointing", "elastic or checkpointless training while tiered checkpointing is on"),
        _state("at_most", "more processes per node than the instance type has devices (rule at_most_<n>)"),
        _state("autoscaling_supported_group", "an instance group managed Karpenter cannot scale"),
        _state("confirm_scale_to_zero", "a group that runs nodes now, not named in confirmScaleToZero"),
        _state("system_capacity", "autoscaling every group, leaving no node for the system pods"),
        _state("a container of the pod", "a container the pod does not have"),
        _state("one container of several", "no container named, and the pod has several"),
        _state("idempotency_key_reused", "an Idempotency-Key already used for another request"),
        _state("sagemaker_validation", "a request SageMaker's own validation refuses"),
        _state(
            "notification_endpoint",
            "a webhook that is not https or resolves to a private address, or an e-mail address that is not one",
        ),
        _cross("confirm_matches_name", "confirm (query) is not the name in the path, typed again"),
        _cross("distinct_names", "objects in a list that share the field that names them"),
        _cross("ordered", "a minimum above its maximum (minReplicas, maxReplicas)"),
        _cross("within_elastic_range", "replicas outside elasticPolicy's minReplicas..maxReplicas"),
        _cross("within_max_replicas", "an elastic world size (replicaDiscreteValues) above maxReplicas"),
        _cross("peer_replicas", "checkpointless training on one node (it recovers from peer replicas)"),
        _cross("checkpointless_recipe", "checkpointless training with a recipe whose trainer does not support it"),
        _cross("inprocess_restart", "checkpointless training whose command does not run hyperpodrun"),
        _cross("other_group", "a move to the group the nodes are in (targetGroup is sourceGroup, same cluster)"),
        _cross("subset", "confirmScaleToZero names a group that groups does not"),
        _cross("sglang_router", "the SGLang router with a worker image that is not SGLang"),
        _cross("pd_engine", "prefill/decode disaggregation on an engine its kind does not offer it for"),
        _cross("pd_router", "self-managed prefill/decode disaggregation without the SGLang router, or in a model pool"),
        _cross(
            "pd_field", "a prefill/decode field of the other kind (routingThreshold managed, transferBackend SGLang)"
        ),
        _cross("one_spelling", "a field or query parameter sent under its name and its older spelling at once"),
        _cross("multinode_engine", "self-managed multi-node serving with an image that is not SGLang"),
        _cross(
            "multinode_field", "multiNode with replicas over 1, a router, pd, a model pool, autoscaling or its flags"
        ),
        _state("nodes_of_type", "a multiNode endpoint on more nodes than the cluster has of its instance type"),
        _cross("same_limit", "two spellings of one token limit (max_tokens and its other name) with different values"),
    )
}

# What every route may answer a valid request with, because state decides it: each with the one code it carries.
BY_STATUS: dict[int, tuple[ErrorCode, str]] = {
    404: (ErrorCode.NOT_FOUND, "a cluster, node, job, endpoint, team or operation that does not exist"),
    409: (ErrorCode.CONFLICT, "the cluster is busy (another operation holds it) or not in a state for this"),
}

# Rules the code raises that only a request the document calls invalid can meet: the schema states them.
STATED_BY_SCHEMA = frozenset(
    {
        "object",  # the body is a JSON object (requestBody's schema)
        "boolean",  # dryRun is a boolean (its parameter's schema)
        "acknowledge_data_loss",  # const true, required
        "matches_recipe",  # each recipe's kind (SubmitJobRequest's oneOf)
        "required_with_recipe",  # a recipe's storageClaim (SubmitJobRequest's oneOf)
    }
)


def refusal_of(rule: str) -> Refusal | None:
    """The listed refusal a rule is, ``at_most_8`` included (``at_most``)."""
    return REFUSALS.get(rule) or (REFUSALS["at_most"] if rule.startswith("at_most_") else None)
