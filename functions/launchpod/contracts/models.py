"""Models over REST: a Hugging Face model (or dataset) downloaded by a CPU Kubernetes Job into an S3
storage of the cluster under models/, and the models present in storage. Only a repository id and a
revision name the source, never a URL; the token goes to a Kubernetes Secret and is never echoed."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, SecretStr, field_validator

from launchpod.contracts.common import ClusterName, Contract, K8sName
from launchpod.contracts.naming import renamed


def _repo_id(value: str) -> str:
    """Hugging Face's repo id rules (huggingface_hub.utils.validate_repo_id): one optional namespace and a
    name, each of letters, digits, '-', '_' and '.', not starting or ending with '-' or '.', no '--' or
    '..', at most 96 characters; so no scheme, host, port or path can hide in it."""
    parts = value.split("/")
    if len(parts) > 2 or not all(parts):
        raise ValueError("a repo id is 'name' or 'namespace/name' (no URL, no further '/')")
    for part in parts:
        if "--" in part or ".." in part:
            raise ValueError("'--' and '..' are not allowed in a repo id")
        if part[0] in "-." or part[-1] in "-.":
            raise ValueError("a repo id part must not start or end with '-' or '.'")
    return value


# The same rules as one pattern, for the document: each part is runs of letters, digits and '_' joined by
# '-' and '.' that alternate (so no '--' or '..'), which also keeps '-' and '.' off both ends. The validator
# keeps its own checks for their clearer messages; tests/contracts/test_schema_rules.py holds the two equal.
_REPO_PART = r"[A-Za-z0-9_]+((-(\.-)*\.?|\.(-\.)*-?)[A-Za-z0-9_]+)*"
REPO_ID_PATTERN = rf"^{_REPO_PART}(/{_REPO_PART})?$"
RepoId = Annotated[
    str,
    AfterValidator(_repo_id),
    Field(
        max_length=96,
        pattern=r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)?$",
        examples=["Qwen/Qwen3-0.6B"],
        json_schema_extra={"pattern": REPO_ID_PATTERN},
    ),
]


def _revision(value: str) -> str:
    if ".." in value or value.startswith("/") or value.endswith("/"):
        raise ValueError("a revision is a branch, tag or commit: no '..', no leading or trailing '/'")
    return value


# The same rules as one pattern, for the document: a dot is never followed by another and the last character
# is not '/'.
REVISION_PATTERN = r"^[A-Za-z0-9]((\.?[A-Za-z0-9_/-])*(\.?[A-Za-z0-9_-]|\.))?$"
Revision = Annotated[
    str,
    AfterValidator(_revision),
    Field(
        max_length=128,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]*$",
        examples=["main", "v1.0"],
        json_schema_extra={"pattern": REVISION_PATTERN},
    ),
]
HF_TOKEN_PATTERN = r"^[A-Za-z0-9_-]{8,256}$"


class DownloadModelRequest(Contract):
    repoId: RepoId
    revision: Revision = "main"
    repoType: Literal["model", "dataset"] = "model"
    storageName: K8sName = Field(
        description="an S3 storage of the cluster; the files land under models/<repoId>/",
        validation_alias=renamed("storageName", "storage"),
    )
    hfToken: SecretStr | None = Field(
        default=None,
        description="a Hugging Face token for gated or private repositories; kept in a Secret only",
        json_schema_extra={"pattern": HF_TOKEN_PATTERN},
    )

    @field_validator("hfToken")
    @classmethod
    def _token_shape(cls, value: SecretStr | None) -> SecretStr | None:
        text = value.get_secret_value() if value is not None else None
        if text is not None and not re.fullmatch(HF_TOKEN_PATTERN, text):
            raise ValueError("hfToken must be 8-256 letters, digits, '_' or '-'")
        return value


class DownloadModelInput(DownloadModelRequest):
    name: ClusterName


class ModelDownloadWorkflowRequest(Contract):
    """What the model-download workflow records: no token, only the Secret's name."""

    name: ClusterName
    repoId: RepoId
    revision: Revision
    repoType: Literal["model", "dataset"]
    storage: K8sName
    namespace: K8sName
    job: K8sName
    tokenSecret: K8sName | None = None
    path: str = Field(description="where the files land: s3://bucket/prefix/models/<repoId>/")


class ModelView(Contract):
    repoId: str
    storageName: str
    path: str = Field(description="s3://bucket/key-prefix/ of the model's folder")
    files: int
    sizeBytes: int


class ModelListView(Contract):
    cluster: ClusterName
    items: list[ModelView]
    truncated: bool = Field(default=False, description="more objects than Launchpod lists in one call")
