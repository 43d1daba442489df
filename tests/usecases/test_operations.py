"""Operations as a caller lists, retries and cancels them: the role each kind needs, only a FAILED or
CANCELLED one resumes, and a cancel's dry run names what it would stop and stops nothing."""

from __future__ import annotations

import pytest
from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.operations import OperationStatus, OperationView
from launchpod.contracts.plans import PlanView
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import Conflict, Forbidden
from launchpod.usecases import operations

from tests.fakes.operations import Operations, Workflows

ADMIN = ops.Principal("alice", Role.ADMIN)
OPERATOR = ops.Principal("olga", Role.OPERATOR)


def _submitted(ports: operations.OperationPorts, name: str = "train") -> str:
    request = CreateClusterRequest(name=name, availabilityZones=["us-east-1a", "us-east-1b"])
    operation, _ = ops.submit(ports.operations, ports.workflows, control_plane.plan(request), ADMIN)
    return operation.id


def _ports() -> operations.OperationPorts:
    return operations.OperationPorts(operations=Operations(), workflows=Workflows())


def test_the_list_is_filtered_by_cluster_and_pages_on() -> None:
    ports = _ports()
    first, second = _submitted(ports, "train"), _submitted(ports, "infer")
    listed = operations.list_operations("train", None, 50, None, ports=ports)
    assert [o.id for o in listed.items] == [first] and listed.nextToken is None
    page = operations.list_operations(None, None, 1, None, ports=ports)
    assert len(page.items) == 1 and page.nextToken is not None
    rest = operations.list_operations(None, None, 1, page.nextToken, ports=ports)
    assert {page.items[0].id, rest.items[0].id} == {first, second}


def test_a_running_operation_cannot_be_retried() -> None:
    ports = _ports()
    op_id = _submitted(ports)
    with pytest.raises(Conflict) as refused:
        operations.retry(op_id, ADMIN, ports=ports)
    assert "only FAILED or CANCELLED operations can be retried" in str(refused.value)


def test_cancel_stops_the_execution_and_a_retry_starts_it_again() -> None:
    ports = _ports()
    op_id = _submitted(ports)
    cancelled = operations.cancel(op_id, ADMIN, "wrong zones", False, ports=ports)
    assert isinstance(cancelled, OperationView)
    assert cancelled.status == OperationStatus.CANCELLED and cancelled.message == "Cancelled by alice: wrong zones"
    assert len(ports.workflows.stopped) == 1  # type: ignore[attr-defined]
    retried = operations.retry(op_id, ADMIN, ports=ports)
    assert retried.attempt == 2
    assert [name for _, name, _ in ports.workflows.started] == [op_id, f"{op_id}-r1"]  # type: ignore[attr-defined]


def test_an_operator_cannot_cancel_a_control_plane_an_admin_started() -> None:
    ports = _ports()
    op_id = _submitted(ports)
    with pytest.raises(Forbidden) as refused:
        operations.cancel(op_id, OPERATOR, None, False, ports=ports)
    assert str(refused.value) == "Cancelling this operation needs the admin role; you are operator."
    assert ports.operations.get(op_id).status == OperationStatus.PENDING  # until its first phase starts


def test_a_dry_run_of_cancel_names_the_execution_and_stops_nothing() -> None:
    ports = _ports()
    op_id = _submitted(ports)
    planned = operations.cancel(op_id, ADMIN, "wrong zones", True, ports=ports)
    assert isinstance(planned, PlanView) and planned.target == "train"
    assert [(s.action, s.target) for s in planned.steps] == [
        ("stop", f"Step Functions execution {op_id}"),
        ("update", f"operation {op_id}"),
    ]
    assert planned.steps[0].reason.startswith(f"operation {op_id} (create-control-plane) is PENDING")
    assert ports.operations.get(op_id).status == OperationStatus.PENDING  # until its first phase starts
    assert ports.workflows.stopped == []  # type: ignore[attr-defined]


def test_a_dry_run_is_refused_where_the_cancel_would_be() -> None:
    ports = _ports()
    op_id = _submitted(ports)
    with pytest.raises(Forbidden):
        operations.cancel(op_id, OPERATOR, None, True, ports=ports)
    operations.cancel(op_id, ADMIN, None, False, ports=ports)
    with pytest.raises(Conflict) as refused:
        operations.cancel(op_id, ADMIN, None, True, ports=ports)
    assert str(refused.value) == f"Operation {op_id} is already CANCELLED."
