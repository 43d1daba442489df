"""The shared bucket in memory: the S3Objects port (runtime.wiring; adapters.aws.s3) and the ObjectPages port
(its list_page, called).

Held to the adapter on the sandbox's S3 by tests/ports/test_s3_objects.py."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from launchpod.domain.errors import NotFound
from launchpod.domain.storage import ObjectPage, StoredObject


class S3:
    """Objects' sizes by bucket and key (a bucket not given does not exist: NoSuchBucket, a NotFound).
    ``asked`` is (bucket, prefix, token) of each page listed, ``listed`` (bucket, prefix) of each key listing."""

    def __init__(self, buckets: dict[str, dict[str, int]] | None = None) -> None:
        self.buckets = buckets if buckets is not None else {}
        self.asked: list[tuple[str, str, str | None]] = []
        self.listed: list[tuple[str, str]] = []

    def _bucket(self, bucket: str, action: str) -> dict[str, int]:
        if bucket not in self.buckets:
            raise NotFound(
                f"{action} failed: NoSuchBucket: The specified bucket does not exist", aws_code="NoSuchBucket"
            )
        return self.buckets[bucket]

    def put_text(self, bucket: str, key: str, text: str) -> None:
        self._bucket(bucket, f"s3:PutObject s3://{bucket}/{key}")[key] = len(text.encode())

    def delete_prefix(self, bucket: str, prefix: str) -> int:
        keys = self._bucket(bucket, f"s3:DeleteObject s3://{bucket}/{prefix}")
        gone = [k for k in keys if k.startswith(prefix)]
        for key in gone:
            del keys[key]
        return len(gone)

    def list_page(self, bucket: str, prefix: str, token: str | None, max_keys: int = 1000) -> ObjectPage:
        """One ListObjectsV2 page with '/' as delimiter: keys and common prefixes in UTF-8 order, ``max_keys`` of
        them together, and a token to the rest when there is more, as S3 answers
        (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html)."""
        self.asked.append((bucket, prefix, token))
        keys = self._bucket(bucket, f"s3:ListBucket s3://{bucket}/{prefix}")
        entries: set[tuple[str, bool]] = set()
        for key in (k for k in keys if k.startswith(prefix)):
            rest = key[len(prefix) :]
            entries.add((prefix + rest.split("/")[0] + "/", True) if "/" in rest else (key, False))
        ordered = sorted(entries)
        start = int(token) if token else 0
        page, more = ordered[start : start + max_keys], len(ordered) > start + max_keys
        when = datetime(2026, 1, 1, tzinfo=UTC)
        return ObjectPage(
            objects=tuple(StoredObject(k, keys[k], when) for k, folder in page if not folder),
            prefixes=tuple(p for p, folder in page if folder),
            next_token=str(start + max_keys) if more else None,
        )

    def __call__(self, bucket: str, prefix: str, token: str | None) -> ObjectPage:
        return self.list_page(bucket, prefix, token)

    def list_keys(self, bucket: str, prefix: str, limit: int = 10_000) -> tuple[list[dict[str, Any]], bool]:
        self.listed.append((bucket, prefix))
        keys = self._bucket(bucket, f"s3:ListBucket s3://{bucket}/{prefix}")
        found = [{"Key": k, "Size": keys[k]} for k in sorted(keys) if k.startswith(prefix)]
        return found[:limit], len(found) >= limit  # as the adapter: reaching the limit counts as more
