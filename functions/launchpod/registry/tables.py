"""The DynamoDB tables Launchpod deploys."""

from __future__ import annotations

from launchpod.registry.specs import StreamSourceSpec, TableSpec

TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        "operations",
        "id",
        indexes=(
            ("by-target", "target", "createdAt"),
            ("by-status", "status", "createdAt"),
            ("by-created", "feed", "createdAt"),  # every operation, newest first (adapters/store/operations.py)
        ),
        stream="NEW_IMAGE",  # the operations stream pushes each operation as it now is
    ),
    TableSpec("clusters", "name", indexes=(("by-name", "registry", "name"),)),  # registered clusters only
    # which attempt's invocation runs each phase, "<operation id>#<phase>" (adapters/store/operations.py): off
    # the operations table, whose stream would push every hold and let-go to the subscribers as no news
    TableSpec("runners", "id", ttl_attribute="expiresAt"),
    TableSpec("connections", "pk", "sk", ttl_attribute="expiresAt"),
    TableSpec("idempotency", "id", ttl_attribute="expiration"),
    TableSpec("preferences", "subject"),
    TableSpec("incidents", "cluster"),  # per-cluster incidents and ladder policy
    # subscribers per cluster ("cluster#<name>") and the keys of notifications sent ("sent#<key>")
    TableSpec("notifications", "pk", ttl_attribute="expiresAt"),
)

# The operations table's changes, pushed to WebSocket subscribers (entrypoints/stream/operations_stream.py):
# a second's batch of a busy operation's writes is one invocation; progress older than an hour is no news.
STREAM_SOURCES: tuple[StreamSourceSpec, ...] = (
    StreamSourceSpec(
        "operations",
        "operations-stream",
        batch_size=50,
        batching_window_seconds=1,
        retry_attempts=3,
        max_record_age_seconds=3600,
    ),
)
