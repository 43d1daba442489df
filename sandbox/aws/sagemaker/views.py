"""What DescribeCluster, DescribeClusterNode, ListClusterNodes and the cluster event calls answer, derived
from the model."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

from sandbox.aws.sagemaker import autoscaling, operations, training_plans
from sandbox.aws.sagemaker.common import detail_members, drop_empty
from sandbox.aws.sagemaker.durations import sim_now
from sandbox.aws.sagemaker.models import (
    ClusterEvent,
    HyperPodCluster,
    HyperPodNode,
    InstanceGroup,
    cluster_status,
    current_count,
    group_nodes,
    group_status,
)


def node_details(cluster: HyperPodCluster, node: HyperPodNode) -> dict[str, Any]:
    group = cluster.groups.get(node.group)
    spec = group.spec if group else {}
    status, message = node.state()
    kubernetes = spec.get("KubernetesConfig") or {}
    return drop_empty(
        {
            "InstanceGroupName": node.group,
            "InstanceId": node.instance_id,
            "InstanceStatus": drop_empty({"Status": status, "Message": message or None}),
            "InstanceType": node.instance_type,
            "LaunchTime": node.launch_time,
            "LastSoftwareUpdateTime": node.last_software_update,
            "LifeCycleConfig": spec.get("LifeCycleConfig"),
            "OverrideVpcConfig": spec.get("OverrideVpcConfig"),
            "ThreadsPerCore": spec.get("ThreadsPerCore") or 1,
            "InstanceStorageConfigs": spec.get("InstanceStorageConfigs"),
            "PrivatePrimaryIp": node.private_ip,
            "PrivateDnsHostname": node.dns_name,
            "Placement": node.placement,
            "CurrentImageReleaseVersion": spec.get("ImageReleaseVersion"),
            "KubernetesConfig": {
                "CurrentLabels": kubernetes.get("Labels"),
                "DesiredLabels": kubernetes.get("Labels"),
                "CurrentTaints": kubernetes.get("Taints"),
                "DesiredTaints": kubernetes.get("Taints"),
            }
            if kubernetes
            else None,
            "CapacityType": "Spot" if (spec.get("CapacityRequirements") or {}).get("Spot") is not None else "OnDemand",
            "NetworkInterface": spec.get("NetworkInterface"),
        }
    )


def node_summary(cluster: HyperPodCluster, node: HyperPodNode) -> dict[str, Any]:
    details = node_details(cluster, node)
    keys = ("InstanceGroupName", "InstanceId", "InstanceType", "LaunchTime", "LastSoftwareUpdateTime", "InstanceStatus")
    return {key: details[key] for key in (*keys, "PrivateDnsHostname", "CurrentImageReleaseVersion") if key in details}


def group_details(cluster: HyperPodCluster, group: InstanceGroup) -> dict[str, Any]:
    spec = group.spec
    nodes = group_nodes(cluster, group.name)
    running = current_count(cluster, group)
    out = {key: copy.deepcopy(value) for key, value in spec.items() if key in detail_members()}
    for key in ("InstanceRequirements", "AutoPatchConfig", "KubernetesConfig"):
        out.pop(key, None)
    out.update(
        {
            "CurrentCount": running,
            "TargetCount": group.target,
            "Status": group_status(cluster, group),
            "ThreadsPerCore": spec.get("ThreadsPerCore") or 1,
        }
    )
    if spec.get("MinInstanceCount") is not None:
        out["MinCount"] = spec["MinInstanceCount"]
    if spec.get("InstanceRequirements"):
        types = spec["InstanceRequirements"].get("InstanceTypes")
        out["InstanceRequirements"] = {"CurrentInstanceTypes": types, "DesiredInstanceTypes": types}
        out["InstanceTypeDetails"] = [
            {
                "InstanceType": t,
                "CurrentCount": sum(1 for n in nodes if n.instance_type == t and n.state()[0] == "Running"),
                "ThreadsPerCore": spec.get("ThreadsPerCore") or 1,
            }
            for t in types
        ]
    if spec.get("KubernetesConfig"):
        config = spec["KubernetesConfig"]
        out["KubernetesConfig"] = drop_empty(
            {
                "CurrentLabels": config.get("Labels"),
                "DesiredLabels": config.get("Labels"),
                "CurrentTaints": config.get("Taints"),
                "DesiredTaints": config.get("Taints"),
            }
        )
    if spec.get("AutoPatchConfig"):
        patch = spec["AutoPatchConfig"]
        schedule = {"NextPatchDate": next_patch_date(group)}
        out["AutoPatchConfig"] = drop_empty(
            {
                "PatchingStrategy": patch.get("PatchingStrategy"),
                "CurrentPatchSchedule": schedule,
                "DesiredPatchSchedule": schedule,
                "DeploymentConfig": patch.get("DeploymentConfig"),
                # AWS's default (ClusterAutoPatchConfig): 86400 s for the idle strategies
                "IdleWaitWindowInSeconds": patch.get("IdleWaitWindowInSeconds")
                or (86400 if patch.get("PatchingStrategy") != "DrainFirst" else None),
                "DrainPolicy": patch.get("DrainPolicy"),
            }
        )
    if spec.get("ImageId"):
        out["CurrentImageId"] = out["DesiredImageId"] = spec["ImageId"]
    if spec.get("ImageReleaseVersion"):
        out["CurrentImageReleaseVersion"] = out["DesiredImageReleaseVersion"] = spec["ImageReleaseVersion"]
    out["ImageVersionStatus"] = "UpToDate"
    if spec.get("TrainingPlanArn"):
        from moto.sagemaker.models import sagemaker_backends

        backend = sagemaker_backends[cluster.account_id][cluster.region_name]
        out["TrainingPlanStatus"] = training_plans.plan_status(backend, spec["TrainingPlanArn"]) or "NotFound"
    if group.software:
        out["SoftwareUpdateStatus"] = group.software["status"]
        if group.software.get("config"):
            out["ActiveSoftwareUpdateConfig"] = group.software["config"]
    operations.active_operations(cluster, group, out)
    return out


# When HyperPod finds a patch it sets the group's NextPatchDate (ClusterPatchSchedule: "The system sets this
# automatically when a patch is detected"); how soon after is not documented, so the sandbox's patch is
# found as the group is made and scheduled a week later, at 03:00 UTC. A date the caller gives (PatchSchedule)
# moves it.
PATCH_LEAD = timedelta(days=7)


def next_patch_date(group: InstanceGroup) -> datetime:
    asked = (group.spec.get("AutoPatchConfig") or {}).get("PatchSchedule", {}).get("NextPatchDate")
    if isinstance(asked, int | float):
        return datetime.fromtimestamp(asked, UTC)
    if isinstance(asked, str):
        return datetime.fromisoformat(asked.replace("Z", "+00:00"))
    if isinstance(asked, datetime):
        return asked
    return (group.created + PATCH_LEAD).replace(hour=3, minute=0, second=0, microsecond=0)


def describe(cluster: HyperPodCluster) -> dict[str, Any]:
    status = cluster_status(cluster)
    out: dict[str, Any] = {
        "ClusterArn": cluster.arn,
        "ClusterName": cluster.cluster_name,
        "ClusterStatus": status,
        "CreationTime": cluster.creation_time,
        "InstanceGroups": [group_details(cluster, g) for g in cluster.groups.values()],
        "VpcConfig": cluster.vpc_config,
        "Orchestrator": cluster.orchestrator,
        "NodeRecovery": cluster.node_recovery,
        "TieredStorageConfig": cluster.settings.get("TieredStorageConfig"),
        "NodeProvisioningMode": cluster.settings.get("NodeProvisioningMode"),
        "ClusterRole": cluster.settings.get("ClusterRole"),
        "AutoScaling": autoscaling.autoscaling_view(cluster, sim_now()),
        "RestrictedInstanceGroupsConfig": cluster.restricted.get("RestrictedInstanceGroupsConfig"),
    }
    if cluster.failure_message:
        out["FailureMessage"] = cluster.failure_message
    return drop_empty(out)


def event_summary(cluster: HyperPodCluster, event: ClusterEvent) -> dict[str, Any]:
    return drop_empty(
        {
            "EventId": event.event_id,
            "ClusterArn": cluster.arn,
            "ClusterName": cluster.cluster_name,
            "InstanceGroupName": event.group,
            "InstanceId": event.instance_id,
            "ResourceType": event.resource_type,
            "EventTime": event.time,
            "Description": event.description,
            "EventLevel": event.level,
        }
    )
