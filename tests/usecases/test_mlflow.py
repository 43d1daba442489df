"""The tracking server a cluster logs to, as the jobs and MLflow routes read it."""

from __future__ import annotations

from launchpod.domain import mlflow
from launchpod.usecases.mlflow import server_of

from tests.usecases.fakes import Records, Servers

SERVER = {"TrackingServerName": "lp-train", "TrackingServerStatus": "Created"}


def test_the_server_the_cluster_record_names_is_described_from_sagemaker() -> None:
    servers = Servers({"lp-train": SERVER})
    found = server_of("train", clusters=Records({"train": {mlflow.RECORD_ATTRIBUTE: "lp-train"}}), servers=servers)
    assert found == SERVER
    assert servers.asked == ["lp-train"]


def test_a_cluster_that_never_picked_a_server_has_none_and_sagemaker_is_not_asked() -> None:
    servers = Servers({"lp-train": SERVER})
    assert server_of("train", clusters=Records({"train": {}}), servers=servers) is None
    assert server_of("unknown", clusters=Records({}), servers=servers) is None
    assert servers.asked == []


def test_a_recorded_server_deleted_in_sagemaker_reads_as_none() -> None:
    records = Records({"train": {mlflow.RECORD_ATTRIBUTE: "lp-gone"}})
    assert server_of("train", clusters=records, servers=Servers({})) is None
