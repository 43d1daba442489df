"""Events: what wakes Launchpod up when nobody calls it.

- the operations table's stream -> ``operations-stream`` (pushes progress to WebSocket subscribers);
- EventBridge rules for HyperPod cluster-state and node-health events, Step Functions execution
  status changes of Launchpod's own state machines, and schedules (job sync, drift check).

Every rule target and the stream mapping has its own SQS dead-letter queue (no idle cost).
A rule is created when its handler is in the registry; EVENT_RULES names the handlers expected.
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import Aws, Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as ddb
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_sqs as sqs
from constructs import Construct


@dataclass(frozen=True)
class EventRule:
    id: str
    function: str  # registry function that handles the event
    description: str
    pattern: dict | None = None  # EventPattern keyword arguments
    schedule: str | None = None  # rate()/cron() expression


def event_rules(prefix: str) -> tuple[EventRule, ...]:
    return (
        EventRule(
            "HyperPodClusterState",
            "events-cluster-state",
            "HyperPod cluster status changes: refresh the cluster registry, notify subscribers",
            pattern={"source": ["aws.sagemaker"], "detail_type": ["SageMaker HyperPod Cluster State Change"]},
        ),
        EventRule(
            "HyperPodNodeHealth",
            "events-node-health",
            "HyperPod node health events: record node health, notify subscribers",
            pattern={"source": ["aws.sagemaker"], "detail_type": ["SageMaker HyperPod Cluster Node Health Event"]},
        ),
        EventRule(
            "WorkflowStatus",
            "events-execution-status",
            "Launchpod executions that end without their Catch (timed out, aborted): settle the operation",
            pattern={
                "source": ["aws.states"],
                "detail_type": ["Step Functions Execution Status Change"],
                "detail": {
                    "status": ["FAILED", "TIMED_OUT", "ABORTED"],
                    "stateMachineArn": [
                        {"prefix": f"arn:{Aws.PARTITION}:states:{Aws.REGION}:{Aws.ACCOUNT_ID}:stateMachine:{prefix}-"}
                    ],
                },
            },
        ),
        EventRule(
            "DriftCheck", "events-drift-check", "Hourly: compare clusters with the registry", schedule="rate(1 hour)"
        ),
    )


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
        operations_table: ddb.ITable,
    ) -> None:
        super().__init__(scope, id)
        self.rules: dict[str, events.Rule] = {}
        self.skipped: list[str] = []
        self.dead_letter_queues: list[sqs.Queue] = []

        if "operations-stream" in functions:
            functions["operations-stream"].add_event_source(
                sources.DynamoEventSource(
                    operations_table,
                    starting_position=lambda_.StartingPosition.LATEST,
                    batch_size=50,
                    max_batching_window=Duration.seconds(1),
                    bisect_batch_on_error=True,
                    retry_attempts=3,
                    max_record_age=Duration.hours(1),  # progress older than this is no longer news
                    report_batch_item_failures=True,
                    on_failure=sources.SqsDlq(_dlq(self, "OperationsStreamDlq")),
                )
            )

        for rule in event_rules(prefix):
            fn = functions.get(rule.function)
            if fn is None:
                self.skipped.append(rule.function)
                continue
            target = targets.LambdaFunction(
                fn,
                dead_letter_queue=_dlq(self, f"{rule.id}Dlq"),
                retry_attempts=4,
                max_event_age=Duration.hours(2),
            )
            self.rules[rule.id] = events.Rule(
                self,
                rule.id,
                rule_name=f"{prefix}-{_kebab(rule.id)}",
                description=rule.description,
                event_pattern=events.EventPattern(**rule.pattern) if rule.pattern else None,
                schedule=events.Schedule.expression(rule.schedule) if rule.schedule else None,
                targets=[target],
            )


def _kebab(name: str) -> str:
    return "".join(f"-{c.lower()}" if c.isupper() else c for c in name).lstrip("-")
