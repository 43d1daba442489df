"""The shared bucket in memory: the ObjectPages and S3Objects.list_keys ports (adapters.aws.s3)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


class S3:
    """Objects' sizes by bucket and key. ``list_page`` (also the object's call) answers one ListObjectsV2 page with
    '/' as delimiter; ``list_keys`` every key under a prefix. ``asked`` is (bucket, prefix, token) of each page,
    ``listed`` (bucket, prefix) of each key listing."""

    def __init__(self, buckets: dict[str, dict[str, int]] | None = None) -> None:
        self.buckets = buckets if buckets is not None else {}
        self.asked: list[tuple[str, str, str | None]] = []
        self.listed: list[tuple[str, str]] = []

    def list_page(self, bucket: str, prefix: str, token: str | None, max_keys: int = 1000) -> dict[str, Any]:
        self.asked.append((bucket, prefix, token))
        keys = self.buckets.get(bucket, {})
        under = sorted(k for k in keys if k.startswith(prefix))
        contents = [k for k in under if "/" not in k[len(prefix) :]]
        prefixes = sorted({prefix + k[len(prefix) :].split("/")[0] + "/" for k in under if "/" in k[len(prefix) :]})
        when = datetime(2026, 1, 1, tzinfo=UTC)
        return {
            "Contents": [{"Key": k, "Size": keys[k], "LastModified": when} for k in contents],
            "CommonPrefixes": [{"Prefix": p} for p in prefixes],
        }

    def __call__(self, bucket: str, prefix: str, token: str | None) -> dict[str, Any]:
        return self.list_page(bucket, prefix, token)

    def list_keys(self, bucket: str, prefix: str, limit: int = 10_000) -> tuple[list[dict[str, Any]], bool]:
        self.listed.append((bucket, prefix))
        keys = self.buckets.get(bucket, {})
        found = [{"Key": k, "Size": keys[k]} for k in sorted(keys) if k.startswith(prefix)]
        return found[:limit], len(found) >= limit  # as the adapter: reaching the limit counts as more
