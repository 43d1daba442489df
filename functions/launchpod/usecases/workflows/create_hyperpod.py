"""The create-hyperpod workflow's phases: lifecycle scripts, execution role, compute subnet, the security
group shared with EKS, the nodes' access entry, SageMaker CreateCluster, then InService."""

from __future__ import annotations

from dataclasses import replace

from launchpod.contracts.hyperpod import CreateHyperPodInput
from launchpod.contracts.phase_outputs import (
    ComputeSubnetOutput,
    ExecutionRoleOutput,
    LifecycleScriptsOutput,
    NetworkOutput,
    SecurityGroupOutput,
)
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain import egress, ownership
from launchpod.domain.clusters import control_plane, hyperpod
from launchpod.domain.errors import PermanentError, RetryableError
from launchpod.domain.network import plan_subnets
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings
from launchpod.usecases.workflows.phase import PhaseResult


def request_of(doc: WorkflowInput) -> CreateHyperPodInput:
    return CreateHyperPodInput.model_validate(doc.request)


def tags_of(doc: WorkflowInput) -> dict[str, str]:
    return control_plane.tags(doc.target, settings().resource_prefix)


def execution_role_name(cluster: str) -> str:
    return control_plane.resource_name(settings().resource_prefix, cluster, "hp-exec")


def lifecycle_scripts(doc: WorkflowInput) -> PhaseResult:
    """LifecycleScripts: the scripts every new node runs, uploaded to the shared bucket."""
    bucket = settings().bucket
    uri = hyperpod.scripts_uri(bucket, doc.target)
    wiring.s3().put_text(bucket, f"{hyperpod.SCRIPTS_PREFIX}/{doc.target}/on_create.sh", hyperpod.ON_CREATE)
    return PhaseResult(outputs=LifecycleScriptsOutput(sourceS3Uri=uri), message=f"{uri}on_create.sh")


def execution_role(doc: WorkflowInput) -> PhaseResult:
    """ExecutionRole: the role HyperPod nodes run as, with ``hyperpod.execution_role_policy`` and nothing more."""
    name = execution_role_name(doc.target)
    iam = wiring.iam()
    arn = iam.ensure_role(
        name,
        "sagemaker.amazonaws.com",
        [],
        tags_of(doc),
        f"HyperPod execution role of {doc.target}, created by Launchpod",
    )
    iam.put_inline_policy(
        name, "launchpod-hyperpod-nodes", hyperpod.execution_role_policy(settings().bucket, doc.target)
    )
    return PhaseResult(outputs=ExecutionRoleOutput(roleArn=arn, roleName=name), message=arn)


def compute_subnet(doc: WorkflowInput) -> PhaseResult:
    """ComputeSubnet: a /20 for HyperPod nodes in the chosen zone, planned by the one subnet planner so
    it overlaps nothing in the VPC, routed through the control plane's NAT gateway. The VPC is the EKS
    cluster's, or, under provision-cluster (which runs this while EKS is created), the network's.

    In a reused or imported VPC the subnet takes the route table of the control plane's subnets that
    routes out through a NAT gateway; if none does (and the VPC has no endpoints for what nodes call),
    the phase fails before CreateCluster, naming the route that is missing: HyperPod's nodes could not
    bootstrap or join (``launchpod.domain.egress``)."""
    request, ec2 = request_of(doc), wiring.ec2()
    network = doc.output(NetworkOutput)  # provision-cluster: made before EKS is created
    vpc_id = network.vpcId if network else None
    if vpc_id is None:
        eks = wiring.eks().cluster(doc.target)
        if eks is None:
            raise PermanentError(f"EKS cluster {doc.target} does not exist; create the control plane first.")
        vpc_id = ec2.subnets(subnet_ids=list(eks.subnet_ids))[0].vpc_id
    vpc = ec2.vpc(vpc_id) or {}
    table_id, routed = _route_out(doc, vpc_id)
    tags = {**tags_of(doc), "launchpod:purpose": "hyperpod-compute", "launchpod:zone": request.availabilityZone}
    existing = ec2.subnets_tagged(vpc_id, tags)
    if existing:
        subnet_id, cidr = existing[0].id, existing[0].cidr
    else:
        taken = [s.cidr for s in ec2.subnets(vpc_id=vpc_id)]
        (cidr,) = plan_subnets(vpc["CidrBlock"], taken, [hyperpod.COMPUTE_PREFIX])
        subnet_id = ec2.ensure_subnet(
            vpc_id, cidr, request.availabilityZone, {**tags, "Name": f"{doc.target}-compute-{request.availabilityZone}"}
        )
    if table_id:
        ec2.associate(table_id, subnet_id)
    return PhaseResult(
        outputs=ComputeSubnetOutput(subnetId=subnet_id, cidr=cidr, vpcId=vpc_id),
        message=f"{subnet_id} {cidr} in {request.availabilityZone}, {routed}.",
    )


def _route_out(doc: WorkflowInput, vpc_id: str) -> tuple[str | None, str]:
    """(route table to associate or None, how the subnet reaches out); PermanentError if it cannot."""
    ec2 = wiring.ec2()
    private_table = ec2.route_table_id(vpc_id, {**tags_of(doc), "Name": f"{doc.target}-private"})
    if private_table:
        return private_table, "routed through the NAT gateway"
    network = doc.output(NetworkOutput)
    sources = list(network.subnetIds) if network else []
    if not sources:
        eks = wiring.eks().cluster(doc.target)
        sources = list(eks.subnet_ids) if eks else []
    tables = ec2.route_tables(vpc_id)
    table = egress.egress_table(tables, sources)
    if table is not None:
        return str(table["RouteTableId"]), f"routed like the control plane's subnets ({table['RouteTableId']})"
    main = next((t for t in tables if any(a.get("Main") for a in t.get("Associations", []))), None)
    if egress.routes_out(main):
        return None, "on the VPC's main route table, which routes out"
    missing = egress.missing_endpoints(ec2.vpc_endpoints(vpc_id), wiring.region())
    if not missing:
        return None, "on the VPC's main route table; the VPC's endpoints serve the nodes"
    names = ", ".join(sorted({str(t["RouteTableId"]) for t in tables})) or "none"
    raise PermanentError(
        f"HyperPod's nodes would have no way out of {vpc_id}: no route table of the control plane's subnets "
        f"({', '.join(sources) or 'none'}) nor the VPC's main table has a 0.0.0.0/0 route to a NAT gateway "
        f"(route tables: {names}), and the VPC has no endpoints for {', '.join(missing)}. Add a NAT gateway "
        "route to the private subnets' route table (or those VPC endpoints) and retry."
    )


def security_group(doc: WorkflowInput) -> PhaseResult:
    """SecurityGroup: the one security group HyperPod's nodes share with the EKS control plane.

    AWS's reference HyperPod EKS stack (awsome-distributed-training, ``security-group-stack.yaml``) gives
    EKS (``ResourcesVpcConfig.SecurityGroupIds``) and HyperPod (``VpcConfig.SecurityGroupIds``) one group
    with all traffic to and from itself: EFA needs it both ways, nodes reach the private API endpoint on
    443 through it, and the control plane reaches kubelets (10250) and webhooks. Launchpod's Network phase
    creates that group and hands it to EKS; this phase finds it. For an EKS cluster that does not carry it
    (imported, or created before), the reference adds the rules to the cluster's own security group
    instead, the one EKS attaches to its control-plane interfaces; so does this phase."""
    ec2 = wiring.ec2()
    vpc_id = doc.require(ComputeSubnetOutput).vpcId
    name = control_plane.shared_security_group_name(settings().resource_prefix, doc.target)
    eks = wiring.eks().cluster(doc.target)  # None under provision-cluster, while EKS is created with the group
    shared = ec2.security_group(vpc_id, name)
    if eks is not None and (shared is None or shared["GroupId"] not in eks.security_group_ids):
        cluster_group = ec2.security_group_by_id(str(eks.cluster_security_group_id))
        if cluster_group is not None:
            group_id = ec2.ensure_self_rules(cluster_group)
            return PhaseResult(
                outputs=SecurityGroupOutput(securityGroupId=group_id),
                message=f"{group_id}: the EKS cluster security group, all traffic within it (nodes, API, EFA).",
            )
    group_id = ec2.ensure_efa_security_group(vpc_id, name, {**tags_of(doc), "Name": name})
    return PhaseResult(
        outputs=SecurityGroupOutput(securityGroupId=group_id),
        message=f"{group_id}: shared with the EKS control plane, all traffic within the group (nodes, API, EFA).",
    )


def hyperpod_access(doc: WorkflowInput) -> PhaseResult:
    """HyperPodAccess: the EKS access entry through which HyperPod nodes join the cluster."""
    role_arn = doc.require(ExecutionRoleOutput).roleArn
    wiring.eks().ensure_access_entry(doc.target, role_arn, None, tags_of(doc), entry_type="HYPERPOD_LINUX")
    return PhaseResult(outputs={"principalArn": role_arn}, message=f"{role_arn} may join nodes (HYPERPOD_LINUX).")


def create_hyperpod(doc: WorkflowInput) -> PhaseResult:
    """CreateHyperPod: SageMaker CreateCluster on the EKS control plane, node auto-recovery as asked."""
    request, sm = request_of(doc), wiring.sagemaker()
    name = hyperpod.hyperpod_name(doc.target)
    existing = sm.hyperpod_cluster(name)
    record = wiring.clusters().get(doc.target)
    if (
        existing is not None
        and record is not None
        and ownership.may_record_existing(record, ownership.CREATED_HYPERPOD)
    ):
        wiring.clusters().record_created(doc.target, ownership.CREATED_HYPERPOD, existing.arn)
        record = replace(record, created={**record.created, ownership.CREATED_HYPERPOD: existing.arn})
    if (
        existing is not None
        and existing.status == "Failed"
        and not ownership.recorded_as_created(record, ownership.CREATED_HYPERPOD, existing.arn)
    ):
        raise PermanentError(
            f"HyperPod cluster {existing.arn} failed and Launchpod did not create it; delete it yourself "
            "or choose another cluster name."
        )
    if existing is not None and existing.status == "Failed":
        # A failed HyperPod cluster cannot be repaired in place: delete it, then create it again.
        sm.delete_cluster(name)
        return PhaseResult(ready=False, wait=30, message=f"Deleting the failed {existing.arn} first.")
    if existing is not None and existing.status == "Deleting":
        return PhaseResult(ready=False, wait=30, message=f"Waiting for the failed {name} to be deleted.")
    if existing is not None:
        return PhaseResult(
            outputs={"arn": existing.arn},
            message=f"{existing.arn} already exists ({existing.status}).",
        )
    eks = wiring.eks().cluster(doc.target)
    if eks is None:
        raise PermanentError(f"EKS cluster {doc.target} does not exist; create the control plane first.")
    wiring.clusters().record_requested(doc.target, ownership.CREATED_HYPERPOD)
    arn = sm.create_cluster(
        name=name,
        eks_arn=eks.arn,
        instance_groups=hyperpod.instance_groups(
            request, doc.require(ExecutionRoleOutput).roleArn, doc.require(LifecycleScriptsOutput).sourceS3Uri
        ),
        subnet_ids=[doc.require(ComputeSubnetOutput).subnetId],
        security_group_ids=[doc.require(SecurityGroupOutput).securityGroupId],
        node_recovery=request.nodeRecovery,
        tags=tags_of(doc),
        node_provisioning_mode=request.nodeProvisioningMode,
    )
    # What delete-cluster trusts, beyond the tags (launchpod.domain.ownership); a new ARN after a failed one.
    wiring.clusters().record_created(doc.target, ownership.CREATED_HYPERPOD, arn)
    return PhaseResult(outputs={"arn": arn}, message=f"Requested {arn} (NodeRecovery={request.nodeRecovery}).")


WAIT_IN_SERVICE = "WaitInService"


def wait_in_service(doc: WorkflowInput) -> PhaseResult:
    """WaitInService: reads HyperPod's status, after each wake-up of AwaitInService (the cluster-state
    event, or its fallback timeout). InService ends the wait; Failed ends the workflow with HyperPod's
    own FailureMessage and a hint at the likely cause."""
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
    if cluster is None:
        raise RetryableError(f"SageMaker does not show the HyperPod cluster {doc.target} yet.")
    status, polls = cluster.status, doc.poll.get(WAIT_IN_SERVICE, 0)
    counts = ", ".join(f"{g.name} {g.current_count}/{g.target_count}" for g in cluster.instance_groups)
    if status == "InService":
        return PhaseResult(
            outputs={"status": status, "nodeRecovery": cluster.node_recovery}, message=f"InService: {counts}."
        )
    if status in ("Failed", "RollingBack", "Deleting"):
        raise PermanentError(hyperpod.failure_hint(cluster.failure_message or f"HyperPod cluster is {status}."))
    if polls >= hyperpod.MAX_INSERVICE_POLLS:
        raise PermanentError(f"HyperPod cluster {doc.target} is still {status} after 90 minutes; check its events.")
    return PhaseResult(ready=False, message=f"HyperPod is {status}: {counts}.")


def park_until_in_service(doc: WorkflowInput, token: str) -> dict[str, object]:
    """AwaitInService: the workflow sleeps on a task token until HyperPod settles.

    Step Functions invokes it with ``lambda:invoke.waitForTaskToken``. The token is parked on the
    cluster's record, where the cluster-state event handler finds it when HyperPod reports InService
    (or Failed) and wakes the workflow at once. Only then is HyperPod's status read: a cluster that
    settled before the token was parked wakes its workflow from here. If no event ever comes, the
    task's timeout sends the workflow to WaitInService anyway, a poll as fallback."""
    wiring.clusters().park_waiter(doc.target, token)
    cluster = wiring.sagemaker().hyperpod_cluster(hyperpod.hyperpod_name(doc.target))
    status = cluster.status if cluster else None
    if status in hyperpod.SETTLED_STATUSES and wiring.clusters().take_waiter(doc.target) == token:
        wiring.workflows().send_task_success(token, {"status": status, "wokenBy": "check"})
        return {"parked": False, "status": status}
    return {"parked": True, "status": status}
