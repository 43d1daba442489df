"""botocore's data files, read once in the fork server instead of once per execution environment.

A boto3 client's first creation in a process reads and parses its service's model, endpoint rules and
paginators, and botocore's endpoint and partition data: 50 to 250 ms of CPU a service (EC2's model alone is
several MB of JSON). On Lambda every cold start pays that; in the sandbox, dozens of environments start for
each cluster a test provisions, and that parsing was a fifth of their CPU. The fork server imports this module
(environments.PRELOAD): it loads the data of the services Launchpod's functions call into one botocore
``Loader``'s memo, and every session created in an environment forked from it reads through that memo
while it has no ``AWS_DATA_PATH`` of its own. The memo holds parsed, read-only data files and nothing of a
session, a client, a credential or a Region, so environments still share nothing a deployed function would not
(sandbox/README.md lists the cold start's cost among what the sandbox does not model; bench/api_cold_start.py
measures a cold start from the built package in a new interpreter, which this module does not touch).
"""

from __future__ import annotations

import gc
from typing import Any

import boto3.session
import botocore.loaders
import botocore.session

# Every service Launchpod's functions create a client or resource for (launchpod.adapters.aws; the test
# tests/sandbox/aws/test_lambda_warm.py keeps this list complete).
SERVICES = (
    "amp",
    "apigatewaymanagementapi",
    "dynamodb",
    "ec2",
    "eks",
    "fsx",
    "grafana",
    "iam",
    "lambda",
    "logs",
    "s3",
    "sagemaker",
    "service-quotas",
    "sns",
    "stepfunctions",
    "sts",
)

_create_loader = botocore.loaders.create_loader
# What botocore's Loader memoizes (its instance_cache: each data file parsed, keyed by what was asked), shared.
_PARSED: dict[Any, Any] = {}


def _loader(search_path_string: str | None = None) -> botocore.loaders.Loader:
    """A new session's loader, as botocore makes it, reading through the parsed files the fork server holds
    (unless AWS_DATA_PATH names other directories). Each session keeps its own search paths (boto3 adds its
    resource models' directory to its session's)."""
    made = _create_loader(search_path_string)
    if not search_path_string:
        made._cache = _PARSED
    return made


def warm(services: tuple[str, ...] = SERVICES) -> None:
    """Parse what creating each service's client (and DynamoDB's resource) reads."""
    session = boto3.session.Session(aws_access_key_id="warm", aws_secret_access_key="warm", region_name="us-east-1")
    for service in services:
        session.client(service)
    session.resource("dynamodb")


botocore.session.create_loader = _loader
warm()
# The last of the fork server's preloads (environments.PRELOAD): every environment is forked from this process.
# Moved out of the collector's reach, what was imported and parsed so far stays shared with each environment
# instead of being copied into it by its first full collection (the gc module's documentation, gc.freeze:
# "avoiding unnecessary copy-on-write in child processes"). It changes nothing a function sees; each environment
# kept 60 MB of memory of its own without it and 16 MB with it, and dozens stay warm per sandbox.
gc.freeze()
