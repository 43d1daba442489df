"""EventBridge in the sandbox: rules with Lambda targets invoke their handlers, and AWS services the
sandbox emulates put their events on the default bus, as AWS does.

moto 5.2.5 matches events against rules but delivers only to logs, SQS, archives, other buses and
API destinations: it has no delivery to a Lambda target, and disabled rules deliver too. Here
a Lambda target is invoked asynchronously (EventBridge never waits for its targets) with the event
as AWS delivers it, and only enabled rules deliver.
"""

from __future__ import annotations

import copy
import json
import logging
import threading
from datetime import UTC, datetime
from typing import Any

from sandbox.aws.core import once, patch

log = logging.getLogger(__name__)


def _delivered(event: dict[str, Any]) -> dict[str, Any]:
    """The event as a Lambda target receives it: ISO times, no moto-internal keys."""
    out = {k: v for k, v in event.items() if k != "ingestion-time"}
    if isinstance(out.get("time"), int | float):
        out["time"] = datetime.fromtimestamp(out["time"], UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return out


def _invoke(function_arn: str, event: dict[str, Any]) -> None:
    import boto3

    region = function_arn.split(":")[3]
    try:
        out = boto3.client("lambda", region_name=region).invoke(
            FunctionName=function_arn, Payload=json.dumps(event).encode()
        )
        if out.get("FunctionError"):
            log.warning("EventBridge target %s failed: %s", function_arn, out["Payload"].read()[:500])
    except Exception:  # the sandbox is shutting down, or the function is gone
        log.warning("EventBridge could not invoke %s", function_arn, exc_info=True)


@once
def install() -> None:
    """Deliver to Lambda targets (idempotent)."""
    from moto.events.models import Rule
    from moto.utilities.arns import parse_arn

    original = Rule.send_to_targets

    def send_to_targets(self: Rule, original_event: Any, transform_input: bool = True) -> None:
        if self.state != "ENABLED":  # moto delivers for disabled rules too; AWS does not
            return
        lambdas = [t for t in self.targets if parse_arn(t["Arn"]).service == "lambda"]
        if lambdas and self.event_pattern.matches_event(original_event):
            event = _delivered(original_event)
            for target in lambdas:
                threading.Thread(
                    target=_invoke, args=(target["Arn"], event), name="eventbridge-target", daemon=True
                ).start()
        others = [t for t in self.targets if t not in lambdas]
        if others:
            rest = copy.copy(self)
            rest.targets = others
            original(rest, original_event, transform_input)

    patch(Rule, "send_to_targets", send_to_targets)


def put_event(
    account: str, region: str, source: str, detail_type: str, detail: dict[str, Any], resources: list[str]
) -> None:
    """Put one event on the default bus of ``account``/``region``, as an AWS service does."""
    from moto.events.models import events_backends

    events_backends[account][region].put_events(
        [{"Source": source, "DetailType": detail_type, "Detail": json.dumps(detail), "Resources": resources}]
    )
