"""Training plans as the sandbox's SageMaker answers them (sandbox/aws/sagemaker/training_plans.py): priced offerings
that start when asked, a plan Scheduled then Active then Expired on the sandbox clock, one plan per name,
extensions, and a first group on a plan at CreateCluster."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.sandbox.aws.hyperpod_support import create_hyperpod, error_of, fast_forward, instance_group, observe
from tests.sandbox.aws.support import wait_until

pytestmark = pytest.mark.usefixtures("hyperpod_installed")


def _search(sm: Any, **extra: Any) -> list[dict[str, Any]]:
    params = {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 2, "DurationHours": 24, **extra}
    answer = sm.search_training_plan_offerings(TargetResources=["hyperpod-cluster"], **params)
    return list(answer["TrainingPlanOfferings"])


def _buy(sm: Any, name: str, offering: dict[str, Any]) -> str:
    return str(
        sm.create_training_plan(TrainingPlanName=name, TrainingPlanOfferingId=offering["TrainingPlanOfferingId"])[
            "TrainingPlanArn"
        ]
    )


def test_offerings_are_priced_start_when_asked_and_stay_the_same_when_searched_again(sm):
    start = datetime.now(UTC) + timedelta(days=2)
    first = _search(sm, StartTimeAfter=start)
    reserved = first[0]["ReservedCapacityOfferings"][0]
    assert start <= reserved["StartTime"] < start + timedelta(minutes=1)
    assert reserved["EndTime"] - reserved["StartTime"] == timedelta(hours=24)
    assert float(first[0]["UpfrontFee"]) < float(first[1]["UpfrontFee"])  # best match first
    assert [o["TrainingPlanOfferingId"] for o in _search(sm, StartTimeAfter=start)] == [
        o["TrainingPlanOfferingId"] for o in first
    ]
    assert _search(sm, StartTimeAfter=start, EndTimeBefore=start + timedelta(hours=12)) == []
    with pytest.raises(ClientError) as exc_info:
        _search(sm, InstanceType="ml.g5.8xlarge")
    assert "enum value set" in error_of(exc_info)[1]


def test_a_plan_is_scheduled_until_its_start_then_active_then_expired(sm):
    observe()
    offering = _search(sm, StartTimeAfter=datetime.now(UTC) + timedelta(hours=1))[0]
    _buy(sm, "later", offering)
    assert sm.describe_training_plan(TrainingPlanName="later")["Status"] == "Scheduled"
    listed = sm.list_training_plans(Filters=[{"Name": "Status", "Value": "Scheduled"}])["TrainingPlanSummaries"]
    assert [p["TrainingPlanName"] for p in listed] == ["later"]
    fast_forward()
    wait_until(lambda: sm.describe_training_plan(TrainingPlanName="later")["Status"] == "Active", timeout=30)
    wait_until(lambda: sm.describe_training_plan(TrainingPlanName="later")["Status"] == "Expired", timeout=30)


def test_one_plan_per_name(sm):
    offering = _search(sm)[0]
    _buy(sm, "once", offering)
    with pytest.raises(ClientError) as exc_info:
        _buy(sm, "once", offering)
    assert error_of(exc_info)[0] == "ResourceInUse"
    assert len(sm.list_training_plans()["TrainingPlanSummaries"]) == 1


def test_an_extension_moves_the_end_and_is_recorded_once(sm):
    arn = _buy(sm, "ext", _search(sm, DurationHours=168)[0])
    end = sm.describe_training_plan(TrainingPlanName="ext")["EndTime"]
    offers = sm.search_training_plan_offerings(TrainingPlanArn=arn)["TrainingPlanExtensionOfferings"]
    assert sorted(o["DurationHours"] for o in offers) == [24, 168]
    day = next(o for o in offers if o["DurationHours"] == 24)
    assert day["StartDate"] == end and float(day["UpfrontFee"]) > 0
    sm.extend_training_plan(TrainingPlanExtensionOfferingId=day["TrainingPlanExtensionOfferingId"])
    assert sm.describe_training_plan(TrainingPlanName="ext")["EndTime"] == end + timedelta(hours=24)
    history = sm.describe_training_plan_extension_history(TrainingPlanArn=arn)["TrainingPlanExtensions"]
    assert [(h["TrainingPlanExtensionOfferingId"], h["PaymentStatus"]) for h in history] == [
        (day["TrainingPlanExtensionOfferingId"], "Completed")
    ]
    with pytest.raises(ClientError) as exc_info:  # that offering started at the old end: gone
        sm.extend_training_plan(TrainingPlanExtensionOfferingId=day["TrainingPlanExtensionOfferingId"])
    assert error_of(exc_info)[0] == "ResourceNotFound"


def test_a_first_group_on_a_plan_needs_the_plans_zone_and_shows_its_state(sm, eks_arn):
    later = datetime.now(UTC) + timedelta(days=1)
    offers = {o["ReservedCapacityOfferings"][0]["AvailabilityZone"]: o for o in _search(sm, StartTimeAfter=later)}
    here, there = _buy(sm, "here", offers["us-east-1a"]), _buy(sm, "there", offers["us-east-1b"])
    with pytest.raises(ClientError) as exc_info:
        create_hyperpod(sm, eks_arn, instance_group("tp", count=2, TrainingPlanArn=there))
    assert "reserves capacity in us-east-1b" in error_of(exc_info)[1]
    create_hyperpod(sm, eks_arn, instance_group("tp", count=2, TrainingPlanArn=here))
    [group] = sm.describe_cluster(ClusterName="hp")["InstanceGroups"]
    assert group["TrainingPlanArn"] == here and group["TrainingPlanStatus"] == "Scheduled"
