"""The steps an instance-group change runs, as its dry run lists them: a subnet only where one is made or
released, the fields that change with their old and new values."""

from __future__ import annotations

from launchpod.contracts.instance_groups import AddInstanceGroupRequest, InstanceGroupChangeInput
from launchpod.domain.instance_groups import workflow


def _phases(change: InstanceGroupChangeInput, current: dict | None = None, dedicated: bool = False) -> list[str]:
    return [s.phase or "" for s in workflow.steps(change, current or {}, dedicated)]


def test_a_group_with_a_dedicated_subnet_makes_it_first_and_releases_it_when_deleted():
    add = AddInstanceGroupRequest(group="g", instanceType="ml.g5.8xlarge", instanceCount=2, dedicatedSubnet=True)
    change = InstanceGroupChangeInput(name="c1", action="add", group="g", add=add, zone="us-east-1b")
    steps = workflow.steps(change, {}, False)
    assert [s.phase for s in steps] == ["GroupSubnet", "UpdateCluster", "WaitGroup"]
    assert steps[0].target == "Subnet /20 in us-east-1b for g"
    delete = InstanceGroupChangeInput(name="c1", action="delete", group="g")
    assert _phases(delete, {"instanceCount": 2}, dedicated=True) == ["UpdateCluster", "WaitGroup", "ReleaseSubnet"]
    assert _phases(delete, {"instanceCount": 2}) == ["UpdateCluster", "WaitGroup"]


def test_an_update_says_each_field_it_changes_from_and_to():
    change = InstanceGroupChangeInput(name="c1", action="update", group="g", changes={"instanceCount": 4})
    (update, wait) = workflow.steps(change, {"instanceCount": 2}, False)
    assert update.reason == "UpdateCluster changes instanceCount 2 -> 4" and wait.phase == "WaitGroup"


def test_a_patching_change_is_said_in_words_not_as_json():
    drain = {
        "strategy": "DrainFirst",
        "drain": {"drainTimeoutSeconds": 600, "onDrainTimeout": "Skip"},
        "maxBatchSize": {"type": "INSTANCE_COUNT", "value": 1},
    }
    change = InstanceGroupChangeInput(name="c1", action="update", group="g", changes={"autoPatch": drain})
    (update, _) = workflow.steps(change, {"autoPatch": {"strategy": "WhenIdle", "idleWaitWindowSeconds": 86400}}, False)
    assert update.reason == (
        "UpdateCluster changes autoPatch WhenIdle (idle wait 86400 s) -> "
        "DrainFirst (drain timeout 600 s, then Skip, 1 node(s) at once)"
    )


def test_changed_labels_are_worded_as_key_value_pairs():
    from launchpod.domain.instance_groups.workflow import _worded

    before, after = {"nvidia.com/mig.config": "all-1g.5gb"}, {"nvidia.com/mig.config": "all-3g.20gb"}
    assert f"{_worded('labels', before)} -> {_worded('labels', after)}" == (
        "nvidia.com/mig.config=all-1g.5gb -> nvidia.com/mig.config=all-3g.20gb"
    )
    assert _worded("labels", {}) == "none"
