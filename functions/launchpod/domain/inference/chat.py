"""OpenAI's chat completion shapes from a model server's answer: the completion as the server gave it (its
id, model, finish reason and usage kept), and the same completion as the chunks of a stream
(https://platform.openai.com/docs/api-reference/chat-streaming): a first chunk with the role, the content
in pieces, a last chunk with the finish reason, and, when asked (``stream_options.include_usage``), a
chunk with no choices and the usage. Pure functions; the API formats them as server-sent events."""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

from launchpod.contracts.chat import (
    AssistantMessage,
    ChatCompletionChoice,
    ChatCompletionChunkView,
    ChatCompletionView,
    ChunkChoice,
    ChunkDelta,
    CompletionUsage,
    OpenAIModelListView,
    OpenAIModelView,
)

_PIECE = re.compile(r"\s*\S+")


def completion_of(answer: dict[str, Any], fallback_model: str) -> ChatCompletionView:
    """The server's chat.completion, with what OpenAI's shape requires filled in when a server leaves it out."""
    choices = [
        ChatCompletionChoice(
            index=int(c.get("index", i)),
            message=AssistantMessage(content=(c.get("message") or {}).get("content")),
            finish_reason=c.get("finish_reason"),
        )
        for i, c in enumerate(answer.get("choices") or [])
    ]
    usage = answer.get("usage")
    return ChatCompletionView(
        id=str(answer.get("id") or f"chatcmpl-{uuid.uuid4().hex[:24]}"),
        created=int(answer.get("created") or time.time()),
        model=str(answer.get("model") or fallback_model),
        choices=choices,
        usage=CompletionUsage.model_validate(usage) if isinstance(usage, dict) else None,
    )


def chunks_of(completion: ChatCompletionView, include_usage: bool) -> list[ChatCompletionChunkView]:
    """The completion as the chunks a stream of it carries, in order."""

    def chunk(choices: list[ChunkChoice], usage: CompletionUsage | None = None) -> ChatCompletionChunkView:
        return ChatCompletionChunkView(
            id=completion.id, created=completion.created, model=completion.model, choices=choices, usage=usage
        )

    out = []
    for choice in completion.choices:
        out.append(chunk([ChunkChoice(index=choice.index, delta=ChunkDelta(role="assistant", content=""))]))
        for piece in _PIECE.findall(choice.message.content or ""):
            out.append(chunk([ChunkChoice(index=choice.index, delta=ChunkDelta(content=piece))]))
        out.append(chunk([ChunkChoice(index=choice.index, delta=ChunkDelta(), finish_reason=choice.finish_reason)]))
    if include_usage:
        out.append(chunk([], completion.usage or CompletionUsage()))
    return out


def server_sent_events(chunks: list[ChatCompletionChunkView]) -> str:
    """The text/event-stream body: one ``data:`` event per chunk, then ``data: [DONE]``
    (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation)."""
    events = [f"data: {c.model_dump_json(exclude_none=True)}\n\n" for c in chunks]
    return "".join(events) + "data: [DONE]\n\n"


def models_of(answer: dict[str, Any], fallback_model: str) -> OpenAIModelListView:
    """The model list the server gave (vLLM and SGLang serve ``GET /v1/models``), or the one it answers as."""
    found = [m for m in answer.get("data") or [] if isinstance(m, dict) and m.get("id")]
    data = [OpenAIModelView(id=str(m["id"]), created=int(m.get("created") or 0)) for m in found]
    return OpenAIModelListView(data=data or [OpenAIModelView(id=fallback_model)])
