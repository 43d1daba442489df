"""DeleteLoadBalancers: before anything else goes, the Services of type LoadBalancer and the Ingresses the
AWS Load Balancer Controller serves are deleted, and the phase waits until they are gone, that is until the
controller (still running on the cluster's nodes) has removed their load balancers with the network
interfaces and security groups they hold in the VPC. Left behind, those block the VPC's deletion. Only on an
EKS cluster Launchpod created: another one's Services are not Launchpod's to delete."""

from __future__ import annotations

from launchpod.adapters.k8s import apply as k8s
from launchpod.adapters.k8s import listing
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import teardown
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings

PHASE = "DeleteLoadBalancers"


def run(doc: WorkflowInput) -> PhaseResult:
    found = wiring.eks().cluster(doc.target)
    if found is None:
        return PhaseResult(skipped=True, message="No EKS cluster: no load balancers of its Services to remove.")
    if not teardown.ours(found.get("tags", {}), doc.target, settings().resource_prefix):
        return PhaseResult(skipped=True, message=f"{found['arn']} was not created by Launchpod; its Services stay.")
    if found.get("status") != "ACTIVE":
        return PhaseResult(skipped=True, message=f"The EKS cluster is {found.get('status')}; its API is not served.")
    try:
        left = teardown.load_balanced(
            listing.items(doc.target, "Service"),
            listing.items(doc.target, "Ingress"),
            listing.items(doc.target, "IngressClass"),
        )
    except RetryableError:
        raise  # the API server did not answer: Step Functions tries again
    except PermanentError as exc:  # refused (no access entry any more, say): the rest of the delete goes on
        return PhaseResult(
            skipped=True,
            message=f"Could not list the cluster's Services ({exc}); a load balancer they made stays in the VPC "
            "and the network's deletion then names what holds it.",
        )
    if not left:
        polled = doc.poll.get(PHASE, 0) > 0
        return PhaseResult(
            message="The load balancers are gone." if polled else "No Service or Ingress has a load balancer.",
            skipped=not polled,
        )
    if doc.poll.get(PHASE, 0) >= teardown.MAX_LB_POLLS:
        raise PermanentError(
            f"{teardown.names_of(left)} still wait for the AWS Load Balancer Controller to remove their load "
            "balancers after 10 minutes. Check that kube-system/aws-load-balancer-controller runs (its logs say "
            "why it cannot), or delete the load balancers in the EC2 console and remove the objects' "
            "finalizers, then retry."
        )
    for obj in left:
        if not obj["metadata"].get("deletionTimestamp"):
            k8s.delete(doc.target, obj)
    return PhaseResult(
        ready=False,
        wait=teardown.LB_POLL_SECONDS,
        message=f"Deleting {teardown.names_of(left)}; waiting for their load balancers to be removed.",
    )


handler = phase(PHASE)(run)
