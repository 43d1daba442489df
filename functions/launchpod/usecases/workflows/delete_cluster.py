"""The delete-cluster workflow's phases: Services' load balancers -> HyperPod -> EKS -> tracking server ->
IAM -> network -> scripts -> registry, only what Launchpod created."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import DeleteControlPlaneOutput, DeleteNetworkOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import mlflow, ownership
from launchpod.domain.clusters import control_plane, hyperpod, teardown
from launchpod.domain.errors import LaunchpodError, PermanentError
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases import teardown as cases
from launchpod.usecases.workflows.phase import PhaseResult

DELETE_LOAD_BALANCERS = "DeleteLoadBalancers"
DELETE_HYPERPOD = "DeleteHyperPod"
DELETE_CONTROL_PLANE = "DeleteControlPlane"
DELETE_TRACKING_SERVER = "DeleteTrackingServer"
DELETE_NETWORK = "DeleteNetwork"
# A NAT gateway usually reaches "deleted" within minutes; look again every 15 seconds, for an hour at most.
NAT_POLL_SECONDS = 15
MAX_NAT_POLLS = 240


def our_tags(cluster: str) -> dict[str, str]:
    """The cluster's ownership tags, which every resource Launchpod made for it carries."""
    return control_plane.tags(cluster, settings().resource_prefix)


def delete_load_balancers(doc: WorkflowInput) -> PhaseResult:
    """DeleteLoadBalancers: the cluster's load-balanced Services and Ingresses deleted and waited for before
    anything else goes (usecases.teardown.remove_load_balancers)."""
    found = cases.remove_load_balancers(doc.target, doc.poll.get(DELETE_LOAD_BALANCERS, 0), ports=cases.real())
    if not found.done:
        return PhaseResult(ready=False, wait=teardown.LB_POLL_SECONDS, message=found.message)
    return PhaseResult(message=found.message, skipped=found.skipped)


def delete_hyperpod(doc: WorkflowInput) -> PhaseResult:
    """DeleteHyperPod: deletes the HyperPod cluster Launchpod created and waits until it is gone."""
    sm, name = wiring.sagemaker(), hyperpod.hyperpod_name(doc.target)
    found = sm.hyperpod_cluster(name)
    polls = doc.poll.get(DELETE_HYPERPOD, 0)
    if found is None:
        return PhaseResult(outputs={"deleted": polls > 0}, message="No HyperPod cluster remains.", skipped=polls == 0)
    try:
        tags = sm.tags(found.arn)
    except LaunchpodError:
        if sm.hyperpod_cluster(name) is None:  # gone between the two reads (ListTags then fails)
            return PhaseResult(outputs={"deleted": True}, message="No HyperPod cluster remains.")
        raise
    record = wiring.clusters().get(doc.target)
    arn = found.arn
    if not teardown.created_here(tags, doc.target, settings().resource_prefix, record, ownership.CREATED_HYPERPOD, arn):
        return PhaseResult(
            outputs={"kept": arn},
            skipped=True,
            message=f"{arn} was not created by Launchpod (its registry records no such create); left in place.",
        )
    if polls >= teardown.MAX_POLLS:
        raise PermanentError(f"HyperPod cluster {name} is still {found.status} after an hour; check it.")
    if found.status != "Deleting":
        sm.delete_cluster(name)
    return PhaseResult(ready=False, wait=teardown.POLL_SECONDS, message=f"Deleting {found.arn}.")


def delete_control_plane(doc: WorkflowInput) -> PhaseResult:
    """DeleteControlPlane: deletes the EKS cluster Launchpod created (add-ons, access entries and pod
    identity associations go with it) and waits until it is gone; keeps its OIDC issuer for the next phase."""
    eks = wiring.eks()
    found = eks.cluster(doc.target)
    earlier = doc.output(DeleteControlPlaneOutput)  # this phase's earlier polls
    issuer = earlier.issuer if earlier else None
    polls = doc.poll.get(DELETE_CONTROL_PLANE, 0)
    if found is None:
        return PhaseResult(
            outputs=DeleteControlPlaneOutput(issuer=issuer),
            message="No EKS cluster remains.",
            skipped=polls == 0 and issuer is None,
        )
    record = wiring.clusters().get(doc.target)
    prefix = settings().resource_prefix
    if not teardown.created_here(found.tags, doc.target, prefix, record, ownership.CREATED_EKS, found.arn):
        return PhaseResult(
            outputs=DeleteControlPlaneOutput(kept=found.arn),
            skipped=True,
            message=f"{found.arn} was not created by Launchpod (no create recorded); left in place.",
        )
    if polls >= teardown.MAX_POLLS:
        raise PermanentError(f"EKS cluster {doc.target} is still {found.status} after an hour; check it.")
    doc.record(DeleteControlPlaneOutput(issuer=found.oidc_issuer))
    if found.status != "DELETING":
        eks.delete_cluster(doc.target)
    return PhaseResult(ready=False, wait=teardown.POLL_SECONDS, message=f"Deleting {found.arn}.")


def delete_tracking_server(doc: WorkflowInput) -> PhaseResult:
    """DeleteTrackingServer: the MLflow tracking server Launchpod created for this cluster, deleted and
    waited for before DeleteIdentity removes the role it runs with. A server the user picked (not tagged as
    this cluster's) is left in place, and so are the artifacts under mlflow/ in the shared bucket.

    AWS (DeleteMlflowTrackingServer; "Delete a tracking server",
    https://docs.aws.amazon.com/sagemaker/latest/dg/mlflow-delete-tracking-server.html): the server goes
    Deleting, then DescribeMlflowTrackingServer answers ResourceNotFound; its run metadata goes with it."""
    prefix, servers = settings().resource_prefix, wiring.mlflow()
    polls = doc.poll.get(DELETE_TRACKING_SERVER, 0)
    deleting, kept = [], []
    for name in mlflow.teardown_names(wiring.clusters().get(doc.target), prefix, doc.target):
        found = servers.describe(name)
        if found is None:
            continue
        if not teardown.ours(wiring.sagemaker().tags(found.arn), doc.target, prefix):
            kept.append(name)
            continue
        if found.status != "Deleting":
            servers.delete(name)
        deleting.append(name)
    left = f" Left in place (not created by Launchpod): {', '.join(kept)}." if kept else ""
    if deleting:
        if polls >= teardown.MAX_POLLS:
            raise PermanentError(f"Tracking server {', '.join(deleting)} is still deleting after an hour; check it.")
        return PhaseResult(ready=False, wait=teardown.POLL_SECONDS, message=f"Deleting {', '.join(deleting)}.{left}")
    message = ("Tracking server deleted." if polls else "No tracking server to delete.") + left
    return PhaseResult(outputs={"kept": kept}, message=message, skipped=polls == 0)


def delete_identity(doc: WorkflowInput) -> PhaseResult:
    """DeleteIdentity: the IAM roles and the OIDC provider Launchpod created for this cluster. The roles are
    every ``<prefix>-<cluster>-*`` role carrying the cluster's tags, the managed features' pod identity roles
    included (training and inference operators, observability: its AWS managed policies are detached first).
    Container Insights' log group /aws/containerinsights/<cluster>/application is the user's data (their
    jobs' logs) and is deliberately left in place; CloudWatch Logs' retention or the user deletes it."""
    iam, tags = wiring.iam(), our_tags(doc.target)
    roles = iam.delete_tagged_roles(f"{settings().resource_prefix}-{doc.target}-", tags)
    made = doc.output(DeleteControlPlaneOutput)
    issuer = made.issuer if made else None
    provider = iam.delete_oidc_provider(issuer, tags) if issuer else None
    gone = roles + ([provider] if provider else [])
    return PhaseResult(outputs={"deleted": gone}, message="Deleted " + (", ".join(gone) or "nothing"), skipped=not gone)


def delete_network(doc: WorkflowInput) -> PhaseResult:
    """DeleteNetwork: every network resource tagged as this cluster's; a VPC the user gave is kept,
    only the compute subnet and security group Launchpod added to it go. NAT gateways go first and take
    minutes to be deleted; their addresses, subnets and the internet gateway wait for them."""
    ec2 = wiring.ec2()
    tags = our_tags(doc.target)
    started, pending = ec2.delete_tagged_nat_gateways(tags)
    earlier = doc.output(DeleteNetworkOutput)  # this phase's earlier polls
    gone = [*(earlier.deleted if earlier else []), *started]
    if pending:
        if doc.poll.get(DELETE_NETWORK, 0) >= MAX_NAT_POLLS:
            raise PermanentError(
                f"NAT gateway {', '.join(pending)} is still deleting after an hour; check it in the VPC console, "
                "then retry the operation."
            )
        doc.record(DeleteNetworkOutput(deleted=gone))
        return PhaseResult(
            ready=False,
            wait=NAT_POLL_SECONDS,
            message=f"Waiting for NAT gateway {', '.join(pending)} to be deleted (it takes minutes); its address, "
            "subnet and the internet gateway go next.",
        )
    gone += ec2.delete_tagged_network(tags)
    return PhaseResult(
        outputs=DeleteNetworkOutput(deleted=gone),
        message=f"Deleted {len(gone)}: " + (", ".join(gone) or "nothing"),
        skipped=not gone,
    )


def delete_scripts(doc: WorkflowInput) -> PhaseResult:
    """DeleteScripts: the cluster's lifecycle scripts in the shared bucket (the bucket itself stays)."""
    count = wiring.s3().delete_prefix(settings().bucket, f"{hyperpod.SCRIPTS_PREFIX}/{doc.target}/")
    return PhaseResult(outputs={"deleted": count}, message=f"Deleted {count} objects.", skipped=count == 0)


def deregister(doc: WorkflowInput) -> PhaseResult:
    """Deregister: Launchpod forgets the cluster (its operations stay, as history)."""
    wiring.clusters().forget(doc.target)
    return PhaseResult(message=f"{doc.target} is no longer in the registry.")
