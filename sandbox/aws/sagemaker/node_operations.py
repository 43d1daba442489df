"""Node operations: BatchAddClusterNodes (continuous provisioning) and BatchReboot/Replace/DeleteClusterNodes,
with the per-node failures botocore's error-code enums name."""

from __future__ import annotations

import math
from typing import Any

from moto.sagemaker.models import SageMakerModelBackend

from sandbox.aws.sagemaker.clusters import add_capacity, check_capacity, find_cluster
from sandbox.aws.sagemaker.common import invalid
from sandbox.aws.sagemaker.durations import DURATIONS
from sandbox.aws.sagemaker.lifecycle import replace_node
from sandbox.aws.sagemaker.models import HyperPodCluster, HyperPodNode, Phase


def batch_add_nodes(backend: SageMakerModelBackend, params: dict[str, Any]) -> tuple[HyperPodCluster, dict[str, Any]]:
    """BatchAddClusterNodes: raise each group's target (continuous provisioning only, see hyperpod_autoscaling)."""
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


def _node_of(cluster: HyperPodCluster, node_id: str) -> HyperPodNode | None:
    return cluster.nodes.get(node_id)


def batch_node_operation(
    backend: SageMakerModelBackend, name_or_arn: str, node_ids: list[str], operation: str
) -> tuple[HyperPodCluster, list[str], list[dict[str, str]]]:
    """Reboot, replace or delete instances; returns (cluster, successful ids, failures)."""
    cluster = find_cluster(backend, name_or_arn)
    limit = 99 if operation == "delete" else 25
    if len(node_ids) > limit:
        raise invalid(
            f"1 validation error detected: Value at 'nodeIds' failed to satisfy constraint: "
            f"Member must have length less than or equal to {limit}"
        )
    if operation == "replace" and not cluster.patched_for_replace:
        # AWS: "If you want to invoke this API on an existing cluster, you'll first need to patch the cluster
        # by running the UpdateClusterSoftware API" (API reference, BatchReplaceClusterNodes); the wording
        # of the refusal is ours.
        raise invalid(
            f"Cluster {cluster.cluster_name} runs platform software that predates BatchReplaceClusterNodes; "
            "patch it with UpdateClusterSoftware before replacing nodes."
        )
    code_field = "Code" if operation == "delete" else "ErrorCode"
    not_found = "NodeIdNotFound" if operation == "delete" else "InstanceIdNotFound"
    bad_status = "InvalidNodeStatus" if operation == "delete" else "InvalidInstanceStatus"
    ok: list[str] = []
    failed: list[dict[str, str]] = []
    for node_id in node_ids:
        node = _node_of(cluster, node_id)
        if node is None:
            failed.append(
                {
                    "NodeId": node_id,
                    code_field: not_found,
                    "Message": f"Node {node_id} not found in cluster {cluster.cluster_name}.",
                }
            )
            continue
        status, _ = node.state()
        allowed = {"Running", "Failure"} | (
            {"Pending", "DeepHealthCheckInProgress"} if operation == "delete" else set()
        )
        if status not in allowed or cluster.deleting_since is not None:
            failed.append(
                {
                    "NodeId": node_id,
                    code_field: bad_status,
                    "Message": f"Node {node_id} is in {status} status; "
                    f"only Running or Failure nodes can be {operation}ed.",
                }
            )
            continue
        if operation == "reboot":
            node._restart(
                [Phase("Pending", DURATIONS["reboot"], "Rebooting instance"), Phase("Running", math.inf)], "reboot"
            )
            node.failed_at = None
            cluster.event("Instance", f"Instance {node_id} is rebooting.", group=node.group, instance_id=node_id)
        elif operation == "replace":
            replace_node(cluster, node, "BatchReplaceClusterNodes")
        else:
            del cluster.nodes[node_id]
            group = cluster.groups.get(node.group)
            if group is not None:
                group.spec["InstanceCount"] = max(group.target - 1, 0)
            cluster.event("Instance", f"Instance {node_id} was deleted.", group=node.group, instance_id=node_id)
        ok.append(node_id)
    return cluster, ok, failed
