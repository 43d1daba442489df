"""Node operations: BatchAddClusterNodes (continuous provisioning) and BatchReboot/Replace/DeleteClusterNodes
(``sandbox.aws.sagemaker.nodes`` does each node's part)."""

from __future__ import annotations

from typing import Any

from moto.sagemaker.models import SageMakerModelBackend

from sandbox.aws.sagemaker.clusters import add_capacity, check_capacity, find_cluster
from sandbox.aws.sagemaker.common import invalid
from sandbox.aws.sagemaker.models import HyperPodCluster
from sandbox.aws.sagemaker.nodes import operate_nodes


def batch_add_nodes(backend: SageMakerModelBackend, params: dict[str, Any]) -> tuple[HyperPodCluster, dict[str, Any]]:
    """BatchAddClusterNodes: raise each group's target (continuous provisioning only, see autoscaling)."""
    cluster = find_cluster(backend, params["ClusterName"])
    if cluster.settings.get("NodeProvisioningMode") != "Continuous":
        raise invalid("BatchAddClusterNodes requires a cluster with NodeProvisioningMode Continuous.")
    successful: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for item in params.get("NodesToAdd") or []:
        group = cluster.groups.get(item.get("InstanceGroupName"))
        count = int(item.get("IncrementTargetCountBy") or 0)
        if group is None or group.deleting_since is not None:
            failed.append(
                {
                    "InstanceGroupName": item.get("InstanceGroupName"),
                    "ErrorCode": "InstanceGroupNotFound",
                    "FailedCount": count,
                    "Message": f"Instance group {item.get('InstanceGroupName')} does not exist.",
                }
            )
            continue
        spec = {**group.spec, "InstanceCount": group.target + count}
        check_capacity(backend, cluster, spec)
        before = set(cluster.nodes)
        group.spec["InstanceCount"] = group.target + count
        group.status_while_settling = "Updating"
        add_capacity(cluster, group, count)
        for node_id in set(cluster.nodes) - before:
            node = cluster.nodes[node_id]
            successful.append(
                {
                    "NodeLogicalId": node.instance_id,
                    "InstanceGroupName": group.name,
                    "Status": node.state()[0],
                    "AvailabilityZones": [node.placement["AvailabilityZone"]],
                    "InstanceTypes": [node.instance_type],
                }
            )
        cluster.event(
            "InstanceGroup",
            f"Instance group {group.name}: {count} node(s) added by BatchAddClusterNodes.",
            group=group.name,
        )
    return cluster, {"Successful": successful, "Failed": failed}


def batch_node_operation(
    backend: SageMakerModelBackend, name_or_arn: str, node_ids: list[str], operation: str
) -> tuple[HyperPodCluster, list[str], list[dict[str, str]]]:
    """Reboot, replace or delete instances; returns (cluster, successful ids, failures)."""
    cluster = find_cluster(backend, name_or_arn)
    ok, failed = operate_nodes(cluster, node_ids, operation)
    return cluster, ok, failed
