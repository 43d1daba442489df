"""Cluster storage over REST: a Mountpoint for S3 volume on the shared bucket or an existing FSx for
Lustre file system, each a PersistentVolume bound to a PersistentVolumeClaim; listing and browsing."""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import Field, field_validator, model_validator

from launchpod.contracts.common import (
    ABSENT,
    ClusterName,
    Contract,
    K8sName,
    case,
    no_dot_segments,
    one_of,
    without_dot_segments,
)
from launchpod.contracts.naming import renamed

# S3 key characters AWS calls safe, in "/"-separated segments; no leading "/", no "." or ".." segment.
# The Field comes before the validator: a pattern placed after one is still checked but left out of the
# JSON schema, so the OpenAPI document (and the web form's checks read from it) would not show it.
S3Prefix = Annotated[
    str,
    Field(
        max_length=512,
        pattern=r"^[A-Za-z0-9!_.*'()=+-]+(/[A-Za-z0-9!_.*'()=+-]+)*/?$",
        description="a key prefix within the shared bucket, such as datasets/imagenet",
        examples=["datasets/imagenet"],
        json_schema_extra={"pattern": without_dot_segments("[A-Za-z0-9!_.*'()=+-]", trailing_slash=True)},
    ),
    no_dot_segments("prefix"),
]
FileSystemId = Annotated[str, Field(pattern=r"^fs-[0-9a-f]{8,21}$", examples=["fs-0123456789abcdef0"])]


class ConfigureStorageRequest(Contract):
    model_config = one_of(
        case(
            "Mountpoint for S3 on the shared bucket (an optional prefix)",
            properties={"kind": {"const": "s3"}, "fileSystemId": ABSENT},
        ),
        case(
            "An existing FSx for Lustre file system (the whole of it)",
            required=["fileSystemId"],
            properties={"kind": {"const": "fsx"}, "fileSystemId": {"type": "string"}, "prefix": ABSENT},
        ),
    )

    kind: Literal["s3", "fsx"] = Field(description="s3: Mountpoint for S3 on the shared bucket; fsx: FSx for Lustre")
    storageName: K8sName = Field(description="the PersistentVolumeClaim's name; also names the PersistentVolume")
    namespace: K8sName = "default"
    prefix: S3Prefix | None = Field(default=None, description="s3 only: mount this prefix, not the whole bucket")
    fileSystemId: FileSystemId | None = Field(default=None, description="fsx only: an existing FSx for Lustre")

    @field_validator("prefix")
    @classmethod
    def _without_trailing_slash(cls, value: str | None) -> str | None:
        return None if value is None else value.rstrip("/")

    @model_validator(mode="after")
    def _fields_fit_the_kind(self) -> Self:
        if self.kind == "s3" and self.fileSystemId is not None:
            raise ValueError("fileSystemId is for kind fsx; an s3 volume takes an optional prefix")
        if self.kind == "fsx" and self.fileSystemId is None:
            raise ValueError("kind fsx needs fileSystemId, the id of an existing FSx for Lustre file system")
        if self.kind == "fsx" and self.prefix is not None:
            raise ValueError("prefix is for kind s3; an FSx volume mounts the whole file system")
        return self


class ConfigureStorageInput(ConfigureStorageRequest):
    name: ClusterName


class StorageRef(Contract):
    name: ClusterName
    storageName: K8sName


class StorageView(Contract):
    storageName: str
    namespace: str
    kind: Literal["s3", "fsx"]
    source: str = Field(description="s3://bucket/prefix/ or the FSx file system's id and DNS name")
    status: str = Field(description="the claim's phase: Bound, Pending, Lost, or Missing when it is gone")


class StorageListView(Contract):
    cluster: ClusterName
    items: list[StorageView]


class DeleteStorageView(Contract):
    cluster: ClusterName
    storageName: str
    deleted: list[str] = Field(description="the objects removed, as Kind/namespace/name")


class BrowseStorageInput(StorageRef):
    prefix: S3Prefix | None = Field(default=None, description="under the storage's own prefix")
    nextToken: str | None = Field(
        default=None, validation_alias=renamed("nextToken", "continuationToken"), max_length=2048
    )


class StorageObjectView(Contract):
    key: str = Field(description="relative to the storage's prefix")
    size: int
    lastModified: str


class StorageObjectListView(Contract):
    storageName: str
    bucket: str
    prefix: str = Field(description="the full key prefix listed")
    objects: list[StorageObjectView] = Field(description="at most 1000")
    prefixes: list[str] = Field(description="sub-folders (common prefixes), relative to the storage's prefix")
    nextToken: str | None = Field(default=None, description="give it as nextToken for the next page")
