"""The notification ports' in-memory fakes (tests/fakes/notifications.py, sns.py) held to the real adapters on
the sandbox's moto: the same calls answer the same way, so the use-case tests on the fakes say what the
deployed code does."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import boto3
import pytest
from launchpod.adapters.aws.sns import Sns
from launchpod.adapters.store.notifications import DynamoNotifications
from launchpod.domain import notifications as rules
from launchpod.domain.notifications import Notification, Subscriber

from tests.fakes.notifications import NotificationDocs
from tests.fakes.sns import NotificationTopic


@pytest.fixture(params=["fake", "dynamodb"])
def docs(request):
    if request.param == "fake":
        return NotificationDocs()
    return DynamoNotifications(request.getfixturevalue("tables")["notifications"])


@pytest.fixture(params=["fake", "sns"])
def topic(request):
    if request.param == "fake":
        return NotificationTopic()
    request.getfixturevalue("aws")
    arn = boto3.client("sns", region_name="us-east-1").create_topic(Name="launchpod-notifications")["TopicArn"]
    return Sns(arn)


def test_a_key_is_claimed_once(docs):
    assert docs.claim("operation-failed#op-1#1") is True
    assert docs.claim("operation-failed#op-1#1") is False
    assert docs.claim("incident-opened#op-1#1") is True


def test_a_released_key_is_claimed_again_and_releasing_an_unclaimed_key_is_nothing(docs):
    assert docs.claim("endpoint-unhealthy#c1#default/vllm#u1") is True
    docs.release("endpoint-unhealthy#c1#default/vllm#u1")
    docs.release("endpoint-unhealthy#c1#default/never#u2")
    assert docs.claim("endpoint-unhealthy#c1#default/vllm#u1") is True
    assert docs.claim("endpoint-unhealthy#c1#default/vllm#u1") is False


EMAIL = Subscriber(
    "a",
    "email",
    "oncall@example.com",
    ("incident-opened", "operation-failed"),
    since=datetime(2026, 12, 5, 10, 0, 0, 123456, tzinfo=UTC),
    subscription_arn="arn:aws:sns:us-east-1:123456789012:launchpod-notifications:0f1e2d3c",
)
HOOK = Subscriber("b", "webhook", "https://hooks.slack.com/services/T000/B000/XXXX", ("job-failed",))


def test_subscribers_are_written_only_over_the_version_read(docs):
    assert docs.subscribers("c1") == ([], 0)
    assert docs.put_subscribers("c1", [EMAIL], 0) is True
    subs, version = docs.subscribers("c1")
    assert subs == [EMAIL] and version == 1
    assert docs.put_subscribers("c1", [HOOK], 0) is False  # a concurrent writer got in first
    assert docs.put_subscribers("c1", [EMAIL, HOOK], version) is True
    assert docs.subscribers("c1") == ([EMAIL, HOOK], 2)  # each read back whole: since, its subscription, or none
    assert docs.subscribers("c2") == ([], 0)


def test_an_email_subscription_is_known_until_it_is_removed(topic):
    arn = topic.subscribe_email("oncall@example.com", rules.filter_policy("c1", ["operation-failed"]))
    assert arn.startswith("arn:aws:sns:us-east-1:123456789012:launchpod-notifications:")
    assert isinstance(topic.pending(arn), bool)
    topic.set_filter(arn, rules.filter_policy("c1", ["incident-opened"]))
    topic.unsubscribe(arn)
    assert topic.pending(arn) is None
    topic.unsubscribe(arn)  # gone already: nothing to do


def test_a_publish_answers_its_message_id(topic):
    message_id = topic.publish(Notification("c1", "test", "s", "t"))
    assert isinstance(message_id, str) and message_id


def _delivered(topic) -> dict:
    """What the topic delivered: the fake keeps it; on SNS, a queue subscribed to the topic receives SNS's
    envelope (Subject, the "default" Message, MessageAttributes: "Fanout to Amazon SQS queues", SNS guide)."""
    if isinstance(topic, NotificationTopic):
        sent = topic.published[-1]
        return {"subject": sent["subject"], "body": sent["body"], "attributes": sent["attributes"]}
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.get_queue_url(QueueName="relay-probe")["QueueUrl"]
    envelope = json.loads(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)["Messages"][0]["Body"])
    return {
        "subject": envelope["Subject"],
        "body": json.loads(envelope["Message"]),
        "attributes": {k: v["Value"] for k, v in envelope["MessageAttributes"].items()},
    }


def test_a_publish_delivers_the_subject_body_and_attributes_the_relay_reads(topic):
    if isinstance(topic, Sns):
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="relay-probe")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        boto3.client("sns", region_name="us-east-1").subscribe(TopicArn=topic.topic_arn, Protocol="sqs", Endpoint=arn)
    topic.publish(Notification("c1", "job-failed", "Job llama failed", "It ran out of memory.", "https://x/c/c1"))
    assert _delivered(topic) == {
        "subject": "Job llama failed",
        "body": {
            "cluster": "c1",
            "kind": "job-failed",
            "subject": "Job llama failed",
            "text": "It ran out of memory.",
            "link": "https://x/c/c1",
        },
        "attributes": {"cluster": "c1", "kind": "job-failed"},
    }


def test_the_real_subscription_carries_the_filter_policy_on_message_attributes(aws):
    sns = boto3.client("sns", region_name="us-east-1")
    adapter = Sns(sns.create_topic(Name="launchpod-notifications")["TopicArn"])
    arn = adapter.subscribe_email("oncall@example.com", rules.filter_policy("c1", ["operation-failed"]))
    attributes = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
    assert json.loads(attributes["FilterPolicy"]) == {"cluster": ["c1"], "kind": ["operation-failed", "test"]}
    assert attributes["FilterPolicyScope"] == "MessageAttributes"
