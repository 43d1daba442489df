"""The OpenAI-compatible face of an inference endpoint: the chat completions request, its answer (whole or
as server-sent chunks), the model list and the error body, under OpenAI's own field names
(https://platform.openai.com/docs/api-reference/chat), so an OpenAI SDK given
``base_url=<api>/clusters/{name}/endpoints/{endpoint}/openai/v1`` works as it does against OpenAI.

Unlike every other request, fields Launchpod does not know are ignored rather than refused: OpenAI clients
send many (``user``, ``metadata``, ``parallel_tool_calls`` ...). None of them can name an address: the
request always goes to the endpoint's own Service."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from launchpod.contracts.common import OPENAI_PATH as OPENAI_PATH
from launchpod.contracts.common import ClusterName, refused
from launchpod.contracts.common import openai_compatible as openai_compatible
from launchpod.contracts.errors import ErrorView
from launchpod.contracts.inference import EndpointName


class OpenAIContract(BaseModel):
    """OpenAI's snake_case names; unknown fields ignored (OpenAI clients send fields Launchpod has no use for)."""

    model_config = ConfigDict(extra="ignore", defer_build=True)


class TextPart(OpenAIContract):
    type: Literal["text"]
    text: str = Field(max_length=32_000)


class ChatCompletionMessage(OpenAIContract):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: Annotated[str, Field(max_length=32_000)] | list[TextPart] | None = None
    name: str | None = Field(default=None, max_length=256)

    def text(self) -> str:
        if isinstance(self.content, list):
            return "".join(p.text for p in self.content)
        return self.content or ""


class StreamOptions(OpenAIContract):
    include_usage: bool = False


class ChatCompletionRequest(OpenAIContract):
    """POST chat/completions as OpenAI defines it. ``model`` is accepted as OpenAI SDKs require it; the
    endpoint's own model answers (``GET models`` names it)."""

    model: str | None = Field(default=None, max_length=256, description="ignored: the endpoint's model answers")
    messages: list[ChatCompletionMessage] = Field(min_length=1, max_length=64)
    max_completion_tokens: int | None = Field(default=None, ge=1, le=4096)
    max_tokens: int | None = Field(
        default=None,
        ge=1,
        le=4096,
        description="OpenAI's older name of max_completion_tokens; either one, 256 when neither is sent",
    )
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    n: int = Field(default=1, ge=1, le=1, description="one choice per request")
    stop: str | Annotated[list[str], Field(max_length=4)] | None = Field(default=None, description="at most 4")
    seed: int | None = None
    presence_penalty: float | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2)
    stream: bool = Field(default=False, description="answer as server-sent events (text/event-stream)")
    stream_options: StreamOptions | None = None

    @model_validator(mode="after")
    def _one_limit(self) -> ChatCompletionRequest:
        both = self.max_tokens is not None and self.max_completion_tokens is not None
        if both and self.max_tokens != self.max_completion_tokens:
            raise refused("same_limit", "send max_completion_tokens or max_tokens, not both with different values")
        return self

    @property
    def limit(self) -> int:
        return self.max_completion_tokens or self.max_tokens or 256

    def sampling(self) -> dict[str, Any]:
        """The fields passed on to the model server (vLLM and SGLang take OpenAI's names)."""
        keys = ("temperature", "top_p", "stop", "seed", "presence_penalty", "frequency_penalty")
        return {k: getattr(self, k) for k in keys if getattr(self, k) is not None}


class ChatCompletionInput(ChatCompletionRequest):
    """The catalog's input: the cluster and endpoint in the path, the rest in the body."""

    name: ClusterName
    endpoint: EndpointName


class AssistantMessage(OpenAIContract):
    role: Literal["assistant"] = "assistant"
    content: str | None = None


class CompletionUsage(OpenAIContract):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class ChatCompletionChoice(OpenAIContract):
    index: int = 0
    message: AssistantMessage
    finish_reason: str | None = None


class ChatCompletionView(OpenAIContract):
    """OpenAI's chat.completion object."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[ChatCompletionChoice]
    usage: CompletionUsage | None = None


class ChunkDelta(OpenAIContract):
    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(OpenAIContract):
    index: int = 0
    delta: ChunkDelta
    finish_reason: str | None = None


class ChatCompletionChunkView(OpenAIContract):
    """One server-sent event of a streamed answer (OpenAI's chat.completion.chunk); the stream ends with
    ``data: [DONE]``."""

    id: str
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: CompletionUsage | None = None


class OpenAIModelView(OpenAIContract):
    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "launchpod"


class OpenAIModelListView(OpenAIContract):
    """OpenAI's model list: the one model the endpoint serves."""

    object: Literal["list"] = "list"
    data: list[OpenAIModelView]


class OpenAIError(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class OpenAIErrorView(ErrorView):
    """Launchpod's error envelope with OpenAI's ``error`` object beside it, so an OpenAI SDK raises its typed
    error (AuthenticationError, PermissionDeniedError, NotFoundError ...) with Launchpod's message."""

    error: OpenAIError


# OpenAI's error types by status (https://platform.openai.com/docs/guides/error-codes).
_TYPES = {401: "authentication_error", 403: "permission_error", 404: "not_found_error", 429: "rate_limit_error"}


def openai_error(status: int, view: ErrorView) -> OpenAIErrorView:
    kind = _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    param = next((d.field for d in view.details if d.field), None)
    error = OpenAIError(message=view.message, type=kind, param=param, code=str(view.code).lower())
    return OpenAIErrorView(**view.model_dump(), error=error)
