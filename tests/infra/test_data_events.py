"""Data and events: tables, the shared bucket, the operations stream and the EventBridge rules."""

from __future__ import annotations

import json

import pytest
from launchpod import registry
from launchpod.registry import STREAM_SOURCES, event_rules

pytestmark = pytest.mark.infra


def _tables(synth) -> dict[str, dict]:
    """Registry key -> table resource (matched on the logical ID the data construct gives it)."""
    out = {}
    for key, table in synth.of_type("AWS::DynamoDB::Table").items():
        for spec in registry.TABLES:
            if key.startswith("Data" + "".join(p.capitalize() for p in spec.key.split("-")) + "Table"):
                out[spec.key] = table
    return out


def test_every_table_is_on_demand_recoverable_retained_and_protected(synth):
    tables = _tables(synth)
    assert set(tables) == {t.key for t in registry.TABLES}
    for spec in registry.TABLES:
        table = tables[spec.key]
        props = table["Properties"]
        assert table["DeletionPolicy"] == "Retain" and table["UpdateReplacePolicy"] == "Retain"
        assert props["BillingMode"] == "PAY_PER_REQUEST"
        assert props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
        assert props["DeletionProtectionEnabled"] is True
        assert props.get("StreamSpecification") == ({"StreamViewType": spec.stream} if spec.stream else None)
        if spec.ttl_attribute:
            assert props["TimeToLiveSpecification"] == {"AttributeName": spec.ttl_attribute, "Enabled": True}
        assert {i["IndexName"] for i in props.get("GlobalSecondaryIndexes", [])} == {i[0] for i in spec.indexes}


def test_buckets_are_encrypted_versioned_private_and_tls_only(synth):
    buckets = synth.of_type("AWS::S3::Bucket")
    policies = [p["Properties"] for p in synth.of_type("AWS::S3::BucketPolicy").values()]
    for key, bucket in buckets.items():
        props = bucket["Properties"]
        assert props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
        assert props["VersioningConfiguration"] == {"Status": "Enabled"}
        assert all(props["PublicAccessBlockConfiguration"].values())
        tls = [
            s
            for p in policies
            if p["Bucket"] == {"Ref": key}
            for s in p["PolicyDocument"]["Statement"]
            if s["Effect"] == "Deny" and s.get("Condition", {}).get("Bool", {}).get("aws:SecureTransport") == "false"
        ]
        assert tls, f"{key} accepts plain HTTP"
    [shared] = [b for k, b in buckets.items() if k.startswith("DataSharedBucket")]
    assert shared["DeletionPolicy"] == "Retain"
    assert "LoggingConfiguration" in shared["Properties"]


def test_operations_stream_function_consumes_the_operations_table_stream_with_a_dead_letter_queue(synth):
    [mapping] = synth.of_type("AWS::Lambda::EventSourceMapping").values()
    props = mapping["Properties"]
    [operations] = [k for k in synth.of_type("AWS::DynamoDB::Table") if k.startswith("DataOperationsTable")]
    assert props["EventSourceArn"] == {"Fn::GetAtt": [operations, "StreamArn"]}
    assert props["FunctionName"]["Ref"] in synth.of_type("AWS::Lambda::Function")
    assert synth.resources[props["FunctionName"]["Ref"]]["Properties"]["FunctionName"] == "launchpod-operations-stream"
    assert props["DestinationConfig"]["OnFailure"]["Destination"]
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    [source] = STREAM_SOURCES  # the mapping the sandbox creates too (sandbox/provision.py)
    assert (
        (props["BatchSize"], props["MaximumBatchingWindowInSeconds"])
        == (50, 1)
        == (
            source.batch_size,
            source.batching_window_seconds,
        )
    )


def test_every_event_rule_targets_its_handler_with_retries_and_a_dead_letter_queue(synth):
    rules = {r["Properties"]["Name"]: r["Properties"] for r in synth.of_type("AWS::Events::Rule").values()}
    expected = {r.rule_name("launchpod"): r for r in event_rules("launchpod")}
    assert set(rules) == set(expected)
    queues = synth.of_type("AWS::SQS::Queue")
    for name, props in rules.items():
        rule = expected[name]
        [target] = props["Targets"]
        assert target["DeadLetterConfig"]["Arn"]["Fn::GetAtt"][0] in queues
        assert target["RetryPolicy"]["MaximumRetryAttempts"] >= 1
        fn = synth.resources[target["Arn"]["Fn::GetAtt"][0]]["Properties"]["FunctionName"]
        assert fn == f"launchpod-{rule.function}"
        assert ("ScheduleExpression" in props) == (rule.schedule is not None)
        # two schedules share one function: the rule's constant Input says which check it runs
        assert (json.loads(target["Input"]) if "Input" in target else None) == rule.input


def test_hyperpod_and_workflow_rules_match_the_events_aws_sends(synth):
    patterns = [r["Properties"].get("EventPattern") for r in synth.of_type("AWS::Events::Rule").values()]
    detail_types = {t for p in patterns if p for t in p.get("detail-type", [])}
    assert {
        "SageMaker HyperPod Cluster State Change",
        "SageMaker HyperPod Cluster Node Health Event",
        "Step Functions Execution Status Change",
    } <= detail_types
