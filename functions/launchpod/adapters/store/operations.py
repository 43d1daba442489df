"""The operations table and the cluster locks: the OperationStore port on DynamoDB.

Phase updates address one list element (``phases[3]``) so concurrent writers never overwrite
each other's phases, and every write is conditional on the operation still being live.
"""

from __future__ import annotations

import builtins
import json
import time
from collections.abc import Sequence
from datetime import datetime
from functools import partial
from typing import Any

from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client, resource
from launchpod.adapters.aws.errors import aws_call, error_code
from launchpod.adapters.store.dynamo import (
    conditional,
    conditional_or_old,
    decode_cursor,
    encode_cursor,
    item_to_attrs,
    plain,
    query_page,
    to_attr,
)
from launchpod.contracts.operations import OperationStatus, OperationView, PhaseStatus
from launchpod.domain.errors import Conflict, NotFound, RetryableError
from launchpod.domain.operations import ended_phases, now

_VIEW_FIELDS = set(OperationView.model_fields)
# One partition holding every operation, sorted by createdAt (the registry's by-created index): the
# unfiltered listing is a Query, never a Scan. Launchpod writes a few operations a minute, far below a
# partition's write limit.
FEED_ATTRIBUTE, FEED = "feed", "operations"
LOCK_ATTEMPTS = 6
RELEASE_WAIT = 0.05  # seconds, growing per attempt: ~0.75 s in all for an ended holder's release
# The statuses an operation ends in: a write conditioned on none of them takes no effect on an ended one.
_ENDED_VALUES = {f":end{i}": s.value for i, s in enumerate(OperationStatus) if s.terminal}
_NOT_ENDED = f"attribute_exists(id) AND NOT #s IN ({', '.join(_ENDED_VALUES)})"  # #s names status
# A listing reads only what its views show (and the index keys its cursor continues after): the
# phases' outputs and the request key stay in the table. ProjectionExpression
# does not lower the read's capacity units, but what DynamoDB sends and the function parses shrinks
# ("Projection expressions", Amazon DynamoDB developer guide).
_LISTED = {f"#p{i}": name for i, name in enumerate(sorted(_VIEW_FIELDS | {"request", FEED_ATTRIBUTE}))}


def _iso(value: datetime | None = None) -> str:
    return (value or now()).isoformat()


class DynamoOperations:
    def __init__(self, operations_table: str, clusters_table: str, runners_table: str) -> None:
        self.table = resource("dynamodb").Table(operations_table)
        self.runners = resource("dynamodb").Table(runners_table)
        self.ddb = client("dynamodb")
        self.operations_table = operations_table
        self.clusters_table = clusters_table

    # ------------------------------------------------------------------ reads
    def _item(self, operation_id: str) -> dict[str, Any]:
        with aws_call("dynamodb:GetItem"):
            item = self.table.get_item(Key={"id": operation_id}, ConsistentRead=True).get("Item")
        if not item:
            raise NotFound(f"Operation {operation_id} does not exist.")
        return dict(plain(item))

    @staticmethod
    def view_of(item: dict[str, Any]) -> OperationView:
        data = {k: v for k, v in item.items() if k in _VIEW_FIELDS}
        data["request"] = json.loads(item.get("request") or "{}")
        return OperationView.model_validate(data)

    def get(self, operation_id: str) -> OperationView:
        return self.view_of(self._item(operation_id))

    def outputs(self, operation_id: str) -> dict[str, dict[str, Any]]:
        raw = self._item(operation_id).get("outputs") or {}
        return {k: json.loads(v) for k, v in raw.items()}

    def request_key_of(self, operation_id: str) -> str | None:
        return self._item(operation_id).get("requestKey")

    def execution_of(self, operation_id: str) -> str | None:
        return self._item(operation_id).get("executionArn")

    def list(self, *, target: str | None, status: str | None, limit: int) -> list[OperationView]:
        return self.page(target=target, status=status, limit=limit)[0]

    def page(
        self, *, target: str | None, status: str | None, limit: int, cursor: str | None = None
    ) -> tuple[builtins.list[OperationView], str | None]:
        """Newest first, by Query on the index that fits the filters; the cursor continues a listing."""
        scope = [target, status]
        if target:
            index, partition = "by-target", ("target", target)
        elif status:
            index, partition = "by-status", ("status", status)
        else:
            index, partition = "by-created", (FEED_ATTRIBUTE, FEED)
        query: dict[str, Any] = {
            "IndexName": index,
            "KeyConditionExpression": Key(partition[0]).eq(partition[1]),
            "ScanIndexForward": False,
            "ProjectionExpression": ", ".join(_LISTED),
            "ExpressionAttributeNames": dict(_LISTED),
        }
        if target and status:
            query["FilterExpression"] = Attr("status").eq(status)
        with aws_call("dynamodb:Query"):
            items, last = query_page(
                self.table, query, ("id", partition[0], "createdAt"), limit, decode_cursor(cursor, scope)
            )
        views = [self.view_of(dict(plain(i))) for i in items]
        return views, encode_cursor(last, scope) if last else None

    # ------------------------------------------------------------------ creation and locks
    def create_holding_cluster(self, operation: OperationView, request_key: str) -> None:
        item = operation.model_dump(mode="json", exclude={"request"})
        item.update(request=json.dumps(operation.request), requestKey=request_key, outputs={})
        item[FEED_ATTRIBUTE] = FEED  # the by-created index lists every operation newest first
        # The lock may be released between a refused write and the read of its holder: then nobody holds
        # the cluster, and the write is tried again rather than refused naming no holder. A holder that has
        # already ended is being released (``finish`` writes the end, then removes the lock): the write waits
        # for that rather than answering "busy with" an operation that is over.
        # The operation is recorded when its write succeeds: a retried write says so in createdAt.
        for attempt in range(LOCK_ATTEMPTS - 1):
            try:
                self._create_holding(operation, item)
                return
            except Conflict as busy:
                holder = busy.extra.get("holder")
                if holder and not self._ended(holder):
                    raise
                if holder:
                    time.sleep(RELEASE_WAIT * (attempt + 1))
            item["createdAt"] = item["updatedAt"] = _iso().replace("+00:00", "Z")  # as model_dump writes it
        self._create_holding(operation, item)

    def _ended(self, operation_id: str) -> bool:
        try:
            return OperationStatus(self.get(operation_id).status).terminal
        except NotFound:
            return False

    def _create_holding(self, operation: OperationView, item: dict[str, Any]) -> None:
        put = {
            "TableName": self.operations_table,
            "Item": item_to_attrs(item),
            "ConditionExpression": "attribute_not_exists(id)",
        }
        try:
            self._write_locking({"Put": put}, operation)
        except RetryableError:
            raise
        except Exception as exc:
            cause = exc.__cause__
            if isinstance(cause, ClientError) and error_code(cause) == "TransactionCanceledException":
                holder = self.holder(operation.target)
                busy = (
                    f"Cluster {operation.target} is busy with operation {holder}; wait for it to finish or cancel it."
                    if holder
                    else f"Cluster {operation.target} was busy and has just been released; send the request again."
                )
                raise Conflict(busy, holder=holder) from exc
            raise

    def _write_locking(self, write: dict[str, Any], operation: OperationView) -> None:
        """``write`` (a Put or an Update of the operations table) and the lock of the operation's cluster for it, in
        one transaction: both happen, or neither when another operation holds the lock."""
        with aws_call("dynamodb:TransactWriteItems"):
            self.ddb.transact_write_items(TransactItems=[write, self._lock(operation.target, operation.id)])

    def _lock(self, cluster: str, operation_id: str) -> dict[str, Any]:
        return {
            "Update": {
                "TableName": self.clusters_table,
                "Key": {"name": to_attr(cluster)},
                "UpdateExpression": "SET lockedBy = :op, lockedAt = :at, lastOperationId = :op",
                "ConditionExpression": "attribute_not_exists(lockedBy) OR lockedBy = :op",
                "ExpressionAttributeValues": {":op": to_attr(operation_id), ":at": to_attr(_iso())},
            }
        }

    def holder(self, cluster: str) -> str | None:
        with aws_call("dynamodb:GetItem"):
            item = self.ddb.get_item(TableName=self.clusters_table, Key={"name": to_attr(cluster)}, ConsistentRead=True)
        holder = item.get("Item", {}).get("lockedBy", {}).get("S")
        return str(holder) if holder is not None else None

    def set_execution(self, operation_id: str, execution_arn: str) -> bool:
        """Record the execution that will run the operation; False when it has ended first (a cancel)."""
        return self._update_if(
            operation_id,
            UpdateExpression="SET executionArn = :arn, updatedAt = :at",
            ConditionExpression=_NOT_ENDED,
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":arn": execution_arn, ":at": _iso(), **_ENDED_VALUES},
        )

    def restart(self, operation: OperationView) -> None:
        phases = [p.model_dump(mode="json") for p in operation.phases]
        update = {
            "TableName": self.operations_table,
            "Key": {"id": to_attr(operation.id)},
            "UpdateExpression": "SET #s = :s, phases = :p, attempt = :a, updatedAt = :at REMOVE #e, #m",
            "ExpressionAttributeNames": {"#s": "status", "#e": "error", "#m": "message"},
            "ExpressionAttributeValues": {
                ":s": to_attr(OperationStatus.PENDING.value),
                ":p": to_attr(phases),
                ":a": to_attr(operation.attempt),
                ":at": to_attr(_iso()),
            },
        }
        try:
            self._write_locking({"Update": update}, operation)
        except RetryableError:
            raise
        except Exception as exc:
            holder = self.holder(operation.target)
            raise Conflict(
                f"Cluster {operation.target} is busy with operation {holder}; retry when it has finished.",
                holder=holder,
            ) from exc

    # ------------------------------------------------------------------ phases
    def _phase_index(self, operation_id: str, phase: str, known: Sequence[str] | None = None) -> int:
        """Where ``phase`` sits in the operation's list; ``known`` is that list as the caller last
        read it (the order never changes), which saves reading the operation again."""
        names = list(known) if known is not None else [p.name for p in self.get(operation_id).phases]
        if phase not in names:
            raise NotFound(f"Operation {operation_id} has no phase {phase}.")
        return names.index(phase)

    def _update_phase(
        self,
        operation_id: str,
        phase: str,
        sets: dict[str, Any],
        *,
        op_status: str | None,
        add_attempt: bool = False,
        remove: tuple[str, ...] = (),
        known: Sequence[str] | None = None,
        extra_sets: dict[str, tuple[str, Any]] | None = None,
    ) -> None:
        index = self._phase_index(operation_id, phase, known)
        names = {"#s": "status"}
        values: dict[str, Any] = {":at": _iso(), **_ENDED_VALUES}
        parts = ["updatedAt = :at"]
        for i, (key, value) in enumerate(sets.items()):
            names[f"#k{i}"] = key
            values[f":v{i}"] = value
            parts.append(f"phases[{index}].#k{i} = :v{i}")
        if op_status:
            values[":os"] = op_status
            parts.append("#s = :os")
        for i, (path, (name, value)) in enumerate((extra_sets or {}).items()):
            names[f"#x{i}"] = name
            values[f":x{i}"] = value
            parts.append(f"{path.format(name=f'#x{i}')} = :x{i}")
        expression = "SET " + ", ".join(parts)
        if add_attempt:
            names["#att"] = "attempts"
            values[":one"] = 1
            expression += f" ADD phases[{index}].#att :one"
        if remove:
            for j, key in enumerate(remove):
                names[f"#r{j}"] = key
            expression += " REMOVE " + ", ".join(f"phases[{index}].#r{j}" for j in range(len(remove)))
        written = self._update_if(
            operation_id,
            UpdateExpression=expression,
            # An ended operation takes no more phase news: a step still running in a branch that
            # Step Functions has stopped must not turn a FAILED operation back to RUNNING.
            ConditionExpression=_NOT_ENDED,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )
        if not written:
            raise Conflict(f"Operation {operation_id} was cancelled or has finished.", holder=operation_id)

    def phase_started(self, operation_id: str, phase: str, *, fresh: bool, known: Sequence[str] | None = None) -> None:
        sets: dict[str, Any] = {"status": PhaseStatus.RUNNING.value}
        if fresh:
            sets["startedAt"] = _iso()
        self._update_phase(
            operation_id,
            phase,
            sets,
            op_status=OperationStatus.RUNNING.value,
            add_attempt=fresh,
            remove=("endedAt",) if fresh else (),
            known=known,
        )

    def phase_progress(
        self, operation_id: str, phase: str, message: str, *, known: Sequence[str] | None = None
    ) -> None:
        self._update_phase(operation_id, phase, {"message": message}, op_status=None, known=known)

    def phase_succeeded(
        self,
        operation_id: str,
        phase: str,
        message: str | None,
        outputs: dict[str, Any],
        *,
        status: PhaseStatus = PhaseStatus.SUCCEEDED,
        known: Sequence[str] | None = None,
    ) -> None:
        """The phase's end and its outputs, in one write."""
        self._update_phase(
            operation_id,
            phase,
            {"status": status.value, "endedAt": _iso(), "message": message},
            op_status=None,
            remove=("error",),
            known=known,
            extra_sets={"outputs.{name}": (phase, json.dumps(outputs, default=str))},
        )

    def phase_failed(
        self,
        operation_id: str,
        phase: str,
        *,
        error: str,
        message: str,
        terminal: bool,
        known: Sequence[str] | None = None,
    ) -> None:
        sets: dict[str, Any] = {"error": error, "message": message}
        if terminal:
            sets.update(status=PhaseStatus.FAILED.value, endedAt=_iso())
        self._update_phase(operation_id, phase, sets, op_status=None, known=known)

    def _update_if(self, operation_id: str, **update: Any) -> bool:
        """UpdateItem on one operation, under its ConditionExpression if any; False when that does not hold."""
        with aws_call("dynamodb:UpdateItem"):
            return conditional(partial(self.table.update_item, Key={"id": operation_id}, **update))

    # ------------------------------------------------------------------ runners
    # Step Functions does not stop a running Lambda function when it stops an execution
    # (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StopExecution.html): after a
    # cancel, the stopped attempt's invocation of a phase can still be creating what its retry would
    # create. Each invocation holds its phase, in the runners table, from its start until it returns or its
    # function's timeout passes. Not on the operation's item: every write there is a record on the
    # operations stream, pushed to the operation's subscribers, and a hold changes nothing they see.
    @staticmethod
    def _runner(operation_id: str, phase: str) -> dict[str, str]:
        return {"id": f"{operation_id}#{phase}"}

    def hold_phase(self, operation_id: str, phase: str, attempt: int, until: datetime) -> datetime | None:
        """Hold ``phase`` for ``attempt`` until ``until``; answer when an invocation of an earlier attempt
        holding it lets go at the latest, or None once held."""
        key = self._runner(operation_id, phase)
        with aws_call("dynamodb:UpdateItem"):
            held = conditional_or_old(
                partial(
                    self.runners.update_item,
                    Key=key,
                    UpdateExpression="SET #a = :a, #u = :u, #x = :x",
                    ConditionExpression="attribute_not_exists(#k) OR #a >= :a OR #u < :now",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                    ExpressionAttributeNames={"#k": "id", "#a": "attempt", "#u": "until", "#x": "expiresAt"},
                    ExpressionAttributeValues={
                        ":a": attempt,
                        ":u": _iso(until),
                        # TTL deletes a hold its invocation never let go of (a timeout), a day after
                        ":x": int(until.timestamp()) + 86_400,
                        ":now": _iso(),
                    },
                )
            )
        if held is None:
            return None
        return datetime.fromisoformat(str(held["until"])) if "until" in held else now()

    def let_go(self, operation_id: str, phase: str, attempt: int) -> None:
        """The invocation of ``attempt`` has returned (whatever the operation's status now)."""
        with aws_call("dynamodb:DeleteItem"):
            conditional(
                partial(
                    self.runners.delete_item,
                    Key=self._runner(operation_id, phase),
                    ConditionExpression="#a = :a",
                    ExpressionAttributeNames={"#a": "attempt"},
                    ExpressionAttributeValues={":a": attempt},
                )
            )

    # ------------------------------------------------------------------ the end
    def finish(
        self,
        operation_id: str,
        status: OperationStatus,
        *,
        error: str | None,
        message: str | None,
        attempt: int | None = None,
    ) -> bool:
        """The terminal status, written once: an operation that has ended already (a cancel and its stopped
        execution's end, a Finish and a cancel, racing) keeps its first end, and False says so. With
        ``attempt``, only while the operation is still on that attempt (a retry that began meanwhile is not
        ended by its predecessor's last step)."""
        operation = self.get(operation_id)
        if attempt is not None and operation.attempt != attempt:
            return False
        if OperationStatus(operation.status).terminal:
            self.release(operation.target, operation_id)  # an earlier finish that stopped before its release
            return False
        at = now()
        phases = [p.model_dump(mode="json") for p in ended_phases(operation.phases, status, at)]
        values: dict[str, Any] = {":s": status.value, ":at": _iso(at), ":p": phases, ":e": error, ":m": message}
        values.update(_ENDED_VALUES)
        condition = _NOT_ENDED
        if attempt is not None:
            values[":att"] = attempt
            condition += " AND attempt = :att"
        written = self._update_if(
            operation_id,
            UpdateExpression="SET #s = :s, updatedAt = :at, phases = :p, #e = :e, #m = :m",
            ConditionExpression=condition,
            ExpressionAttributeNames={"#s": "status", "#e": "error", "#m": "message"},
            ExpressionAttributeValues=values,
        )
        if not written:
            return False  # ended, or a retry began, between the read and the write: that record stands
        self.release(operation.target, operation_id)
        return True

    def release(self, cluster: str, operation_id: str) -> None:
        with aws_call("dynamodb:UpdateItem"):
            conditional(  # a lock another operation holds (or none) is not this operation's to release
                partial(
                    self.ddb.update_item,
                    TableName=self.clusters_table,
                    Key={"name": to_attr(cluster)},
                    UpdateExpression="REMOVE lockedBy, lockedAt",
                    ConditionExpression="lockedBy = :op",
                    ExpressionAttributeValues={":op": to_attr(operation_id)},
                )
            )
