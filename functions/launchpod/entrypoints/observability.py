"""Powertools logger, tracer and metrics shared by every handler."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger(service="launchpod")
tracer = Tracer(service="launchpod")
metrics = Metrics(namespace="Launchpod", service="launchpod")
