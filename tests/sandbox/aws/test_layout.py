"""The AWS emulation's layout: no import circle among its modules (HyperPod's behaviour was spread over a
19-module circle joined by hook lists), and what it holds beyond moto's backends is reset by one call."""

from __future__ import annotations

import grimp

import sandbox.aws
from sandbox.aws import clock
from sandbox.aws.sagemaker import capacity, durations
from sandbox.aws.state import STATE


def _circles(graph: grimp.ImportGraph, package: str) -> list[set[str]]:
    """The import circles (strongly connected components of two modules or more) within ``package``."""
    modules = sorted(m for m in graph.modules if m == package or m.startswith(package + "."))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in modules:
                continue
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(component)

    for module in modules:
        if module not in index:
            visit(module)
    return found


def test_the_aws_emulation_has_no_import_circle() -> None:
    graph = grimp.build_graph("sandbox", cache_dir=None)
    assert _circles(graph, "sandbox.aws") == []
    # HyperPod's extensions are called, not hooked: the cluster model does not import what records on it.
    assert graph.find_shortest_chain("sandbox.aws.sagemaker.models", "sandbox.aws.sagemaker.operations") is None


def test_reset_puts_every_service_state_back_and_keeps_the_clock() -> None:
    scale = clock.get_time_scale()
    durations.set_durations(reboot=5.0)
    capacity.set_quota("ml.p5.48xlarge", 1)
    assert STATE.services()

    sandbox.aws.reset()

    assert durations.describe_durations()["reboot"] == durations.DEFAULT_DURATIONS["reboot"]
    assert capacity.quota_value("ml.p5.48xlarge") == capacity.default_quota("ml.p5.48xlarge")
    assert clock.get_time_scale() == scale
