"""An inference endpoint's autoscaling (the KEDA triggers the inference operator or Launchpod configures:
a Prometheus query or a CloudWatch metric, between minReplicas and maxReplicas) and the metrics collection
of a managed endpoint (the InferenceEndpointConfig's ``metrics``); the endpoints themselves are in
contracts/inference.py."""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from launchpod.contracts.common import Contract, refuse_repeats, refused

# An Amazon Managed Service for Prometheus workspace's query URL, the only kind of server the inference
# operator's prometheusTrigger takes (its CRD: serverAddress ^https://aps-workspaces.<region>.amazonaws.com/
# workspaces/ws-...$ or empty).
AmpWorkspaceUrl = Annotated[
    str,
    Field(
        max_length=256,
        pattern=r"^https://aps-workspaces\.[a-z]{2}(-[a-z]+)+-[0-9]\.amazonaws\.com/workspaces/ws-[a-zA-Z0-9-]{1,64}$",
        description="an AMP workspace (https://aps-workspaces.<region>.amazonaws.com/workspaces/ws-...)",
        examples=["https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-0123abcd-4567-89ef-0123-456789abcdef"],
    ),
]


class PrometheusTrigger(Contract):
    query: str = Field(min_length=1, max_length=1024, examples=["sum(rate(vllm:request_success_total[1m]))"])
    targetValue: float = Field(gt=0, description="the query's value one replica handles")
    # KEDA (in the cluster) queries it, never the API; an in-cluster Service name only, no external host.
    serverAddress: str = Field(
        default="http://prometheus-server.prometheus.svc.cluster.local:80",
        pattern=r"^http://[a-z0-9]([-a-z0-9]*[a-z0-9])?\.[a-z0-9]([-a-z0-9]*[a-z0-9])?\.svc(\.cluster\.local)?:[0-9]{1,5}$",
        description="container only: the in-cluster Prometheus Service KEDA queries "
        "(http://<service>.<namespace>.svc.cluster.local:<port>); Launchpod installs no Prometheus and refuses the "
        "endpoint until that Service exists with that port",
    )
    ampWorkspaceUrl: AmpWorkspaceUrl | None = Field(
        default=None,
        description="managed only: the AMP workspace the inference operator queries; without it, the operator's "
        "default (the cluster's observability workspace)",
    )


# CloudWatch's names: a namespace is 1-255 of 0-9A-Za-z . - _ / # : and space; metric and dimension names
# 1-255 ASCII, a dimension name not starting with ':' (CloudWatch API reference, Metric and Dimension;
# CloudWatch concepts, "Namespaces"). Launchpod takes that namespace alphabet for all four, so nothing
# reaches KEDA's trigger metadata that could split it (KEDA joins dimensions with ';').
_CW_CHARS = r"A-Za-z0-9._/#:\-"
CloudWatchName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=255,
        pattern=rf"^[A-Za-z0-9._/#\-]([{_CW_CHARS} ]*[{_CW_CHARS}])?$",
        examples=["Invocations"],
    ),
]


class CloudWatchDimension(Contract):
    name: CloudWatchName = Field(examples=["EndpointName"])
    value: CloudWatchName = Field(examples=["qwen-chat"])


class CloudWatchTrigger(Contract):
    """A CloudWatch metric the inference operator's KEDA reads with GetMetricData as the operator's role."""

    namespace: CloudWatchName = Field(examples=["AWS/SageMaker"])
    metricName: CloudWatchName = Field(examples=["Invocations"])
    dimensions: list[CloudWatchDimension] = Field(default_factory=list, max_length=30)
    targetValue: float = Field(gt=0, description="the metric's value one replica handles")
    statistic: Literal["Average", "Sum", "Minimum", "Maximum", "SampleCount"] = "Average"
    period: int | None = Field(
        default=None,
        ge=60,
        le=3600,
        multiple_of=60,
        description="seconds each datapoint aggregates (a multiple of 60); the operator's default is 300",
    )

    @model_validator(mode="after")
    def _dimensions_once(self) -> Self:
        refuse_repeats((d.name for d in self.dimensions), "each dimension name may appear once")
        return self


class AutoscalingSpec(Contract):
    minReplicas: int = Field(default=1, ge=0, le=64)
    maxReplicas: int = Field(default=4, ge=1, le=64)
    prometheus: PrometheusTrigger | None = None
    cloudWatch: CloudWatchTrigger | None = Field(default=None, description="managed only: a CloudWatch metric")

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.minReplicas > self.maxReplicas:
            raise refused("ordered", "minReplicas must not exceed maxReplicas")
        return self


class MetricsSpec(Contract):
    """The InferenceEndpointConfig's ``metrics``: whether the operator collects the endpoint's metrics, how
    often, and where the model container serves them (the CRD's bounds: 5-300 s, port 1024-65535)."""

    enabled: bool = Field(default=True, description="collect metrics from the operator's sidecar and the model")
    scrapeIntervalSeconds: int = Field(default=15, ge=5, le=300, description="seconds between scrapes")
    path: str = Field(
        default="/metrics",
        max_length=256,
        pattern=r"^/[a-zA-Z0-9\-_./]*$",
        description="the path the model container serves its metrics on",
        examples=["/metrics"],
    )
    port: int = Field(default=8080, ge=1024, le=65535, description="the port the model container serves them on")
