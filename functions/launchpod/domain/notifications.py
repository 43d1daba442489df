"""Notifications, the pure rules: a subscriber and a notification as the ports carry them, a subscriber's SNS
filter policy, the console page a notification links to, the chat payload a webhook is posted, which webhook
URLs may be called at all (SSRF), and what the scheduled watcher tells about jobs, endpoints and training
plans (which states are news, once per what)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from launchpod.contracts.notifications import NotificationKind, SubscriberProtocol

TEST_KIND = "test"  # the test message goes to every subscriber of the cluster, whatever kinds it chose
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def filter_policy(cluster: str, kinds: Iterable[str]) -> dict[str, list[str]]:
    """An SNS subscription filter policy on the message attributes: this cluster, these kinds (and the test
    message). Attribute names AND, values in a list OR
    (https://docs.aws.amazon.com/sns/latest/dg/sns-subscription-filter-policies.html)."""
    return {"cluster": [cluster], "kind": sorted({*kinds, TEST_KIND})}


@dataclass(frozen=True)
class Subscriber:
    """One who is told about a cluster (the NotificationDocs port, adapters.store.notifications): an e-mail
    address, through its SNS subscription, or a chat webhook the relay posts to, for the kinds it chose."""

    id: str
    protocol: SubscriberProtocol
    endpoint: str  # the address or the webhook's URL
    kinds: tuple[NotificationKind, ...]
    since: datetime | None = None  # when it started listening: None for a subscriber stored before this was kept
    subscription_arn: str | None = None  # an e-mail subscriber's SNS subscription, once subscribed


@dataclass(frozen=True)
class Notification:
    """One notification about a cluster, as the topic publishes it (the NotificationTopic port,
    adapters.aws.sns): its kind, subject and text, and the console page it links to."""

    cluster: str
    kind: str
    subject: str
    text: str
    link: str | None = None

    def email_text(self) -> str:
        """What an e-mail subscriber reads: the text, then the console link on its own paragraph."""
        link = f"Open in the console: {self.link}" if self.link else None
        return "\n\n".join(part for part in (self.text, link) if part)


def wants(subscriber: Subscriber, kind: str) -> bool:
    return kind == TEST_KIND or kind in subscriber.kinds


def link(console_url: str | None, path: str) -> str | None:
    """The console page (web/src/App.tsx routes: /clusters/:name, /operations/:id)."""
    return f"{console_url.rstrip('/')}{path}" if console_url else None


def chat_text(subject: str, text: str, url: str | None) -> str:
    """One message Slack's and Teams' incoming webhooks both show: {"text": ...} with the link on its own
    line (Slack: https://api.slack.com/messaging/webhooks; Teams' connectors take the same "text")."""
    return "\n".join(part for part in (f"*{subject}*", text, url) if part)


def email_problem(address: str) -> str | None:
    return None if _EMAIL.match(address) else f"{address!r} is not an e-mail address."


def url_problem(url: str, allow_loopback: bool) -> str | None:
    """Why a webhook URL may not be used as written: https only (plain http only to loopback where allowed)."""
    parts = urlsplit(url)
    if not parts.hostname:
        return f"{url!r} is not a URL; give the webhook's https:// address."
    loopback = parts.hostname == "localhost" or _is(parts.hostname, "is_loopback")
    if parts.scheme != "https" and not (allow_loopback and loopback and parts.scheme == "http"):
        return f"Webhook {url} must use https."
    return None


def _is(host: str, flag: str) -> bool:
    try:
        return bool(getattr(ipaddress.ip_address(host), flag))
    except ValueError:
        return False


def address_problem(url: str, addresses: Iterable[str], allow_loopback: bool) -> str | None:
    """Why a webhook may not be called: its host resolves to a private, loopback, link-local (the instance
    metadata service at 169.254.169.254) or otherwise non-public address. Loopback passes where allowed."""
    for address in addresses:
        ip = ipaddress.ip_address(address)
        if ip.is_loopback and allow_loopback:
            continue
        if not ip.is_global:
            return f"Webhook {url} resolves to {address}, which is not a public address; it is not called."
    return None


# ---------------------------------------------------------------------------- what the watcher tells
# A training job, an endpoint and a training plan have no AWS event of their own (they live in the cluster's
# API server, or in DescribeTrainingPlan), so a scheduled watcher reads them (usecases.events.watch) and these
# rules decide what is news. The console's pages for them: web/src/App.tsx routes /clusters/:name with the
# tab in ?tab=, the Jobs and Inference tabs opening the item named in ?job= / ?endpoint=; /capacity.
JOB_FAILED = "job-failed"
ENDPOINT_UNHEALTHY = "endpoint-unhealthy"
PLAN_EXPIRING = "plan-expiring"
# A failure older than this when first seen (a watcher just deployed, a job that failed last month) is history,
# not news; it is shorter than the sent keys' TTL (adapters.store.notifications), so nothing is told twice.
FAILED_LOOKBACK = timedelta(hours=24)


def job_path(cluster: str, job: str, namespace: str = "default") -> str:
    """A team's job runs in the team's namespace: the page names it when it is not ``default``."""
    where = {"tab": "jobs", "job": job} | ({"namespace": namespace} if namespace != "default" else {})
    return f"/clusters/{quote(cluster)}?{urlencode(where)}"


def endpoint_path(cluster: str, endpoint: str) -> str:
    return f"/clusters/{quote(cluster)}?{urlencode({'tab': 'inference', 'endpoint': endpoint})}"


CAPACITY_PATH = "/capacity"


def when_of(value: Any) -> datetime | None:
    """A Kubernetes timestamp (RFC 3339 string) or a boto3 datetime, timezone-aware."""
    if value is None or value == "":
        return None
    found = value if isinstance(value, datetime) else datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return found if found.tzinfo else found.replace(tzinfo=UTC)


def failed_at(job: dict[str, Any]) -> datetime | None:
    """When the job failed: the HyperPodPyTorchJob's Failed condition's lastTransitionTime, or KubeRay's
    RayJob ``status.endTime`` (https://docs.ray.io/en/latest/cluster/kubernetes/getting-started/rayjob-quick-start.html)."""
    status = job.get("status") or {}
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Failed" and condition.get("status") == "True":
            return when_of(condition.get("lastTransitionTime"))
    return when_of(status.get("endTime"))


def job_news(job: dict[str, Any], status: str, now: datetime) -> bool:
    """Whether a job's state is a failure to tell: Failed (the operator's terminal state, after its restarts
    were spent) and not older than FAILED_LOOKBACK."""
    if status != "Failed":
        return False
    when = failed_at(job)
    return when is None or now - when <= FAILED_LOOKBACK


def job_key(cluster: str, job: dict[str, Any]) -> str:
    """Once per job: a job fails once (its restarts are inside it); a new job of the same name has a new uid."""
    meta = job["metadata"]
    return f"{cluster}#{meta.get('namespace', 'default')}/{meta['name']}#{meta.get('uid', '')}"


def endpoint_key(cluster: str, namespace: str, name: str, uid: str) -> str:
    """One episode of an endpoint's ill health: claimed when it turns unhealthy, released when it is Ready again
    (usecases.events.watch), so the next episode is told again."""
    return f"{cluster}#{namespace}/{name}#{uid}"


def expiring_threshold(end: datetime, now: datetime, thresholds: Iterable[int]) -> int | None:
    """The tightest threshold (hours) a plan ending at ``end`` is within, None when it is further off or over.
    Only the tightest is told: a plan first seen 2 hours from its end is told "2 hours", not also "24" and "72"."""
    left = end - now
    if left <= timedelta(0):
        return None
    within = [h for h in thresholds if left <= timedelta(hours=h)]
    return min(within) if within else None


def plan_key(arn: str, end: datetime, hours: int) -> str:
    """Once per plan, end and threshold: an extended plan (a later EndTime) is told again when it nears its new end."""
    return f"{arn}#{end.isoformat()}#{hours}h"


def hours_left(end: datetime, now: datetime) -> str:
    left = end - now
    hours = left.total_seconds() / 3600
    return f"{hours:.0f} hours" if hours >= 2 else f"{max(1, round(hours * 60))} minutes"
