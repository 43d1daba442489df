"""The wait decision: HyperPod's cluster operation says when it has finished with the group, the group's
DescribeCluster state says whether it got there; without an operation, DescribeCluster alone."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.aws.instance_groups import instance_group_state
from launchpod.domain.instance_groups import workflow


def _operation(status: str, group: str = "gpu", target: int = 3) -> dict[str, Any]:
    return {
        "OperationId": "0b9f6a52-2f5e-4a51-9d1c-4c2f0c1e2a3b",
        "Type": "Scaling",
        "Status": status,
        "ScalingDetails": [
            {
                "InstanceGroupName": group,
                "Status": status,
                "Original": {"CurrentCount": 1, "TargetCount": 1},
                "Desired": {"TargetCount": target},
            }
        ],
    }


def operation_state(
    action: str, group: str, operation: dict[str, Any] | None, described: dict[str, Any] | None
) -> tuple[bool, str | None]:
    """workflow.operation_state with the group as DescribeCluster answers it (None: not listed), read as the
    adapter reads it."""
    return workflow.operation_state(action, group, operation, instance_group_state(described) if described else None)


def _group(status: str, current: int, target: int = 3) -> dict[str, Any]:
    return {"InstanceGroupName": "gpu", "Status": status, "CurrentCount": current, "TargetCount": target}


def test_an_operation_in_progress_waits_even_when_the_group_already_looks_failed():
    assert operation_state("update", "gpu", _operation("InProgress"), _group("Failed", 1)) == (False, None)


def test_a_done_operation_with_the_group_at_its_target_is_done():
    assert operation_state("update", "gpu", _operation("Done"), _group("InService", 3)) == (True, None)


def test_a_done_operation_short_of_its_target_fails_with_the_counts():
    done, failure = operation_state("update", "gpu", _operation("Done"), _group("Failed", 1))
    assert not done
    assert failure == "Instance group gpu stopped at 1/3 instances (Failed)."


def test_a_superseded_operation_fails_and_says_to_follow_the_newer_request():
    done, failure = operation_state("update", "gpu", _operation("Superseded"), _group("Updating", 2))
    assert not done and failure is not None and "Superseded" in failure and "newer request" in failure


def test_a_delete_is_done_when_the_operation_is_done_and_the_group_is_gone():
    assert operation_state("delete", "gpu", _operation("Done", target=0), None) == (True, None)
    assert operation_state("delete", "gpu", _operation("InProgress", target=0), _group("Deleting", 1)) == (False, None)


def test_a_done_delete_still_listed_as_deleting_is_read_again_and_one_listed_otherwise_fails():
    # DescribeCluster read a moment before HyperPod finished (CI saw this fail a delete that succeeded)
    assert operation_state("delete", "gpu", _operation("Done", target=0), _group("Deleting", 1)) == (False, None)
    done, failure = operation_state("delete", "gpu", _operation("Done", target=0), _group("InService", 1))
    assert not done and failure == "Instance group gpu is still listed (InService) after its deletion."


def test_without_an_operation_for_the_group_describe_cluster_decides():
    other = _operation("InProgress", group="cpu")
    assert operation_state("update", "gpu", None, _group("InService", 3)) == (True, None)
    assert operation_state("update", "gpu", other, _group("InService", 3)) == (True, None)
    assert operation_state("update", "gpu", None, _group("Updating", 2)) == (False, None)
    assert operation_state("update", "gpu", None, _group("Failed", 1)) == (False, "Instance group gpu failed.")


def test_the_group_view_shows_a_scaling_operation_in_progress():
    from launchpod.domain.instance_groups.views import group_view

    busy = {**_group("Updating", 1), "InstanceType": "ml.p5.48xlarge", "ActiveOperations": {"Scaling": 1}}
    assert (
        group_view(instance_group_state(busy), ["subnet-1"], {"subnet-1": "us-east-1a"}, dedicated=set()).scaling
        is True
    )
    idle = {**_group("InService", 3), "InstanceType": "ml.p5.48xlarge"}
    assert (
        group_view(instance_group_state(idle), ["subnet-1"], {"subnet-1": "us-east-1a"}, dedicated=set()).scaling
        is False
    )


def test_a_done_operation_read_after_a_still_creating_group_waits_for_a_fresh_read():
    operation = {
        "Status": "Done",
        "ScalingDetails": [
            {"InstanceGroupName": "spot", "Status": "Done", "Desired": {"TargetCount": 1}, "Original": {}}
        ],
    }
    creating = {"InstanceGroupName": "spot", "Status": "Creating", "CurrentCount": 0, "TargetCount": 1}
    assert operation_state("add", "spot", operation, creating) == (False, None)
    failed = {**creating, "Status": "Failed"}
    done, failure = operation_state("add", "spot", operation, failed)
    assert not done and "stopped at 0/1 instances (Failed)" in failure
