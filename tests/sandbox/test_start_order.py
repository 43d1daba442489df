"""Sandbox.start runs its steps in one declared order, each after what it needs; stop undoes them backwards."""

from __future__ import annotations

import pytest

from sandbox.runtime import STEPS, Sandbox, Step, check_order


def test_every_step_starts_after_the_steps_it_needs():
    check_order(STEPS)
    position = {step.name: index for index, step in enumerate(STEPS)}
    for step in STEPS:
        assert all(position[need] < position[step.name] for need in step.needs), step.name


def test_a_step_moved_before_what_it_needs_is_refused_by_name():
    gateway = next(step for step in STEPS if step.name == "gateway")
    reordered = (gateway, *(step for step in STEPS if step is not gateway))
    with pytest.raises(RuntimeError, match=r"'gateway' needs \['tokens', 'warm-up'\] started before it"):
        check_order(reordered)


def test_a_step_needing_what_no_step_starts_is_refused():
    with pytest.raises(RuntimeError, match=r"'late' needs \['nothing'\], which no step starts"):
        check_order((*STEPS, Step("late", ("nothing",), Sandbox._quiet_logs)))


def test_stop_undoes_only_what_started_in_reverse_order():
    stopped: list[str] = []

    def stopper(name: str):
        return lambda sandbox: stopped.append(name)

    sandbox = Sandbox()
    sandbox._started = [
        Step("first", (), Sandbox._quiet_logs, stopper("first")),
        Step("no stop", (), Sandbox._quiet_logs),
        Step("second", ("first",), Sandbox._quiet_logs, stopper("second")),
    ]
    sandbox.stop()
    assert stopped == ["second", "first"]
    assert sandbox._started == []


def test_a_log_folder_the_sandbox_made_is_removed_when_it_stops_and_a_named_one_is_kept(tmp_path):
    made = Sandbox()
    folder = made._log_folder()
    (folder / "fn.log").write_text("a line\n")
    made._stop_execution_environments()
    assert not folder.exists() and made.log_dir is None

    named = Sandbox(log_dir=tmp_path / "logs")
    assert named._log_folder() == tmp_path / "logs"
    (tmp_path / "logs" / "fn.log").write_text("a line\n")
    named._stop_execution_environments()
    assert (tmp_path / "logs" / "fn.log").read_text() == "a line\n"
