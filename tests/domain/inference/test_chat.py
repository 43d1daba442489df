"""A model server's chat completion in OpenAI's shapes: whole, and as the chunks and events of a stream."""

from __future__ import annotations

import json

from launchpod.domain.inference.chat import chunks_of, completion_of, models_of, server_sent_events

ANSWER = {
    "id": "chatcmpl-abc",
    "created": 1700000000,
    "model": "qwen3",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Hello there, friend"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6},
    "system_fingerprint": "vllm-extra",  # a server's extra fields are dropped, not refused
}


def test_a_completion_keeps_the_server_s_id_model_finish_reason_and_usage():
    completion = completion_of(ANSWER, "fallback")
    assert (completion.id, completion.model, completion.created) == ("chatcmpl-abc", "qwen3", 1700000000)
    assert completion.choices[0].message.content == "Hello there, friend"
    assert completion.choices[0].finish_reason == "stop" and completion.usage.total_tokens == 6


def test_a_server_that_leaves_out_id_and_model_still_answers_openai_s_shape():
    completion = completion_of({"choices": [{"message": {"content": "hi"}}]}, "my-endpoint")
    assert completion.id.startswith("chatcmpl-") and completion.model == "my-endpoint" and completion.created > 0
    assert completion.object == "chat.completion" and completion.usage is None


def test_a_stream_is_role_then_the_content_in_pieces_then_the_finish_reason_then_usage_when_asked():
    chunks = chunks_of(completion_of(ANSWER, "fallback"), include_usage=True)
    assert chunks[0].choices[0].delta.role == "assistant" and chunks[0].choices[0].delta.content == ""
    pieces = [c.choices[0].delta.content for c in chunks[1:-2]]
    assert pieces == ["Hello", " there,", " friend"]
    assert chunks[-2].choices[0].finish_reason == "stop" and chunks[-2].choices[0].delta.content is None
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 3
    assert {c.id for c in chunks} == {"chatcmpl-abc"} and {c.object for c in chunks} == {"chat.completion.chunk"}
    assert all(c.usage is None for c in chunks_of(completion_of(ANSWER, "f"), include_usage=False))


def test_the_events_are_one_data_line_per_chunk_and_end_with_done():
    body = server_sent_events(chunks_of(completion_of(ANSWER, "fallback"), include_usage=False))
    events = body.split("\n\n")
    assert events[-2:] == ["data: [DONE]", ""]
    chunks = [json.loads(e.removeprefix("data: ")) for e in events[:-2]]
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == "Hello there, friend"


def test_the_model_list_is_the_server_s_or_the_one_it_answers_as():
    assert [m.id for m in models_of({"data": [{"id": "qwen3", "object": "model"}]}, "e").data] == ["qwen3"]
    assert [m.id for m in models_of({}, "my-endpoint").data] == ["my-endpoint"]
