"""The nodes and events reads: ListClusterNodes page by page (a cluster of more than one page lists every node,
as the Nodes tab and the ladder need them all), and a group's failure told by its event's failure message."""

from __future__ import annotations

from datetime import UTC, datetime

from botocore.stub import Stubber
from launchpod.adapters.aws.sagemaker import SageMaker


def _summary(n: int) -> dict:
    return {
        "InstanceGroupName": "gpu",
        "InstanceId": f"i-{n:017x}",
        "InstanceType": "ml.p5.48xlarge",
        "LaunchTime": datetime(2026, 12, 1, tzinfo=UTC),
        "InstanceStatus": {"Status": "Running"},
    }


def test_every_page_of_nodes_is_listed(aws):
    adapter = SageMaker()
    first, second = [_summary(n) for n in range(100)], [_summary(n) for n in range(100, 130)]
    with Stubber(adapter.sm) as stub:
        stub.add_response(
            "list_cluster_nodes",
            {"ClusterNodeSummaries": first, "NextToken": "page-2"},
            {"ClusterName": "hp", "MaxResults": 100},
        )
        stub.add_response(
            "list_cluster_nodes",
            {"ClusterNodeSummaries": second},
            {"ClusterName": "hp", "MaxResults": 100, "NextToken": "page-2"},
        )
        nodes = adapter.list_nodes("hp")
        stub.assert_no_pending_responses()
    assert [n.node_id for n in nodes] == [f"i-{n:017x}" for n in range(130)]


EVENT_ID = "83ea0bb5-be77-45e8-a458-0a87f778a205"


def test_a_groups_failure_is_told_by_its_events_failure_message_not_only_its_description(aws):
    """HyperPod's Error events may describe only that something failed; the reason is in DescribeClusterEvent."""
    adapter = SageMaker()
    generic = "Instance creation in Cluster hp and InstanceGroup gpu failed"
    summary = {
        "EventId": EVENT_ID,
        "ClusterArn": "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcdefghijkl",
        "ClusterName": "hp",
        "InstanceGroupName": "gpu",
        "ResourceType": "Instance",
        "EventTime": datetime(2026, 12, 1, tzinfo=UTC),
        "EventLevel": "Error",
        "Description": generic,
    }
    reason = "We currently do not have sufficient capacity to launch new ml.p5.48xlarge instances. Please try again."
    detail = {**summary, "EventDetails": {"EventMetadata": {"Instance": {"FailureMessage": reason}}}}
    listed = {"ClusterName": "hp", "InstanceGroupName": "gpu", "SortBy": "EventTime", "SortOrder": "Descending"}
    with Stubber(adapter.sm) as stub:
        stub.add_response("list_cluster_events", {"Events": [summary]}, listed)
        stub.add_response(
            "describe_cluster_event", {"EventDetails": detail}, {"ClusterName": "hp", "EventId": EVENT_ID}
        )
        assert adapter.latest_group_error("hp", "gpu") == f"{generic} {reason}"
        stub.add_response("list_cluster_events", {"Events": [{**summary, "EventLevel": "Info"}]}, listed)
        assert adapter.latest_group_error("hp", "gpu") is None
