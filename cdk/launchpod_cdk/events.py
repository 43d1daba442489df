"""Events: what wakes Launchpod up when nobody calls it.

- the operations table's stream -> ``operations-stream`` (pushes progress to WebSocket subscribers);
- EventBridge rules for HyperPod cluster-state and node-health events, Step Functions execution
  status changes of Launchpod's own state machines, and schedules (drift check, the notifications watcher).

Every rule target and the stream mapping has its own SQS dead-letter queue (no idle cost).
The rules themselves are in the registry (``event_rules``), which the sandbox provisions too;
a rule is created when its handler is deployed.
"""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import Aws, Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as ddb
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_sqs as sqs
from constructs import Construct
from launchpod.registry import STREAM_SOURCES, event_rules

from launchpod_cdk.data import pascal


def _pattern(pattern: dict) -> events.EventPattern:
    """The registry spells patterns as EventBridge does ("detail-type"); CDK wants keywords."""
    return events.EventPattern(**{key.replace("-", "_"): value for key, value in pattern.items()})


def _dlq(scope: Events, id: str) -> sqs.Queue:
    queue = sqs.Queue(
        scope,
        id,
        retention_period=Duration.days(14),
        encryption=sqs.QueueEncryption.SQS_MANAGED,
        enforce_ssl=True,
        removal_policy=RemovalPolicy.DESTROY,
    )
    scope.dead_letter_queues.append(queue)
    return queue


class Events(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        prefix: str,
        functions: dict[str, lambda_.Function],
        tables: Mapping[str, ddb.ITable],
    ) -> None:
        super().__init__(scope, id)
        self.rules: dict[str, events.Rule] = {}
        self.skipped: list[str] = []
        self.dead_letter_queues: list[sqs.Queue] = []

        for source in STREAM_SOURCES:  # the registry's table streams, as the sandbox maps them too
            if source.function in functions:
                functions[source.function].add_event_source(
                    sources.DynamoEventSource(
                        tables[source.table],
                        starting_position=lambda_.StartingPosition.LATEST,
                        batch_size=source.batch_size,
                        max_batching_window=Duration.seconds(source.batching_window_seconds),
                        bisect_batch_on_error=source.bisect_batch_on_error,
                        retry_attempts=source.retry_attempts,
                        max_record_age=Duration.seconds(source.max_record_age_seconds),
                        report_batch_item_failures=source.report_batch_item_failures,
                        on_failure=sources.SqsDlq(_dlq(self, f"{pascal(source.function)}Dlq")),
                    )
                )

        machine_prefix = f"arn:{Aws.PARTITION}:states:{Aws.REGION}:{Aws.ACCOUNT_ID}:stateMachine:{prefix}-"
        for rule in event_rules(machine_prefix):
            fn = functions.get(rule.function)
            if fn is None:
                self.skipped.append(rule.function)
                continue
            target = targets.LambdaFunction(
                fn,
                event=events.RuleTargetInput.from_object(rule.input) if rule.input else None,
                dead_letter_queue=_dlq(self, f"{rule.id}Dlq"),
                retry_attempts=4,
                max_event_age=Duration.hours(2),
            )
            self.rules[rule.id] = events.Rule(
                self,
                rule.id,
                rule_name=rule.rule_name(prefix),
                description=rule.description,
                event_pattern=_pattern(rule.pattern) if rule.pattern else None,
                schedule=events.Schedule.expression(rule.schedule) if rule.schedule else None,
                targets=[target],
            )
