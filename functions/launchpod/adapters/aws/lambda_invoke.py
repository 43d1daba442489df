"""Asynchronous Lambda invocation (InvocationType=Event): Lambda queues the event and answers 202 at once."""

from __future__ import annotations

import json
from typing import Any

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call


def invoke_async(function_name: str, event: dict[str, Any]) -> None:
    with aws_call("lambda:InvokeFunction"):
        client("lambda").invoke(
            FunctionName=function_name, InvocationType="Event", Payload=json.dumps(event, default=str).encode()
        )
