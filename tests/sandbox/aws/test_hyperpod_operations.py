"""ListClusterOperations / DescribeClusterOperation: UpdateCluster and StartClusterHealthCheck are recorded
as operations whose status follows the groups to Done; filters, sort, pages; an unknown id is not found."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError

from sandbox.aws.iam import authz
from tests.sandbox.aws.hyperpod_support import error_of, fast_forward, instance_group, ready_cluster
from tests.sandbox.aws.support import wait_until

pytestmark = pytest.mark.usefixtures("hyperpod_installed")


@pytest.fixture
def capacity_reset():
    from sandbox.aws.sagemaker import capacity

    yield capacity
    capacity.clear()


def _operations(sm: Any, **filters: Any) -> list[dict[str, Any]]:
    return sm.list_cluster_operations(ClusterName="hp", **filters)["ClusterOperationSummaries"]


def _describe(sm: Any, operation_id: str) -> dict[str, Any]:
    return sm.describe_cluster_operation(ClusterName="hp", OperationId=operation_id)


def test_a_scale_up_is_one_scaling_operation_done_when_the_group_is_in_service(sm, eks_arn):
    ready_cluster(sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1))
    assert _operations(sm) == []  # CreateCluster is not a cluster operation
    sm.update_cluster(ClusterName="hp", InstanceGroups=[instance_group("cpu", "ml.m5.2xlarge", count=3)])
    [summary] = _operations(sm)
    assert (summary["Type"], summary["Status"]) == ("Scaling", "InProgress")
    described = _describe(sm, summary["OperationId"])
    assert described["ClusterArn"] == summary["ClusterArn"]
    [detail] = described["ScalingDetails"]
    assert detail["InstanceGroupName"] == "cpu" and detail["Status"] == "InProgress"
    assert detail["Original"] == {"CurrentCount": 1, "TargetCount": 1}
    assert detail["Desired"] == {"TargetCount": 3}
    assert sm.describe_cluster(ClusterName="hp")["InstanceGroups"][0]["ActiveOperations"] == {"Scaling": 1}
    fast_forward()
    done = wait_until(lambda: (d := _describe(sm, summary["OperationId"]))["Status"] == "Done" and d)
    assert done["ScalingDetails"][0]["Status"] == "Done"
    group = sm.describe_cluster(ClusterName="hp")["InstanceGroups"][0]
    assert (group["Status"], group["CurrentCount"]) == ("InService", 3)
    assert "ActiveOperations" not in group


def test_a_spot_scale_short_of_capacity_is_done_with_the_group_failed_and_the_reason_in_its_events(
    sm, eks_arn, capacity_reset
):
    ready_cluster(
        sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1), NodeProvisioningMode="Continuous"
    )  # events
    capacity_reset.set_spot_capacity("us-east-1a", "ml.p5.48xlarge", 1)
    started = datetime.now(UTC) - timedelta(seconds=1)
    spot = instance_group("spot", count=3, CapacityRequirements={"Spot": {}})
    sm.update_cluster(ClusterName="hp", InstanceGroups=[instance_group("cpu", "ml.m5.2xlarge", count=1), spot])
    [summary] = _operations(sm, CreationTimeAfter=started)
    # The unchanged group is listed in the request but not scaled: no detail for it.
    assert [d["InstanceGroupName"] for d in _describe(sm, summary["OperationId"])["ScalingDetails"]] == ["spot"]
    fast_forward()
    done = wait_until(lambda: (d := _describe(sm, summary["OperationId"]))["Status"] == "Done" and d)
    assert done["ScalingDetails"][0]["Desired"] == {"TargetCount": 3}
    group = next(g for g in sm.describe_cluster(ClusterName="hp")["InstanceGroups"] if g["InstanceGroupName"] == "spot")
    assert (group["Status"], group["CurrentCount"]) == ("Failed", 1)
    events = sm.list_cluster_events(ClusterName="hp", InstanceGroupName="spot", EventTimeAfter=started)["Events"]
    [error] = [e for e in events if e["EventLevel"] == "Error"]
    assert "not enough Spot capacity" in error["Description"] and "EventDetails" not in error
    # the reason, as DescribeClusterEvent gives it: the event's metadata for its resource type
    detail = sm.describe_cluster_event(ClusterName="hp", EventId=error["EventId"])["EventDetails"]
    failure = detail["EventDetails"]["EventMetadata"]["InstanceGroup"]["FailureMessage"]
    assert failure.startswith("InsufficientInstanceCapacity: There is not enough Spot capacity for ml.p5.48xlarge")


def test_deleting_a_group_is_done_once_the_group_is_gone(sm, eks_arn):
    ready_cluster(sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1), instance_group("gpu", count=1))
    sm.update_cluster(ClusterName="hp", InstanceGroupsToDelete=["gpu"])
    [summary] = _operations(sm)
    [detail] = _describe(sm, summary["OperationId"])["ScalingDetails"]
    assert (detail["InstanceGroupName"], detail["Status"]) == ("gpu", "InProgress")
    assert (detail["Original"]["TargetCount"], detail["Desired"]["TargetCount"]) == (1, 0)
    fast_forward()
    wait_until(lambda: _describe(sm, summary["OperationId"])["Status"] == "Done")
    names = [g["InstanceGroupName"] for g in sm.describe_cluster(ClusterName="hp")["InstanceGroups"]]
    assert names == ["cpu"]


def test_on_demand_deep_health_checks_are_a_deep_health_check_operation(sm, eks_arn):
    ready_cluster(sm, eks_arn, instance_group("gpu", count=1))
    config = {"InstanceGroupName": "gpu", "DeepHealthChecks": ["InstanceStress"]}
    sm.start_cluster_health_check(ClusterName="hp", DeepHealthCheckConfigurations=[config])
    [summary] = _operations(sm, Type="DeepHealthCheck")
    assert summary["Status"] == "InProgress"
    assert _describe(sm, summary["OperationId"])["DeepHealthCheckDetails"] == [config]
    assert _operations(sm, Type="Scaling") == []
    fast_forward()
    wait_until(lambda: _describe(sm, summary["OperationId"])["Status"] == "Done")
    assert [o["OperationId"] for o in _operations(sm, Status="Done")] == [summary["OperationId"]]
    assert _operations(sm, Status="InProgress") == []


def test_operations_sort_newest_first_by_default_filter_by_time_and_page(sm, eks_arn):
    ready_cluster(sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1))
    ids = []
    for count in (2, 3, 1):
        fast_forward()
        wait_until(lambda: sm.describe_cluster(ClusterName="hp")["ClusterStatus"] == "InService")
        sm.update_cluster(ClusterName="hp", InstanceGroups=[instance_group("cpu", "ml.m5.2xlarge", count=count)])
        ids.append(_operations(sm)[0]["OperationId"])
    assert [o["OperationId"] for o in _operations(sm)] == ids[::-1]
    assert [o["OperationId"] for o in _operations(sm, SortBy="CreationTime", SortOrder="Ascending")] == ids
    first = sm.list_cluster_operations(ClusterName="hp", MaxResults=2)
    assert [o["OperationId"] for o in first["ClusterOperationSummaries"]] == ids[:0:-1]
    rest = sm.list_cluster_operations(ClusterName="hp", MaxResults=2, NextToken=first["NextToken"])
    assert [o["OperationId"] for o in rest["ClusterOperationSummaries"]] == ids[:1]
    assert "NextToken" not in rest
    last = _describe(sm, ids[-1])["CreationTime"]
    assert [o["OperationId"] for o in _operations(sm, CreationTimeBefore=last)] == ids[1::-1]
    assert _operations(sm, CreationTimeAfter=datetime.now(UTC) + timedelta(minutes=1)) == []


def test_an_unknown_operation_is_resource_not_found(sm, eks_arn):
    ready_cluster(sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1))
    with pytest.raises(ClientError) as exc_info:
        _describe(sm, "00000000-0000-4000-8000-000000000000")
    code, message = error_of(exc_info)
    assert code == "ResourceNotFound" and "00000000-0000-4000-8000-000000000000" in message
    with pytest.raises(ClientError) as exc_info:
        sm.list_cluster_operations(ClusterName="nope")
    assert error_of(exc_info)[0] == "ResourceNotFound"


def test_iam_authorizes_both_calls_on_the_cluster():
    for operation in ("ListClusterOperations", "DescribeClusterOperation"):
        call = authz.Call(
            prefix="sagemaker", operation=operation, params={"ClusterName": "hp"}, region="us-east-1", account="1" * 12
        )
        assert call.action == f"sagemaker:{operation}"
        [resource] = authz.resources(call)
        assert resource.startswith("arn:aws:sagemaker:us-east-1:111111111111:cluster/")


def test_a_newer_request_for_the_same_group_supersedes_one_still_in_progress(sm, eks_arn, capacity_reset):
    ready_cluster(sm, eks_arn, instance_group("cpu", "ml.m5.2xlarge", count=1))
    capacity_reset.set_spot_capacity("us-east-1a", "ml.p5.48xlarge", 1)
    spot = instance_group("spot", count=3, CapacityRequirements={"Spot": {}})
    cpu = instance_group("cpu", "ml.m5.2xlarge", count=1)
    sm.update_cluster(ClusterName="hp", InstanceGroups=[cpu, spot])
    [first] = _operations(sm)
    # The group is Failed at once (Spot short), so the cluster takes another update while the one
    # instance it got is still launching: HyperPod has not finished with the first request.
    assert sm.describe_cluster(ClusterName="hp")["ClusterStatus"] == "InService"
    assert _describe(sm, first["OperationId"])["Status"] == "InProgress"
    sm.update_cluster(ClusterName="hp", InstanceGroups=[cpu, {**spot, "InstanceCount": 1}])
    second = _operations(sm)[0]
    assert second["OperationId"] != first["OperationId"]
    superseded = _describe(sm, first["OperationId"])
    assert (superseded["Status"], superseded["ScalingDetails"][0]["Status"]) == ("Superseded", "Superseded")
    assert [o["OperationId"] for o in _operations(sm, Status="Superseded")] == [first["OperationId"]]
    fast_forward()
    wait_until(lambda: _describe(sm, second["OperationId"])["Status"] == "Done")
    assert _describe(sm, first["OperationId"])["Status"] == "Superseded"
