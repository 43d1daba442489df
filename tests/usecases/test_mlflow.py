"""The tracking server a cluster logs to, as the jobs and MLflow routes read it; configuring one (NOOP when
the cluster already uses it, else the configure-mlflow workflow) and reading it with its presigned URL."""

from __future__ import annotations

import pytest
from launchpod.contracts.mlflow import ConfigureMlflowRequest
from launchpod.domain import mlflow
from launchpod.domain.errors import NotFound
from launchpod.usecases import mlflow as mlflow_cases
from launchpod.usecases.mlflow import server_of

from tests.domain.test_operations import ADMIN
from tests.fakes.clusters import Clusters
from tests.fakes.mlflow import Servers
from tests.fakes.operations import Operations, Workflows

SERVER = {"TrackingServerName": "lp-train", "TrackingServerStatus": "Created"}


def test_the_server_the_cluster_record_names_is_described_from_sagemaker() -> None:
    servers = Servers({"lp-train": SERVER})
    found = server_of("train", clusters=Clusters({"train": {mlflow.RECORD_ATTRIBUTE: "lp-train"}}), servers=servers)
    assert found is not None and (found.name, found.status) == ("lp-train", "Created")
    assert servers.asked == ["lp-train"]


def test_a_cluster_that_never_picked_a_server_has_none_and_sagemaker_is_not_asked() -> None:
    servers = Servers({"lp-train": SERVER})
    assert server_of("train", clusters=Clusters({"train": {}}), servers=servers) is None
    assert server_of("unknown", clusters=Clusters({}), servers=servers) is None
    assert servers.asked == []


def test_a_recorded_server_deleted_in_sagemaker_reads_as_none() -> None:
    records = Clusters({"train": {mlflow.RECORD_ATTRIBUTE: "lp-gone"}})
    assert server_of("train", clusters=records, servers=Servers({})) is None


def _ports(records: dict, servers: dict) -> mlflow_cases.MlflowPorts:
    return mlflow_cases.MlflowPorts(
        clusters=Clusters(records),
        servers=Servers(servers),
        operations=Operations(),
        workflows=Workflows(),
        prefix="lp",
    )


def test_configuring_the_server_the_cluster_already_uses_is_a_noop_that_starts_nothing() -> None:
    ports = _ports({"train": {mlflow.RECORD_ATTRIBUTE: "lp-train"}}, {"lp-train": SERVER})
    proposal = mlflow_cases.configure(
        "train", ConfigureMlflowRequest(trackingServerName="lp-train"), ADMIN, ports=ports
    )
    assert proposal.plan.empty and proposal.noop == "train already logs to tracking server lp-train; no changes."
    assert ports.workflows.started == []  # type: ignore[attr-defined]


def test_a_new_server_is_planned_with_its_role_and_started_as_configure_mlflow() -> None:
    ports = _ports({"train": {}}, {})
    proposal = mlflow_cases.configure("train", ConfigureMlflowRequest(), ADMIN, ports=ports)
    assert [(s.action, s.phase) for s in proposal.plan.steps] == [
        ("create", "ServerRole"),
        ("create", "TrackingServer"),
    ]
    assert ports.servers.asked == [mlflow.default_name("lp", "train")]  # type: ignore[attr-defined]
    operation = proposal.start()
    assert operation.kind == "configure-mlflow"
    [(workflow, _, _)] = ports.workflows.started  # type: ignore[attr-defined]
    assert workflow == "configure-mlflow"


def test_an_unregistered_cluster_is_404_saying_to_create_or_import_it() -> None:
    with pytest.raises(NotFound, match="create or import it first"):
        mlflow_cases.get("nope", ports=_ports({}, {}))


def test_a_created_server_reads_with_a_presigned_url_and_a_creating_one_with_what_to_wait_for() -> None:
    server = {**SERVER, "TrackingServerArn": "arn:aws:sagemaker:us-east-1:1:mlflow-tracking-server/lp-train"}
    ports = _ports({"train": {mlflow.RECORD_ATTRIBUTE: "lp-train"}}, {"lp-train": server})
    assert mlflow_cases.get("train", ports=ports).url == "https://t-lp-train.example/auth?authToken=1"
    ports = _ports(
        {"train": {mlflow.RECORD_ATTRIBUTE: "lp-train"}}, {"lp-train": {**server, "TrackingServerStatus": "Creating"}}
    )
    creating = mlflow_cases.get("train", ports=ports)
    assert creating.url is None and "up to 25 minutes" in (creating.message or "")
    assert ports.servers.presigned == []  # type: ignore[attr-defined]
