"""A HyperPod cluster event as Launchpod reads it: what happened to which cluster, group or node, when and at
what level; DescribeClusterEvent adds its metadata, where the reason for a failure is.

The HyperPodNodes port (adapters.aws.sagemaker) builds them from ListClusterEvents' ClusterEventSummary and
DescribeClusterEvent's ClusterEventDetail, and ListClusterEvents' filters from an EventFilter, so the AWS
shapes stay in the adapter
(https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterEventSummary.html,
https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterEventDetail.html)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class ClusterEvent:
    event_id: str
    cluster: str | None  # the cluster's name
    time: datetime | None
    level: str | None  # Info, Warn or Error
    resource_type: str | None  # Cluster, InstanceGroup or Instance
    group: str | None = None  # the instance group's name, for a group's or a node's event
    node_id: str | None = None  # the instance id, for a node's event
    description: str | None = None


@dataclass(frozen=True)
class ClusterEventDetails(ClusterEvent):
    # EventDetails.EventMetadata as sent (None when empty): the event view shows it whole (contracts.nodes).
    metadata: dict[str, Any] | None = None
    failure_messages: tuple[str, ...] = ()  # each metadata part's FailureMessage, in the order AWS sent them


@dataclass(frozen=True)
class EventFilter:
    """Which of a cluster's events to read, each None for any: ListClusterEvents' filters. The port answers
    them newest first."""

    group: str | None = None  # the instance group's name
    node_id: str | None = None  # the instance id
    resource_type: str | None = None  # Cluster, InstanceGroup or Instance
    after: datetime | None = None
    before: datetime | None = None


@dataclass(frozen=True)
class ClusterEventPage:
    """One page of ListClusterEvents: its events and the token for the next page (None: the last)."""

    events: tuple[ClusterEvent, ...]
    next_token: str | None = None
