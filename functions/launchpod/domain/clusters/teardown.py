"""The delete-cluster workflow's rules: the order things are torn down in, and the rule that
Launchpod deletes only what it created (found by its tags), never anything else."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.clusters import DeleteClusterInput, DeleteHyperPodInput
from launchpod.domain import ownership
from launchpod.domain.clusters.cluster_record import ClusterRecord
from launchpod.domain.clusters.eks_cluster import EksCluster
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.errors import InvalidInput
from launchpod.domain.operations import WorkflowPlan
from launchpod.domain.plan import Step

KIND = "delete-cluster"
PHASES: tuple[tuple[str, str], ...] = (
    (
        "DeleteLoadBalancers",
        "Delete the cluster's LoadBalancer Services and load-balanced Ingresses; wait until the AWS Load Balancer"
        " Controller has removed their load balancers",
    ),
    ("DeleteHyperPod", "Delete the HyperPod cluster and wait until it is gone"),
    ("DeleteControlPlane", "Delete the EKS cluster (its add-ons and access entries go with it)"),
    (
        "DeleteTrackingServer",
        "Delete the MLflow tracking server Launchpod created (its runs go with it; artifacts stay in the bucket)",
    ),
    ("DeleteIdentity", "Delete the IAM roles and OIDC provider Launchpod created"),
    ("DeleteNetwork", "Delete the NAT gateway, subnets, route tables, gateways and VPC Launchpod created"),
    ("DeleteScripts", "Delete the lifecycle scripts from the shared bucket"),
    ("Deregister", "Forget the cluster"),
)
HYPERPOD_KIND = "delete-hyperpod"
HYPERPOD_PHASES: tuple[tuple[str, str], ...] = (
    ("DeleteHyperPod", "Delete the HyperPod cluster and wait until it is gone"),
)
MAX_POLLS = 120
POLL_SECONDS = 30
# The AWS Load Balancer Controller deletes a load balancer within a reconcile or two; ten minutes at most.
LB_POLL_SECONDS = 15
MAX_LB_POLLS = 40
# The controller's IngressClass controller name and its legacy annotation value
# (https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/ingress/ingress_class/).
ALB_CONTROLLER = "ingress.k8s.aws/alb"
LEGACY_CLASS = "kubernetes.io/ingress.class"
DEFAULT_CLASS = "ingressclass.kubernetes.io/is-default-class"


def check_confirmation(request: DeleteClusterInput) -> None:
    if request.confirm != request.name:
        raise InvalidInput(
            f"Type the cluster's name, {request.name}, as confirm to delete it; deleting cannot be undone.",
            field="query.confirm",
            rule="confirm_matches_name",
        )


def plan(request: DeleteClusterInput) -> WorkflowPlan:
    check_confirmation(request)
    return WorkflowPlan.of(KIND, request, PHASES, exclude_none=False)


def steps(name: str, eks: EksCluster | None, hyperpod: HyperPodCluster | None, servers: list[str]) -> tuple[Step, ...]:
    """What delete-cluster will remove, from what exists now (a phase with nothing to remove is left out):
    each is removed at run time only if its tags and the registry say Launchpod created it."""
    ours = "only if Launchpod created it"
    found: list[Step] = []
    if eks is not None:
        found.append(
            Step(
                "delete",
                "LoadBalancer Services and load-balanced Ingresses",
                "their load balancers are removed before the cluster, or they are orphaned in the VPC",
                "DeleteLoadBalancers",
            )
        )
    if hyperpod is not None:
        status = hyperpod.status
        found.append(Step("delete", f"HyperPod cluster {name} ({status})", ours, "DeleteHyperPod"))
    if eks is not None:
        found.append(Step("delete", f"EKS cluster {name} ({eks.status})", ours, "DeleteControlPlane"))
    for server in servers:
        found.append(
            Step("delete", f"MLflow tracking server {server}", f"{ours}; artifacts stay", "DeleteTrackingServer")
        )
    found += [
        Step("delete", "IAM roles and OIDC provider tagged as the cluster's", ours, "DeleteIdentity"),
        Step("delete", "VPC, subnets, gateways and route tables tagged as the cluster's", ours, "DeleteNetwork"),
        Step("delete", "lifecycle scripts in the shared bucket", ours, "DeleteScripts"),
        Step("delete", f"Launchpod's record of {name}", "the cluster is forgotten", "Deregister"),
    ]
    return tuple(found)


def check_hyperpod_confirmation(request: DeleteHyperPodInput) -> None:
    if request.confirm != request.name:
        raise InvalidInput(
            f"Type the cluster's name, {request.name}, as confirm to delete its HyperPod cluster; its nodes and"
            " the pods on them go, and deleting cannot be undone.",
            field="query.confirm",
            rule="confirm_matches_name",
        )


def hyperpod_plan(request: DeleteHyperPodInput) -> WorkflowPlan:
    check_hyperpod_confirmation(request)
    return WorkflowPlan.of(HYPERPOD_KIND, request, HYPERPOD_PHASES, exclude_none=False)


def ours(tags: dict[str, str], cluster: str, prefix: str) -> bool:
    return ownership.owns_aws(tags, cluster, prefix)


def created_here(
    tags: dict[str, str], cluster: str, prefix: str, record: ClusterRecord | None, fact: str, arn: str
) -> bool:
    """An EKS or HyperPod cluster delete-cluster may remove: Launchpod's tags, and the registry's record
    of Launchpod's create phase having made exactly this cluster (a tag alone can be forged)."""
    return ours(tags, cluster, prefix) and ownership.recorded_as_created(record, fact, arn)


def load_balanced(
    services: list[dict[str, Any]], ingresses: list[dict[str, Any]], classes: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The objects whose load balancers must go before the cluster does: every Service of type LoadBalancer
    and every Ingress the AWS Load Balancer Controller serves (its IngressClass, the legacy ``alb``
    annotation, or no class where its class is the default). "If you have active services in your cluster
    that are associated with a load balancer, you must delete those services before deleting the cluster
    ... Otherwise, you can have orphaned resources in your VPC that prevent you from being able to delete
    the VPC" (https://docs.aws.amazon.com/eks/latest/APIReference/API_DeleteCluster.html); the controller
    removes a load balancer when its object is deleted, and only while it runs, so these go before the
    nodes that run it. Each comes back with apiVersion and kind, for deletion."""
    alb = {c["metadata"]["name"] for c in classes if (c.get("spec") or {}).get("controller") == ALB_CONTROLLER}
    default = any(
        ((c.get("metadata") or {}).get("annotations") or {}).get(DEFAULT_CLASS) == "true"
        for c in classes
        if c["metadata"]["name"] in alb
    )
    found = [
        {"apiVersion": "v1", "kind": "Service", **s}
        for s in services
        if (s.get("spec") or {}).get("type") == "LoadBalancer"
    ]
    for ingress in ingresses:
        named = (ingress.get("spec") or {}).get("ingressClassName")
        legacy = ((ingress.get("metadata") or {}).get("annotations") or {}).get(LEGACY_CLASS)
        if named in alb or legacy == "alb" or (named is None and legacy is None and default):
            found.append({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", **ingress})
    return found


def names_of(objects: list[dict[str, Any]]) -> str:
    return ", ".join(f"{o['kind']} {o['metadata'].get('namespace')}/{o['metadata']['name']}" for o in objects)
