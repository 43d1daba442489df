"""S3: the shared bucket (lifecycle scripts now; models, datasets and checkpoints later)."""

from __future__ import annotations

from typing import Any

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call
from launchpod.domain.storage import ObjectPage, StoredObject


def put_text(bucket: str, key: str, text: str) -> None:
    with aws_call(f"s3:PutObject s3://{bucket}/{key}"):
        client("s3").put_object(Bucket=bucket, Key=key, Body=text.encode(), ServerSideEncryption="AES256")


def delete_prefix(bucket: str, prefix: str) -> int:
    s3, deleted = client("s3"), 0
    with aws_call(f"s3:DeleteObject s3://{bucket}/{prefix}"):
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            keys = [{"Key": o["Key"]} for o in page.get("Contents", [])]
            if keys:
                s3.delete_objects(Bucket=bucket, Delete={"Objects": keys, "Quiet": True})
                deleted += len(keys)
    return deleted


def list_page(bucket: str, prefix: str, token: str | None, max_keys: int = 1000) -> ObjectPage:
    """One ListObjectsV2 page under a prefix with "/" as delimiter: objects, common prefixes, next token."""
    extra = {"ContinuationToken": token} if token else {}
    with aws_call(f"s3:ListBucket s3://{bucket}/{prefix}"):
        answer = client("s3").list_objects_v2(Bucket=bucket, Prefix=prefix, Delimiter="/", MaxKeys=max_keys, **extra)
    return ObjectPage(
        objects=tuple(StoredObject(o["Key"], o["Size"], o["LastModified"]) for o in answer.get("Contents", [])),
        prefixes=tuple(p["Prefix"] for p in answer.get("CommonPrefixes", [])),
        next_token=answer.get("NextContinuationToken"),
    )


def list_keys(bucket: str, prefix: str, limit: int = 10_000) -> tuple[list[dict[str, Any]], bool]:
    """Every object under a prefix (Key, Size), at most ``limit``; True when there were more."""
    found: list[dict[str, Any]] = []
    with aws_call(f"s3:ListBucket s3://{bucket}/{prefix}"):
        for page in client("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            found += [{"Key": o["Key"], "Size": o.get("Size", 0)} for o in page.get("Contents", [])]
            if len(found) >= limit:
                return found[:limit], True
    return found, False
