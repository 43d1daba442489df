"""The sandbox's serving exporters publish the family of names the server really exports: the inference
operator's ``model_*`` for a pod the operator runs, vLLM's own ``vllm:*`` for a vLLM server deployed without it
(with its token counters), nothing for a server whose names are not modelled."""

from __future__ import annotations

import pytest

from sandbox.aws.prometheus import exporters
from sandbox.aws.prometheus.tsdb import Tsdb


@pytest.fixture
def db(monkeypatch: pytest.MonkeyPatch) -> Tsdb:
    fresh, state = Tsdb(), exporters.Exporters(workspaces={"c1": "ws"})
    monkeypatch.setattr(exporters, "tsdb", lambda: fresh)
    monkeypatch.setattr(exporters, "exporters", lambda: state)
    return fresh


def _pod(name: str, image: str, labels: dict[str, str]) -> dict:
    return {
        "metadata": {"name": name, "namespace": "default", "labels": labels},
        "spec": {"nodeName": "n1", "containers": [{"name": "worker", "image": image}]},
    }


def _names(db: Tsdb) -> set[str]:
    return {s.labels["__name__"] for s in db.workspaces.get("ws", {}).values()}


def test_an_operator_pod_publishes_the_operators_names(db: Tsdb) -> None:
    labels = {"app": "chat", "sagemaker.amazonaws.com/inference-endpoint": "chat"}
    exporters.served("c1", _pod("chat-abc12-0", "vllm/vllm-openai:v0.10.1", labels), "q", 10, 16)
    assert "model_invocations_total" in _names(db) and not any(n.startswith("vllm:") for n in _names(db))


def test_a_self_managed_vllm_pod_publishes_vllms_names_with_its_tokens(db: Tsdb) -> None:
    exporters.served(
        "c1", _pod("chat-abc12-0", "vllm/vllm-openai:v0.10.1", {"launchpod.io/endpoint": "chat"}), "q", 10, 16
    )
    assert not any(n.startswith("model_") for n in _names(db))
    (tokens,) = db.select("ws", "vllm:generation_tokens_total")
    assert tokens.last() == 16.0 and tokens.labels["pod"] == "chat-abc12-0" and tokens.labels["model_name"] == "q"
    (ttft,) = db.select("ws", "vllm:time_to_first_token_seconds_sum")
    assert ttft.last() == pytest.approx(0.022)  # 20 ms + 0.2 ms per prompt token, in seconds


def test_a_server_whose_names_are_not_modelled_publishes_nothing(db: Tsdb) -> None:
    exporters.served("c1", _pod("sg-abc12-0", "lmsysorg/sglang:v0.5.2", {"launchpod.io/endpoint": "sg"}), "q", 10, 16)
    assert _names(db) == set()
