"""Notifications: the deployment's SNS topic ("<prefix>-notifications") and the webhook relay subscribed
to it. E-mail subscriptions are made at run time by the API (with filter policies on the ``cluster`` and
``kind`` message attributes); the relay posts chat webhooks (docs/notifications.md)."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from constructs import Construct
from launchpod.registry import NOTIFICATIONS_TOPIC


class Notifications(Construct):
    def __init__(self, scope: Construct, id: str, *, prefix: str, functions: dict[str, lambda_.Function]) -> None:
        super().__init__(scope, id)
        # Encrypted at rest with SNS's AWS managed key: its key policy lets principals of the account use it
        # through SNS, so publishers need no KMS grant (https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html).
        self.topic = sns.Topic(
            self,
            "Topic",
            topic_name=f"{prefix}-{NOTIFICATIONS_TOPIC}",
            display_name="Launchpod",  # the e-mail's sender name
            master_key=kms.Alias.from_alias_name(self, "SnsKey", "alias/aws/sns"),
            enforce_ssl=True,
        )
        self.dead_letter_queue = sqs.Queue(
            self,
            "RelayDlq",
            retention_period=Duration.days(14),
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            removal_policy=RemovalPolicy.DESTROY,
        )
        relay = functions.get("notify-webhooks")
        if relay is not None:
            self.topic.add_subscription(
                subscriptions.LambdaSubscription(relay, dead_letter_queue=self.dead_letter_queue)
            )
