"""The cluster-operation lookup: the newest Scaling operation after the call that scales the group; None
where HyperPod lists none or the region does not offer ListClusterOperations (WaitGroup then falls back)."""

from __future__ import annotations

from datetime import UTC, datetime

from botocore.stub import Stubber
from launchpod.adapters.aws.sagemaker import SageMaker

SINCE = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
LIST = {
    "ClusterName": "hp",
    "Type": "Scaling",
    "CreationTimeAfter": SINCE,
    "SortBy": "CreationTime",
    "SortOrder": "Descending",
    "MaxResults": 10,
}
NEWER, OLDER = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"


def _operation(operation_id: str, group: str) -> dict:
    return {
        "OperationId": operation_id,
        "Type": "Scaling",
        "Status": "InProgress",
        "ScalingDetails": [{"InstanceGroupName": group, "Status": "InProgress", "Desired": {"TargetCount": 2}}],
    }


def test_the_newest_operation_that_scales_the_group_is_described(aws):
    adapter = SageMaker()
    with Stubber(adapter.sm) as stub:
        summaries = [{"OperationId": NEWER, "Type": "Scaling"}, {"OperationId": OLDER, "Type": "Scaling"}]
        stub.add_response("list_cluster_operations", {"ClusterOperationSummaries": summaries}, LIST)
        stub.add_response(
            "describe_cluster_operation", _operation(NEWER, "cpu"), {"ClusterName": "hp", "OperationId": NEWER}
        )
        stub.add_response(
            "describe_cluster_operation", _operation(OLDER, "gpu"), {"ClusterName": "hp", "OperationId": OLDER}
        )
        found = adapter.scaling_operation("hp", "gpu", SINCE)
    assert found is not None and found["OperationId"] == OLDER and "ResponseMetadata" not in found


def test_none_when_no_operation_is_listed_or_the_region_has_no_such_api(aws):
    adapter = SageMaker()
    with Stubber(adapter.sm) as stub:
        stub.add_response("list_cluster_operations", {"ClusterOperationSummaries": []}, LIST)
        stub.add_client_error(
            "list_cluster_operations", "UnknownOperationException", "Unknown operation", 400, expected_params=LIST
        )
        assert adapter.scaling_operation("hp", "gpu", SINCE) is None
        assert adapter.scaling_operation("hp", "gpu", SINCE) is None
