"""An inference endpoint through the `openai` Python SDK: OpenAI(base_url=<the endpoint's OpenAI-compatible
path on Launchpod's API>, api_key=<a Launchpod token>) lists the model, gets a completion and streams one
(server-sent events, buffered into one response as the deployed REST API -> Lambda path answers them), and
the SDK raises its typed errors for a viewer (403), a stale token (401) and an unknown endpoint (404). The
existing invoke route takes OpenAI's max_tokens too."""

from __future__ import annotations

import httpx
import openai
import pytest
from openai import OpenAI

from tests.sandbox.inference_support import NAME, WORKER, deploy, post, ready_cluster

pytestmark = pytest.mark.e2e

ENDPOINT = "oai-vllm"
BODY = {"endpoint": ENDPOINT, "kind": "container", "instanceType": "ml.g5.12xlarge", "container": {"worker": WORKER}}
ASK = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello from the openai sdk"}]


def _base(sandbox, endpoint: str = ENDPOINT) -> str:
    return f"{sandbox.url}/api/clusters/{NAME}/endpoints/{endpoint}/openai/v1"


def _client(sandbox, role: str = "operator", endpoint: str = ENDPOINT, token: str | None = None) -> OpenAI:
    return OpenAI(base_url=_base(sandbox, endpoint), api_key=token or sandbox.tokens[role], max_retries=0, timeout=60)


@pytest.fixture(scope="module")
def endpoint(sandbox):
    ready_cluster(sandbox)
    done = deploy(sandbox, BODY)
    assert done["status"] == "SUCCEEDED", (done.get("message"), done["phases"])
    yield ENDPOINT
    with sandbox.client("operator") as c:
        deleted = c.delete(f"/api/clusters/{NAME}/endpoints/{ENDPOINT}")
    assert deleted.status_code == 202, deleted.text
    assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"


def test_the_openai_sdk_lists_the_model_and_gets_a_completion_with_a_launchpod_token(sandbox, endpoint):
    client = _client(sandbox)
    assert [m.id for m in client.models.list()] == ["qwen3"]
    completion = client.chat.completions.create(
        model="qwen3", messages=ASK, max_tokens=4, temperature=0.2, user="someone", metadata={"team": "a"}
    )
    assert completion.object == "chat.completion" and completion.model == "qwen3"
    assert completion.id.startswith("chatcmpl-") and completion.created > 0
    (choice,) = completion.choices
    assert choice.message.role == "assistant" and choice.message.content == "[qwen3] You said: hello"
    assert choice.finish_reason == "length"  # the answer is longer than the 4 tokens asked for
    assert completion.usage is not None and completion.usage.completion_tokens == 4
    longer = client.chat.completions.create(model="qwen3", messages=ASK, max_completion_tokens=64)
    assert longer.choices[0].message.content == "[qwen3] You said: hello from the openai sdk"
    assert longer.choices[0].finish_reason == "stop"


def test_the_openai_sdk_streams_a_completion_as_server_sent_events(sandbox, endpoint):
    client = _client(sandbox)
    stream = client.chat.completions.create(
        model="qwen3", messages=ASK, max_tokens=64, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    assert deltas[0].role == "assistant"
    pieces = [d.content for d in deltas if d.content]
    assert len(pieces) > 1 and "".join(pieces) == "[qwen3] You said: hello from the openai sdk"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert {c.object for c in chunks} == {"chat.completion.chunk"} and len({c.id for c in chunks}) == 1
    assert chunks[-1].choices == [] and chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 8

    # on the wire: text/event-stream, one data: event per chunk, ending data: [DONE]
    raw = httpx.post(
        f"{_base(sandbox)}/chat/completions",
        json={"model": "qwen3", "messages": ASK, "stream": True},
        headers=sandbox.headers("operator"),
        timeout=60,
    )
    assert raw.status_code == 200 and raw.headers["content-type"].startswith("text/event-stream")
    events = raw.text.split("\n\n")
    assert events[-2:] == ["data: [DONE]", ""] and all(e.startswith("data: {") for e in events[:-2])


def test_the_openai_sdk_raises_its_typed_errors_with_launchpod_s_words(sandbox, endpoint):
    with pytest.raises(openai.PermissionDeniedError) as denied:
        _client(sandbox, "viewer").chat.completions.create(model="qwen3", messages=ASK)
    assert denied.value.status_code == 403 and "needs the operator role" in denied.value.message
    assert denied.value.type == "permission_error" and denied.value.code == "forbidden"
    # a viewer may read the model list, as it may read the endpoint
    assert [m.id for m in _client(sandbox, "viewer").models.list()] == ["qwen3"]

    with pytest.raises(openai.AuthenticationError) as stale:
        _client(sandbox, token="lp-operator-" + "x" * 32).chat.completions.create(model="qwen3", messages=ASK)
    assert stale.value.status_code == 401

    with pytest.raises(openai.NotFoundError) as missing:
        _client(sandbox, endpoint="no-such-endpoint").chat.completions.create(model="qwen3", messages=ASK)
    assert missing.value.status_code == 404 and "no-such-endpoint" in missing.value.message
    assert missing.value.type == "not_found_error"

    with pytest.raises(openai.UnprocessableEntityError) as invalid:
        _client(sandbox).chat.completions.create(model="qwen3", messages=ASK, max_tokens=0)
    assert invalid.value.param == "body.max_tokens", invalid.value.body


def test_invoke_takes_openai_s_max_tokens_and_still_the_older_max_tokens(sandbox, endpoint):
    ask = {"messages": [{"role": "user", "content": "one two three four five"}]}
    new = post(sandbox, f"/endpoints/{ENDPOINT}/invoke", {**ask, "max_tokens": 3})
    old = post(sandbox, f"/endpoints/{ENDPOINT}/invoke", {**ask, "maxTokens": 3})
    assert new.status_code == old.status_code == 200, (new.text, old.text)
    assert new.json()["content"] == old.json()["content"] == "[qwen3] You said:"
    both = post(sandbox, f"/endpoints/{ENDPOINT}/invoke", {**ask, "max_tokens": 3, "maxTokens": 4})
    assert both.status_code == 422 and "not both" in both.json()["message"], both.text
