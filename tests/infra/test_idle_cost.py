"""Idle cost: which resources in the template bill while nothing happens.

Every resource type in the template must be classified here; an unclassified type fails the test,
so a new resource cannot slip in without someone deciding what it costs when idle.
"""

from __future__ import annotations

from collections import Counter

import pytest

pytestmark = pytest.mark.infra

FREE = "no charge without requests"
STORAGE = "storage only (per GB-month)"

IDLE_COST = {
    "AWS::ApiGateway::Account": FREE,
    "AWS::ApiGateway::Authorizer": FREE,
    "AWS::ApiGateway::Deployment": FREE,
    "AWS::ApiGateway::Method": FREE,
    "AWS::ApiGateway::Resource": FREE,
    "AWS::ApiGateway::RestApi": FREE,
    "AWS::ApiGateway::Stage": FREE,  # no cache cluster: CacheClusterEnabled is checked below
    "AWS::ApiGatewayV2::Api": FREE,
    "AWS::ApiGatewayV2::Authorizer": FREE,
    "AWS::ApiGatewayV2::Integration": FREE,
    "AWS::ApiGatewayV2::Route": FREE,
    "AWS::ApiGatewayV2::Stage": FREE,
    "AWS::CloudFront::Distribution": FREE,
    "AWS::CloudFront::OriginAccessControl": FREE,
    "AWS::CloudFront::ResponseHeadersPolicy": FREE,
    "AWS::Cognito::UserPool": FREE,  # Essentials plan: billed per monthly active user
    "AWS::Cognito::UserPoolClient": FREE,
    "AWS::Cognito::UserPoolDomain": FREE,
    "AWS::Cognito::UserPoolGroup": FREE,
    "AWS::Cognito::UserPoolUser": FREE,
    "AWS::Cognito::UserPoolUserToGroupAttachment": FREE,
    "AWS::CloudFormation::Stack": FREE,  # the nested stack of the functions' log groups
    "AWS::DynamoDB::Table": STORAGE,  # on-demand; point-in-time recovery is billed per GB too
    "AWS::Events::Rule": FREE,  # AWS service events and schedules on the default bus are free
    "AWS::IAM::Policy": FREE,
    "AWS::IAM::ManagedPolicy": FREE,
    "AWS::IAM::Role": FREE,
    "AWS::Lambda::EventSourceMapping": FREE,  # Lambda polls DynamoDB streams at no charge
    "AWS::Lambda::Function": FREE,  # no provisioned concurrency
    "AWS::Lambda::LayerVersion": STORAGE,
    "AWS::Lambda::Permission": FREE,
    "AWS::Logs::LogGroup": STORAGE,
    "AWS::S3::Bucket": STORAGE,
    "AWS::S3::BucketPolicy": FREE,
    "AWS::SNS::Subscription": FREE,
    "AWS::SNS::Topic": FREE,  # billed per publish and delivery
    "AWS::SNS::TopicPolicy": FREE,
    "AWS::SQS::Queue": FREE,
    "AWS::SQS::QueuePolicy": FREE,
    "AWS::StepFunctions::StateMachine": FREE,  # Standard: billed per state transition
    "Custom::CDKBucketDeployment": FREE,  # runs during deploy only
}


def idle_cost_report(resources: dict[str, dict]) -> dict[str, tuple[int, str]]:
    counts = Counter(r["Type"] for r in resources.values())
    return {t: (n, IDLE_COST.get(t, "UNCLASSIFIED")) for t, n in sorted(counts.items())}


def test_only_storage_bills_while_idle(synth, capsys):
    report = idle_cost_report(synth.resources)
    with capsys.disabled():
        print("\nidle cost by resource type:")
        for cfn_type, (count, cost) in report.items():
            print(f"  {count:3d} x {cfn_type:45s} {cost}")
    unclassified = [t for t, (_, cost) in report.items() if cost == "UNCLASSIFIED"]
    assert unclassified == [], "classify these in IDLE_COST"
    assert {cost for _, cost in report.values()} <= {FREE, STORAGE}


def test_nothing_is_provisioned_ahead_of_demand(synth):
    for r in synth.resources.values():
        props = r.get("Properties", {})
        assert not props.get("CacheClusterEnabled"), "an API Gateway cache cluster bills by the hour"
        assert "ProvisionedThroughput" not in props, "tables are on-demand"
    assert not [
        r
        for r in synth.resources.values()
        if r["Type"] == "AWS::Lambda::Version" and "ProvisionedConcurrencyConfig" in r.get("Properties", {})
    ]
    assert not synth.of_type("AWS::Lambda::Alias")
