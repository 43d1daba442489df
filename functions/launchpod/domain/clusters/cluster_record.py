"""A cluster as Launchpod's registry records it: where it lives, how Launchpod came to know it, which operation
holds it, the MLflow tracking server it logs to and what Launchpod's create phases made of it.

The ClusterRecords port (adapters.store.clusters) builds it from the registry table's item, so the item's
attribute names stay in the adapter. The item also carries what only its writers use (the operations store's
lockedAt and lastOperationId, a parked task token, the last HyperPod status and drift seen): not read here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, TypedDict

Source = Literal["created", "imported"]  # Launchpod created the cluster, or an existing EKS cluster was imported


class RegisteredFacts(TypedDict, total=False):
    """What a registration may record beside its source and Region (the registry's ``register``): an imported
    cluster's EKS ARN, the MLflow tracking server its jobs log to, the last HyperPod status an event told (and
    when) and the add-ons the drift check found drifted. A fact left out, or None, stays as recorded."""

    eks_arn: str | None
    mlflow_tracking_server: str | None
    hyperpod_status: str | None
    hyperpod_status_at: str | None
    drift: list[str] | None


@dataclass(frozen=True)
class ClusterRecord:
    name: str
    source: Source
    region: str  # the Region it was registered in: every call about it goes there
    registered_at: datetime  # the first registration (a repeated one keeps it)
    locked_by: str | None = None  # the operation holding the cluster (the operations store's lock), if one does
    mlflow_tracking_server: str | None = None  # the tracking server its jobs log to, once configured
    # launchpod.domain.ownership's facts: the ARN a create phase recorded as made (fact -> ARN), and the facts
    # whose marker says the phase asked AWS to create that cluster.
    created: Mapping[str, str] = field(default_factory=dict)
    requested: frozenset[str] = frozenset()
