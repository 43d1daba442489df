"""An MCP client session follows the submit-training-job playbook through the running sandbox: inspect,
submit a recipe job, follow it with get_job to Succeeded, read its logs, and delete it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.mcp_gateway.support import mcp_session
from tests.sandbox.aws.support import wait_until_async
from tests.sandbox.jobs_support import CLAIM, NAME, ready_cluster, recipe_inputs

pytestmark = pytest.mark.e2e


def _data(result: Any) -> dict[str, Any]:
    assert result.isError is False, result.content
    assert result.structuredContent is not None, result
    return dict(result.structuredContent)


async def test_agent_submits_follows_and_reads_a_training_job(sandbox: Any) -> None:
    await asyncio.to_thread(ready_cluster, sandbox)
    # the user's part before the agent submits: the model and dataset in the shared bucket
    inputs = await asyncio.to_thread(recipe_inputs, sandbox, "ms-swift-sft", "mcp-sft")
    sandbox.faults(jobLogIntervalSeconds=5)  # a 1 s run: the test follows it, not waits on it
    async with mcp_session(sandbox.url, sandbox.tokens["operator"]) as session:
        playbook = await session.get_prompt("submit-training-job", {"cluster": NAME})
        text = playbook.messages[0].content.text  # type: ignore[union-attr]
        assert "Not offered" not in text  # every tool the playbook names is served

        features = {f["name"]: f for f in _data(await session.call_tool("list_features", {"cluster": NAME}))["items"]}
        assert features["trainingOperator"]["enabled"] is True
        claims = _data(await session.call_tool("list_storage", {"cluster": NAME}))["items"]
        assert CLAIM in {s["storageName"] for s in claims}

        sft = {
            "cluster": NAME,
            "jobName": "mcp-sft",
            "recipe": "ms-swift-sft",
            "instanceGroup": "gpu",
            "storageClaim": CLAIM,
        }
        too_many = await session.call_tool("submit_job", {**sft, "nprocPerNode": 9})
        assert too_many.isError and "8 GPUs per node" in str(too_many.content)

        submitted = _data(
            await session.call_tool("submit_job", {**sft, "runPolicy": {"jobMaxRetryCount": 2}, **inputs})
        )
        assert submitted["kind"] == "pytorch" and submitted["budget"]["retriesLeft"] == 2

        job: dict = {}

        async def ended() -> bool:
            job.update(_data(await session.call_tool("get_job", {"cluster": NAME, "jobName": "mcp-sft"})))
            return job["status"] in ("Succeeded", "Failed")

        await wait_until_async(ended, 90, reason=lambda: f"mcp-sft did not end: {job}")
        assert job["status"] == "Succeeded", job
        assert job["pods"] and job["pods"][0]["kubernetesNode"]

        logs = _data(await session.call_tool("get_job_logs", {"cluster": NAME, "jobName": "mcp-sft", "tail": 2}))
        assert logs["container"] == "pytorch" and logs["lines"][-1].endswith("final checkpoint written")

        listed = _data(await session.call_tool("list_jobs", {"cluster": NAME}))["items"]
        assert "mcp-sft" in {j["jobName"] for j in listed}
        deleted = _data(
            await session.call_tool("delete_job", {"cluster": NAME, "jobName": "mcp-sft", "confirm": "mcp-sft"})
        )
        assert deleted["deleted"] is True
    sandbox.faults(jobLogIntervalSeconds=10)
