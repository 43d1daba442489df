"""Operations with in-memory ports: idempotent submit, one writer per cluster, retry and cancel rules."""

from __future__ import annotations

import pytest
from launchpod.contracts.clusters import CreateClusterRequest
from launchpod.contracts.common import Role
from launchpod.contracts.operations import OperationStatus, OperationView, PhaseStatus
from launchpod.domain import operations as ops
from launchpod.domain.clusters import control_plane
from launchpod.domain.errors import Conflict, Forbidden, RetryableError

from tests.fakes.operations import Operations, Workflows

ADMIN = ops.Principal("alice", Role.ADMIN)
VIEWER = ops.Principal("victor", Role.VIEWER)


def _plan(name: str = "c1", logging: tuple[str, ...] = ("api", "audit", "authenticator")) -> ops.WorkflowPlan:
    return control_plane.plan(
        CreateClusterRequest(name=name, availabilityZones=["us-east-1a", "us-east-1b"], logging=list(logging))
    )


def test_submit_records_the_operation_and_its_execution_before_starting_its_workflow():
    """Recorded after the start, the execution's ARN could be written to an operation whose workflow had
    already ended and released the cluster to the next operation."""
    store = Operations()
    runner = Workflows(store=store)
    operation, created = ops.submit(store, runner, _plan(), ADMIN)
    assert created and operation.status == OperationStatus.PENDING
    assert operation.phases[0].name == "Network"
    assert runner.started[0][:2] == ("create-control-plane", operation.id)
    arn = f"arn:aws:states:us-east-1:123456789012:execution:create-control-plane:{operation.id}"
    assert runner.recorded_at_start == [arn]
    assert store.execution_of(operation.id) == arn


def test_the_same_request_while_in_flight_returns_the_same_operation():
    store, runner = Operations(), Workflows()
    first, _ = ops.submit(store, runner, _plan(), ADMIN)
    again, created = ops.submit(store, runner, _plan(), ADMIN)
    assert (again.id, created) == (first.id, False)
    assert len(runner.started) == 1


def test_a_different_mutation_on_a_busy_cluster_is_a_conflict_naming_the_holder():
    store, runner = Operations(), Workflows()
    first, _ = ops.submit(store, runner, _plan(), ADMIN)
    with pytest.raises(Conflict) as caught:
        ops.submit(store, runner, _plan(logging=("api",)), ADMIN)
    assert caught.value.extra["holder"] == first.id


def test_a_viewer_cannot_submit():
    with pytest.raises(Forbidden, match="admin role"):
        ops.submit(Operations(), Workflows(), _plan(), VIEWER)


def _failed_at_third_phase(store: Operations, runner: Workflows) -> OperationView:
    """An operation whose first two phases succeeded and whose third failed ("X"), ended FAILED."""
    operation, _ = ops.submit(store, runner, _plan(), ADMIN)
    phases = [p.model_copy(update={"status": PhaseStatus.SUCCEEDED}) for p in operation.phases[:2]]
    phases += [operation.phases[2].model_copy(update={"status": PhaseStatus.FAILED, "error": "X"})]
    phases += operation.phases[3:]
    store.ops[operation.id] = operation.model_copy(update={"phases": phases})
    store.finish(operation.id, OperationStatus.FAILED, error="X", message="boom")
    return operation


def test_a_workflow_that_cannot_start_fails_the_operation_and_frees_the_cluster():
    store = Operations()
    with pytest.raises(RetryableError):
        ops.submit(store, Workflows(fail=True), _plan(), ADMIN)
    (operation,) = store.ops.values()
    assert operation.status == OperationStatus.FAILED and not store.locks


def test_retry_keeps_finished_phases_and_resets_the_rest_under_a_new_execution_name():
    store, runner = Operations(), Workflows()
    operation = _failed_at_third_phase(store, runner)

    resumed = ops.retry(store, runner, operation.id, ADMIN, Role.ADMIN)

    assert resumed.attempt == 2 and resumed.status == OperationStatus.PENDING
    assert [p.status for p in resumed.phases[:3]] == ["SUCCEEDED", "SUCCEEDED", "PENDING"]
    assert resumed.phases[2].error is None
    assert runner.started[-1][1] == f"{operation.id}-r1"


def test_only_failed_or_cancelled_operations_can_be_retried():
    store, runner = Operations(), Workflows()
    operation, _ = ops.submit(store, runner, _plan(), ADMIN)
    with pytest.raises(Conflict, match="only FAILED or CANCELLED"):
        ops.retry(store, runner, operation.id, ADMIN, Role.ADMIN)


def test_cancel_stops_the_execution_and_frees_the_cluster():
    store, runner = Operations(), Workflows()
    operation, _ = ops.submit(store, runner, _plan(), ADMIN)
    cancelled = ops.cancel(store, runner, operation.id, ADMIN, Role.ADMIN, "wrong zone")
    assert cancelled.status == OperationStatus.CANCELLED and "wrong zone" in (cancelled.message or "")
    assert runner.stopped == [runner.execution_arn("create-control-plane", operation.id)] and not store.locks
    with pytest.raises(Conflict, match="already CANCELLED"):
        ops.cancel(store, runner, operation.id, ADMIN, Role.ADMIN, None)


def test_a_cancel_that_loses_the_race_to_the_end_is_refused_and_the_end_stands():
    """The workflow succeeds between the cancel's check and its write: the operation stays SUCCEEDED (what
    ran is done), and the cancel is told so instead of marking it CANCELLED."""
    store, runner = Operations(), Workflows()
    operation, _ = ops.submit(store, runner, _plan(), ADMIN)
    stop = runner.stop

    def succeeds_meanwhile(arn: str, cause: str) -> None:
        store.finish(operation.id, OperationStatus.SUCCEEDED, error=None, message="Done")
        stop(arn, cause)

    runner.stop = succeeds_meanwhile  # type: ignore[method-assign]
    with pytest.raises(Conflict, match="already SUCCEEDED"):
        ops.cancel(store, runner, operation.id, ADMIN, Role.ADMIN, None)
    assert store.get(operation.id).status == OperationStatus.SUCCEEDED


def test_an_operation_cancelled_before_its_workflow_started_starts_none():
    store, runner = Operations(), Workflows()
    record = store.set_execution

    def cancelled_first(operation_id: str, arn: str) -> bool:
        store.finish(operation_id, OperationStatus.CANCELLED, error=None, message="Cancelled by alice")
        return record(operation_id, arn)

    store.set_execution = cancelled_first  # type: ignore[method-assign]
    operation, _ = ops.submit(store, runner, _plan(), ADMIN)
    assert operation.status == OperationStatus.CANCELLED and runner.started == []


def test_operation_ids_sort_by_creation_time():
    ids = [ops.new_operation_id() for _ in range(3)]
    assert all(i.startswith("op-") for i in ids)
    assert ids[0][:13] <= ids[1][:13] <= ids[2][:13]


def test_request_key_ignores_key_order():
    assert ops.request_key("k", "t", {"a": 1, "b": 2}) == ops.request_key("k", "t", {"b": 2, "a": 1})


def test_retry_after_a_failed_wait_resumes_from_the_phase_that_started_it():
    from launchpod.contracts.hyperpod import CreateHyperPodInput
    from launchpod.domain.clusters import hyperpod

    store, runner = Operations(), Workflows()
    request = CreateHyperPodInput(
        name="c1",
        availabilityZone="us-east-1a",
        instanceGroups=[{"name": "g", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}],
    )
    operation, _ = ops.submit(store, runner, hyperpod.plan(request), ADMIN)
    phases = [p.model_copy(update={"status": PhaseStatus.SUCCEEDED}) for p in operation.phases[:-1]]
    phases.append(operation.phases[-1].model_copy(update={"status": PhaseStatus.FAILED}))
    store.ops[operation.id] = operation.model_copy(update={"phases": phases})
    store.finish(operation.id, OperationStatus.FAILED, error="X", message="capacity")

    resumed = ops.retry(store, runner, operation.id, ADMIN, Role.ADMIN)

    statuses = {p.name: p.status for p in resumed.phases}
    assert statuses["SecurityGroup"] == "SUCCEEDED"
    assert statuses["CreateHyperPod"] == statuses["WaitInService"] == "PENDING"


def test_each_workflow_needs_the_role_of_the_route_that_starts_it_and_retry_needs_the_same():
    from launchpod import registry
    from launchpod.contracts.catalog_ops import CATALOG, entry
    from launchpod.domain.operations import kind_roles

    started = {kind for e in CATALOG for kind in e.starts}
    assert started == {m.name for m in registry.STATE_MACHINES}, "a workflow no route starts, or the reverse"
    for e in CATALOG:
        for kind in e.starts:
            assert kind_roles()[kind].rank >= e.role.rank, (kind, e.id)
    # The retry and cancel routes admit operators (jobs will be theirs); the operation's kind decides.
    assert entry("retry_operation").role.rank <= min(r.rank for r in kind_roles().values())


def test_a_dry_run_answers_the_plan_and_records_and_starts_nothing():
    store, runner = Operations(), Workflows()
    plan = _plan()
    with pytest.raises(ops.Planned) as caught:
        ops.submit(store, runner, plan, ops.Principal("alice", Role.ADMIN, dry_run=True))
    assert caught.value.target == "c1"
    assert [s.phase for s in caught.value.steps] == [name for name, _ in plan.phases]
    assert not store.ops and not store.locks and not runner.started


def test_a_dry_run_of_retry_names_the_phases_that_would_run_again_and_restarts_nothing():
    store, runner = Operations(), Workflows()
    operation = _failed_at_third_phase(store, runner)

    with pytest.raises(ops.Planned) as caught:
        ops.retry(store, runner, operation.id, ops.Principal("alice", Role.ADMIN, dry_run=True), Role.ADMIN)

    assert [s.phase for s in caught.value.steps] == [p.name for p in operation.phases[2:]]
    assert store.get(operation.id).status == OperationStatus.FAILED and len(runner.started) == 1


def test_an_operation_records_its_plan_and_a_workflow_without_planner_steps_records_its_phases():
    operation, _ = ops.submit(Operations(), Workflows(), _plan(), ADMIN)
    assert [s.phase for s in operation.plan] == [p.name for p in operation.phases]
    assert {s.action for s in operation.plan} == {"run"}
