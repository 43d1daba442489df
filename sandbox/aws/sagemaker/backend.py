"""``install()``: replaces moto's HyperPod response methods, teaches moto's ARN lookup cluster ids, and adds
the Service Quotas and training-plan calls HyperPod's capacity comes from. ``reset()`` forgets the
process-wide settings a test may leave behind."""

from __future__ import annotations

from typing import Any

from moto.sagemaker.models import SageMakerModelBackend
from moto.sagemaker.responses import SageMakerResponse

from sandbox.aws.core import once, patch
from sandbox.aws.sagemaker import capacity, node_faults
from sandbox.aws.sagemaker.clusters import hyperpod_clusters
from sandbox.aws.sagemaker.common import LOCK, invalid, region_zones
from sandbox.aws.sagemaker.durations import reset_durations
from sandbox.aws.sagemaker.events import set_state_sink
from sandbox.aws.sagemaker.faults import HYPERPOD_FAULTS
from sandbox.aws.sagemaker.kube_nodes import set_node_sink
from sandbox.aws.sagemaker.lifecycle import settle_cluster
from sandbox.aws.sagemaker.responses import RESPONSE_METHODS


class _NoGroup:
    spec: dict[str, Any] = {}


_NO_GROUP = _NoGroup()


def _plan_in_use(backend: SageMakerModelBackend, arn: str) -> int:
    """Instances of the account's HyperPod clusters running on training plan ``arn``: a node's group's plan,
    or, once MoveClusterNodes moved it, the plan it came with (moves keep the capacity)."""
    with LOCK:
        return sum(
            1
            for c in hyperpod_clusters(backend)
            if settle_cluster(backend, c)
            for n in c.nodes.values()
            if (
                n.plan_arn
                if n.plan_arn is not None
                else (c.groups.get(n.group) or _NO_GROUP).spec.get("TrainingPlanArn")
            )
            == arn
        )


@once
def install() -> None:
    """Apply the HyperPod extensions (idempotent). SageMaker is JSON/X-Amz-Target: no URL registration."""
    for name, method in RESPONSE_METHODS.items():
        setattr(SageMakerResponse, name, method)
    capacity.install(_plan_in_use, lambda response, params: [z for z, _ in region_zones(response.region)])
    previous = SageMakerModelBackend._get_resource_from_arn

    def from_arn(self: SageMakerModelBackend, arn: str) -> Any:
        # Cluster ARNs end in the cluster id, not the name moto keys its clusters by.
        if ":cluster/" in arn:
            for cluster in self.clusters.values():
                if getattr(cluster, "arn", None) == arn:
                    return cluster
            # SageMaker answers ListTags/AddTags on a resource that is gone with a ValidationException
            # (aws/amazon-sagemaker-feedback#108); moto's lookup returns None and then fails on it.
            raise invalid(f"Resource {arn} does not exist.")
        return previous(self, arn)

    patch(SageMakerModelBackend, "_get_resource_from_arn", from_arn)


def reset() -> None:
    """Put HyperPod's process-wide settings back as ``install`` left them: default durations, no armed
    fault, no node or state sink (nor what they were last sent), no injected node faults, quotas or Spot
    capacity. moto's own reset drops the clusters; the HyperPod clock is not reset (it never runs
    backwards), nor are the install-time hooks."""
    reset_durations()
    HYPERPOD_FAULTS.clear()
    set_node_sink(None)
    set_state_sink(None)
    node_faults.clear()
    capacity.clear()
