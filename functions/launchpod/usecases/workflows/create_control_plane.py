"""The create-control-plane workflow's phases: network -> IAM role -> EKS -> ACTIVE -> OIDC -> access entry ->
core add-ons -> verify. import-cluster reuses AccessEntry and VerifyAccess on a cluster it did not create."""

from __future__ import annotations

from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.phase_outputs import ClusterRoleOutput, NetworkOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import addons, ownership
from launchpod.domain.clusters import control_plane
from launchpod.domain.clusters.eks_addon import EksAddon
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.domain.network import DEFAULT_VPC_CIDR
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows.phase import PhaseResult

WAIT_ACTIVE = "WaitActive"
CORE_ADDONS = "CoreAddons"


def request_of(doc: WorkflowInput) -> CreateClusterRequest:
    return CreateClusterRequest.model_validate(doc.request)


def tags_of(doc: WorkflowInput) -> dict[str, str]:
    # Shared with import-cluster, whose request carries no tags of its own.
    return control_plane.tags(doc.target, settings().resource_prefix, doc.request.get("tags") or {})


def _shared_group(doc: WorkflowInput, vpc_id: str) -> str:
    name = control_plane.shared_security_group_name(settings().resource_prefix, doc.target)
    return wiring.ec2().ensure_efa_security_group(vpc_id, name, {**tags_of(doc), "Name": name})


def _reuse(doc: WorkflowInput, vpc_id: str, subnet_ids: list[str]) -> PhaseResult:
    ec2 = wiring.ec2()
    if ec2.vpc(vpc_id) is None:
        raise PermanentError(f"VPC {vpc_id} does not exist in this region; give an existing VPC or none.")
    found = {s.id: s for s in ec2.subnets(subnet_ids=subnet_ids)}
    missing = [s for s in subnet_ids if s not in found]
    if missing:
        raise PermanentError(f"Subnets {', '.join(missing)} do not exist; give subnets of {vpc_id}.")
    outside = [s for s, v in found.items() if v.vpc_id != vpc_id]
    if outside:
        raise PermanentError(f"Subnets {', '.join(outside)} are not in {vpc_id}; give subnets of that VPC.")
    zones = {v.zone for v in found.values()}
    if len(zones) < 2:
        raise PermanentError(f"The subnets are all in {zones.pop()}; EKS needs subnets in at least two zones.")
    group_id = _shared_group(doc, vpc_id)
    return PhaseResult(
        outputs=NetworkOutput(vpcId=vpc_id, subnetIds=subnet_ids, securityGroupId=group_id, reused=True),
        message=f"Reusing {vpc_id} with {len(subnet_ids)} subnets in {', '.join(sorted(zones))}; "
        f"{group_id} for the control plane and HyperPod's nodes.",
    )


def network(doc: WorkflowInput) -> PhaseResult:
    """Network: a new VPC with private and public subnets in each zone and a NAT gateway, or checks
    that a VPC and subnets given for reuse exist and span two zones; in either, the security group EKS's
    control plane will share with HyperPod's nodes (all traffic within the group, as AWS's reference
    HyperPod EKS stack does, awsome-distributed-training ``security-group-stack.yaml``)."""
    request = request_of(doc)
    if request.network.vpcId and request.network.subnetIds:
        return _reuse(doc, request.network.vpcId, request.network.subnetIds)
    ec2, tags = wiring.ec2(), tags_of(doc)
    cidr = request.network.vpcCidr or DEFAULT_VPC_CIDR
    vpc_id = ec2.ensure_vpc(cidr, {**tags, "Name": f"{doc.target}-vpc"})
    plan = control_plane.network_plan(cidr, request.availabilityZones)
    private: list[str] = []
    public: list[str] = []
    for subnet in plan:
        role = {"kubernetes.io/role/elb": "1"} if subnet.public else {"kubernetes.io/role/internal-elb": "1"}
        kind = "public" if subnet.public else "private"
        subnet_id = ec2.ensure_subnet(
            vpc_id, subnet.cidr, subnet.zone, {**tags, **role, "Name": f"{doc.target}-{kind}-{subnet.zone}"}
        )
        (public if subnet.public else private).append(subnet_id)
    igw = ec2.ensure_internet_gateway(vpc_id, {**tags, "Name": f"{doc.target}-igw"})
    ec2.ensure_route_table(vpc_id, {**tags, "Name": f"{doc.target}-public"}, public, gateway_id=igw)
    for subnet_id in public:
        ec2.map_public_ip(subnet_id)
    nat = ec2.ensure_nat_gateway(public[0], {**tags, "Name": f"{doc.target}-nat"})
    ec2.ensure_route_table(vpc_id, {**tags, "Name": f"{doc.target}-private"}, private, nat_gateway_id=nat)
    group_id = _shared_group(doc, vpc_id)
    return PhaseResult(
        outputs=NetworkOutput(
            vpcId=vpc_id,
            vpcCidr=cidr,
            subnetIds=private,
            publicSubnetIds=public,
            natGatewayId=nat,
            securityGroupId=group_id,
            reused=False,
        ),
        message=f"{vpc_id} ({cidr}): private {', '.join(private)}; public {', '.join(public)}; NAT {nat}; "
        f"{group_id} for the control plane and HyperPod's nodes.",
    )


def cluster_role(doc: WorkflowInput) -> PhaseResult:
    """ClusterRole: the IAM role EKS assumes to manage the cluster."""
    name = control_plane.resource_name(settings().resource_prefix, doc.target, "eks")
    arn = wiring.iam().ensure_role(
        name,
        "eks.amazonaws.com",
        [control_plane.EKS_CLUSTER_POLICY],
        tags_of(doc),
        f"EKS cluster role of {doc.target}, created by Launchpod",
    )
    return PhaseResult(outputs=ClusterRoleOutput(roleArn=arn, roleName=name), message=arn)


def create_cluster(doc: WorkflowInput) -> PhaseResult:
    """CreateCluster: EKS CreateCluster with API_AND_CONFIG_MAP authentication and control-plane logging."""
    request, eks = request_of(doc), wiring.eks()
    existing = eks.cluster(doc.target)
    if existing is not None:
        if existing.tags.get(f"{settings().resource_prefix}:cluster") != doc.target:
            raise PermanentError(
                f"An EKS cluster named {doc.target} already exists and was not created by Launchpod; "
                "choose another name."
            )
        if ownership.may_record_existing(wiring.clusters().get(doc.target), ownership.CREATED_EKS):
            wiring.clusters().record_created(doc.target, ownership.CREATED_EKS, existing.arn)
        return PhaseResult(
            outputs={"arn": existing.arn},
            message=f"{existing.arn} already exists ({existing.status}).",
        )
    network = doc.require(NetworkOutput)
    wiring.clusters().record_requested(doc.target, ownership.CREATED_EKS)
    created = eks.create_cluster(
        name=doc.target,
        role_arn=doc.require(ClusterRoleOutput).roleArn,
        subnet_ids=network.subnetIds + network.publicSubnetIds,
        security_group_ids=[network.securityGroupId] if network.securityGroupId else [],
        version=request.kubernetesVersion,
        log_types=list(request.logging),
        tags=tags_of(doc),
    )
    # What delete-cluster trusts, beyond the tags (launchpod.domain.ownership).
    wiring.clusters().record_created(doc.target, ownership.CREATED_EKS, created["arn"])
    return PhaseResult(outputs={"arn": created["arn"]}, message=f"Requested {created['arn']}.")


def wait_active(doc: WorkflowInput) -> PhaseResult:
    """WaitActive: polls EKS until the cluster is ACTIVE; FAILED or too long ends the workflow."""
    cluster = wiring.eks().cluster(doc.target)
    if cluster is None:
        raise RetryableError(f"EKS does not show {doc.target} yet.")
    status = cluster.status
    polls = doc.poll.get(WAIT_ACTIVE, 0)
    if status == "ACTIVE":
        return PhaseResult(
            outputs={"endpoint": cluster.endpoint, "version": cluster.version},
            message=f"ACTIVE after {polls} polls; Kubernetes {cluster.version}.",
        )
    if status in ("FAILED", "DELETING"):
        raise PermanentError(control_plane.eks_failure_hint(f"EKS cluster {doc.target} is {status}."))
    if polls >= control_plane.MAX_ACTIVE_POLLS:
        minutes = polls * control_plane.ACTIVE_POLL_SECONDS // 60
        raise PermanentError(
            f"EKS cluster {doc.target} is still {status} after {minutes} minutes; "
            "check it in the EKS console, then retry."
        )
    return PhaseResult(
        ready=False, wait=control_plane.ACTIVE_POLL_SECONDS, message=f"EKS is {status} (check {polls + 1})."
    )


def oidc_provider(doc: WorkflowInput) -> PhaseResult:
    """OidcProvider: the IAM OIDC provider for the cluster's issuer (IRSA for add-ons that need it)."""
    cluster = wiring.eks().cluster(doc.target)
    issuer = cluster.oidc_issuer if cluster else None
    if not issuer:
        raise RetryableError(f"EKS has not published the OIDC issuer of {doc.target} yet.")
    arn = wiring.iam().ensure_oidc_provider(issuer, tags_of(doc))
    return PhaseResult(outputs={"issuer": issuer, "providerArn": arn}, message=arn)


def access_entry(doc: WorkflowInput) -> PhaseResult:
    """AccessEntry: gives Launchpod's own role cluster-admin through an EKS access entry, so the
    phases and operations that use the Kubernetes API can reach it."""
    principal = settings().kube_role_arn or wiring.sts().caller_principal_arn()
    wiring.eks().ensure_access_entry(doc.target, principal, control_plane.CLUSTER_ADMIN_POLICY, tags_of(doc))
    return PhaseResult(
        outputs={"principalArn": principal, "policyArn": control_plane.CLUSTER_ADMIN_POLICY},
        message=f"{principal} has AmazonEKSClusterAdminPolicy on the cluster.",
    )


def core_addons(doc: WorkflowInput) -> PhaseResult:
    """CoreAddons: vpc-cni, kube-proxy and eks-pod-identity-agent to ACTIVE; coredns created, and done once
    EKS reports it ACTIVE or DEGRADED only for want of nodes (a new cluster has none: "waits for nodes")."""
    eks = wiring.eks()
    present = eks.addons(doc.target)
    for name in control_plane.CORE_ADDONS:
        if name not in present:
            eks.create_addon(doc.target, name, tags_of(doc))
            present[name] = EksAddon(name=name, status="CREATING")
    found = {n: present[n] for n in control_plane.CORE_ADDONS}
    broken = [addons.problem(n, a) for n, a in found.items() if addons.broken(a)]
    if broken:
        raise PermanentError(f"Add-ons failed: {'; '.join(broken)}. Fix the cause shown, then retry.")
    versions = {n: a.version for n, a in found.items()}
    # A DaemonSet add-on must be ACTIVE; coredns is done when it is ACTIVE or only waits for nodes.
    waiting = sorted(
        n
        for n, a in found.items()
        if a.status != "ACTIVE" and (n in control_plane.DAEMONSET_ADDONS or not addons.settled(a))
    )
    if not waiting:
        active = [f"{n} {versions[n]}" for n, a in found.items() if a.status == "ACTIVE"]
        for_nodes = [n for n, a in found.items() if addons.waits_for_nodes(a)]
        message = ", ".join(active) + " ACTIVE."
        if for_nodes:
            message += " " + "; ".join(addons.waiting_note(n, versions[n]) for n in for_nodes) + "."
        return PhaseResult(outputs={"addons": versions, "waitingForNodes": for_nodes}, message=message)
    if doc.poll.get(CORE_ADDONS, 0) >= control_plane.MAX_ADDON_POLLS:
        raise PermanentError(
            f"Add-ons {', '.join(waiting)} did not become ACTIVE in 20 minutes; check them, then retry."
        )
    return PhaseResult(
        ready=False,
        wait=control_plane.ADDON_POLL_SECONDS,
        message="Waiting for " + ", ".join(f"{n} ({found[n].status})" for n in waiting),
    )


def verify_access(doc: WorkflowInput) -> PhaseResult:
    """VerifyAccess: reaches the cluster's Kubernetes API with Launchpod's role, proving the access entry works."""
    version, namespaces = wiring.kube_reads().server_version_and_namespaces(doc.target)
    return PhaseResult(
        outputs={"serverVersion": version, "namespaces": namespaces},
        message=f"Kubernetes {version} answers; namespaces: {', '.join(sorted(namespaces))}.",
    )
