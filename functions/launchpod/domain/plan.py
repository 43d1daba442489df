"""The one planner behind every mutation: desired state (only the fields the caller sent) against the
real state read from AWS and Kubernetes, giving the steps that would change something, each with the
reason, or nothing at all.

Each route reads the real state, states per sent field whether it can change on an existing resource
(``Field``) and what step a change takes, and hands both to ``diff``. An empty plan answers NOOP and
starts nothing; a change to a field that cannot change is refused naming the field (409), never
skipped; ``?dryRun=true`` answers the plan without starting it; the operation records the steps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from launchpod.contracts.plans import PlanStepView
from launchpod.domain.errors import Conflict

_MISSING = object()


@dataclass(frozen=True)
class Step:
    """One change: what it does (create, update, delete, install), to what, why, and in which phase."""

    action: str
    target: str
    reason: str
    phase: str | None = None

    def view(self) -> PlanStepView:
        return PlanStepView(action=self.action, target=self.target, reason=self.reason, phase=self.phase)


@dataclass(frozen=True)
class Field:
    """A field the caller may send. ``mutable`` False: once the resource exists, a different value is
    refused (409 naming the field). ``step`` builds the step a change takes (None: the workflow that
    starts for any change carries it)."""

    name: str
    mutable: bool = False
    step: Callable[[Any, Any], Step] | None = None


@dataclass(frozen=True)
class Plan:
    target: str
    steps: tuple[Step, ...]
    warnings: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.steps

    def views(self) -> list[PlanStepView]:
        return [s.view() for s in self.steps]


def sent(model: Any) -> dict[str, Any]:
    """Only the fields the caller sent (a pydantic model's ``model_fields_set``), as JSON values."""
    return dict(model.model_dump(mode="json", include=set(model.model_fields_set)))


def _same(desired: Any, real: Any) -> bool:
    if isinstance(desired, list) and isinstance(real, list):
        try:
            return sorted(map(str, desired)) == sorted(map(str, real))
        except TypeError:
            return desired == real
    return bool(desired == real)


def changes(desired: Mapping[str, Any], real: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    """field -> (desired, real) for every sent field whose value differs from the real one. A field the
    real state does not report (absent key) is not compared: nothing is known to differ."""
    found = {}
    for name, value in desired.items():
        current = real.get(name, _MISSING)
        if current is _MISSING or _same(value, current):
            continue
        found[name] = (value, current)
    return found


def diff(
    target: str,
    desired: Mapping[str, Any],
    real: Mapping[str, Any] | None,
    fields: Sequence[Field],
    *,
    resource: str,
    create: Callable[[], Sequence[Step]],
    at: str = "body",
) -> Plan:
    """The plan for ``desired`` against ``real``: ``create()``'s steps when the resource does not exist
    (``real`` None), else one step per changed mutable field; a changed immutable field raises Conflict
    naming each such field, what was sent and what the resource has."""
    if real is None:
        return Plan(target, tuple(create()))
    found = changes(desired, real)
    rules = {f.name: f for f in fields}
    frozen = [n for n in found if not rules.get(n, Field(n)).mutable]
    if frozen:
        noun = resource[0].lower() + resource[1:] if resource.startswith("The ") else resource
        raise Conflict(
            f"{resource} exists and "
            + "; ".join(f"its {n} is {shown(found[n][1])}, not {shown(found[n][0])}" for n in frozen)
            + f". {'These fields cannot' if len(frozen) > 1 else 'This field cannot'} change on an existing "
            "resource: send the value it has (or leave the field out), or create a new one under another name.",
            details=[
                {
                    "field": f"{at}.{n}",
                    "rule": "immutable",
                    "message": f"{n} is {shown(found[n][1])} on the existing {noun.removeprefix('the ')}; "
                    f"it cannot change to {shown(found[n][0])}",
                }
                for n in frozen
            ],
        )
    steps = []
    for name, (value, current) in found.items():
        rule = rules[name]
        steps.append(
            rule.step(value, current)
            if rule.step
            else Step("update", f"{resource} {name}", f"{name} is {current!r}; the request asks for {value!r}")
        )
    return Plan(target, tuple(steps))


def shown(value: Any) -> str:
    """A value in a sentence: a string quoted, a list as its items, anything else as Python writes it."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(str(v) if isinstance(v, str) else shown(v) for v in value) + "]"
    return f"'{value}'" if isinstance(value, str) else repr(value)


def combine(target: str, *plans: Plan) -> Plan:
    return Plan(target, tuple(s for p in plans for s in p.steps), tuple(w for p in plans for w in p.warnings))
