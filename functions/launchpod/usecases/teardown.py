"""Before a cluster's network goes: the Services of type LoadBalancer and the Ingresses the AWS Load Balancer
Controller serves are deleted, and delete-cluster waits until they are gone, that is until the controller
(still running on the cluster's nodes) has removed their load balancers with the network interfaces and
security groups they hold in the VPC. Left behind, those block the VPC's deletion. Only on an EKS cluster
Launchpod created: another one's Services are not Launchpod's to delete."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from launchpod.domain.clusters import teardown
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.usecases.ports import ControlPlanes, KubeLister


@dataclass(frozen=True)
class LoadBalancerPorts:
    eks: ControlPlanes
    items: KubeLister
    delete: Callable[[str, dict[str, Any]], bool]
    prefix: str


def real() -> LoadBalancerPorts:
    """The deployed adapters (runtime.wiring and the Kubernetes client)."""
    from launchpod.runtime import wiring
    from launchpod.runtime.settings import settings

    return LoadBalancerPorts(
        eks=wiring.eks(), items=wiring.kube_items(), delete=wiring.kube_delete(), prefix=settings().resource_prefix
    )


@dataclass(frozen=True)
class Removal:
    """Where the removal stands: ``done`` (gone, or nothing to remove: ``skipped``) or still waiting."""

    done: bool
    message: str
    skipped: bool = False


def remove_load_balancers(cluster: str, polls: int, *, ports: LoadBalancerPorts) -> Removal:
    """One look: delete what still has a load balancer (once), or say it is gone; ``polls`` looks so far."""
    found = ports.eks.cluster(cluster)
    if found is None:
        return Removal(True, "No EKS cluster: no load balancers of its Services to remove.", skipped=True)
    if not teardown.ours(found.tags, cluster, ports.prefix):
        return Removal(True, f"{found.arn} was not created by Launchpod; its Services stay.", skipped=True)
    if found.status != "ACTIVE":
        return Removal(True, f"The EKS cluster is {found.status}; its API is not served.", skipped=True)
    try:
        left = teardown.load_balanced(
            ports.items(cluster, "Service"), ports.items(cluster, "Ingress"), ports.items(cluster, "IngressClass")
        )
    except RetryableError:
        raise  # the API server did not answer: Step Functions tries again
    except PermanentError as exc:  # refused (no access entry any more, say): the rest of the delete goes on
        return Removal(
            True,
            f"Could not list the cluster's Services ({exc}); a load balancer they made stays in the VPC "
            "and the network's deletion then names what holds it.",
            skipped=True,
        )
    if not left:
        if polls > 0:
            return Removal(True, "The load balancers are gone.")
        return Removal(True, "No Service or Ingress has a load balancer.", skipped=True)
    if polls >= teardown.MAX_LB_POLLS:
        raise PermanentError(
            f"{teardown.names_of(left)} still wait for the AWS Load Balancer Controller to remove their load "
            "balancers after 10 minutes. Check that kube-system/aws-load-balancer-controller runs (its logs say "
            "why it cannot), or delete the load balancers in the EC2 console and remove the objects' "
            "finalizers, then retry."
        )
    for obj in left:
        if not obj["metadata"].get("deletionTimestamp"):
            ports.delete(cluster, obj)
    return Removal(False, f"Deleting {teardown.names_of(left)}; waiting for their load balancers to be removed.")
