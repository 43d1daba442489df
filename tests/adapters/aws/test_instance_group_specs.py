"""The one whitelist between DescribeCluster and UpdateCluster places every member botocore's sagemaker model
knows: each ClusterInstanceGroupSpecification member is read from ClusterInstanceGroupDetails, and each Details
member is either read or known to be state."""

from __future__ import annotations

import botocore.session
from launchpod.adapters.aws.instance_groups import SPEC_FROM_DETAILS, STATE_ONLY, instance_group_state


def test_whitelist_places_every_member_botocore_knows() -> None:
    model = botocore.session.get_session().get_service_model("sagemaker")
    spec = set(model.shape_for("ClusterInstanceGroupSpecification").members)
    details = set(model.shape_for("ClusterInstanceGroupDetails").members)
    assert set(SPEC_FROM_DETAILS) == spec
    read = {"TargetCount", "MinCount", "DesiredImageId", "DesiredImageReleaseVersion"} | (spec & details)
    assert details - read == STATE_ONLY, "a DescribeCluster member is neither kept nor known to be state"


def test_a_group_carries_the_spec_that_keeps_it_with_the_desired_values_winning() -> None:
    group = instance_group_state(
        {
            "InstanceGroupName": "gpu",
            "InstanceType": "ml.p5.48xlarge",
            "InstanceRequirements": {"DesiredInstanceTypes": ["ml.p5.48xlarge"]},
            "CurrentCount": 1,
            "TargetCount": 2,
            "Status": "Updating",
            "KubernetesConfig": {"CurrentLabels": {"team": "a"}, "DesiredLabels": {"team": "b"}},
            "AutoPatchConfig": {
                "PatchingStrategy": "WhenIdle",
                "CurrentPatchSchedule": {"NextPatchDate": "2026-01-01T00:00:00Z"},
                "DesiredPatchSchedule": {"NextPatchDate": "2026-02-01T00:00:00Z"},
            },
            "CurrentImageId": "ami-0old",
            "DesiredImageId": "ami-0new",
        }
    )
    assert group.spec == {
        "InstanceCount": 2,
        "InstanceGroupName": "gpu",
        "InstanceType": "ml.p5.48xlarge",
        "ImageId": "ami-0new",
        "AutoPatchConfig": {"PatchingStrategy": "WhenIdle", "PatchSchedule": {"NextPatchDate": "2026-02-01T00:00:00Z"}},
        "KubernetesConfig": {"Labels": {"team": "b"}},
    }
    assert (group.labels, group.current_labels, group.desired_image_id) == ({"team": "b"}, {"team": "a"}, "ami-0new")
    assert group.auto_patch is not None and group.auto_patch.requested_patch_date == "2026-02-01T00:00:00Z"
