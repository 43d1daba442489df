"""SecurityGroup: the one security group HyperPod's nodes share with the EKS control plane.

AWS's reference HyperPod EKS stack (awsome-distributed-training, ``security-group-stack.yaml``) gives
EKS (``ResourcesVpcConfig.SecurityGroupIds``) and HyperPod (``VpcConfig.SecurityGroupIds``) one group
with all traffic to and from itself: EFA needs it both ways, nodes reach the private API endpoint on
443 through it, and the control plane reaches kubelets (10250) and webhooks. Launchpod's Network phase
creates that group and hands it to EKS; this phase finds it. For an EKS cluster that does not carry it
(imported, or created before), the reference adds the rules to the cluster's own security group
instead, the one EKS attaches to its control-plane interfaces; so does this phase.
"""

from __future__ import annotations

from launchpod.contracts.phase_outputs import ComputeSubnetOutput, SecurityGroupOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import control_plane
from launchpod.entrypoints.workflows.create_hyperpod._common import tags_of
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring
from launchpod.runtime.settings import settings


def run(doc: WorkflowInput) -> PhaseResult:
    ec2 = wiring.ec2()
    vpc_id = doc.require(ComputeSubnetOutput).vpcId
    name = control_plane.shared_security_group_name(settings().resource_prefix, doc.target)
    eks = wiring.eks().cluster(doc.target)  # None under provision-cluster, while EKS is created with the group
    vpc_config = (eks or {}).get("resourcesVpcConfig", {})
    shared = ec2.security_group(vpc_id, name)
    if eks is not None and (shared is None or shared["GroupId"] not in vpc_config.get("securityGroupIds", [])):
        cluster_group = ec2.security_group_by_id(vpc_config["clusterSecurityGroupId"])
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


handler = phase("SecurityGroup")(run)
