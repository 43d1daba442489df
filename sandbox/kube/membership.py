"""Which of kmock's reactions a request belongs to, decided from the request alone where kmock's views allow.

kmock picks the reaction for each request by asking every reaction's view ``request in view``, and a view
answers that by walking every request its root has recorded, through the view's filters, until it meets
this one (``View.__contains__``: "check by identity"). The emulator keeps up to 500 requests
(emulator.py), so one Kubernetes call walked up to 500 recorded requests through the criteria of each of
a dozen reactions: most of a per-cluster listing's time in the sandbox (bench/list_scale.py). A
Kubernetes API server routes a request by its verb and path alone.

For the views a chain of filters makes (the root, a filter, a priority, exclusions, or- and and-groups),
a recorded request is in the view exactly when it is in the root and passes each filter on the way, so
that is checked directly: the same answer, without the walk. Views whose membership depends on the other
requests (slices, streams, a reaction's own requests) and any view kmock may add are answered by kmock.
"""

from __future__ import annotations

from typing import Any

from kmock._internal import dsl, rendering

from sandbox.aws.core import once, patch

_UNKNOWN = object()


def member(view: Any, request: Any) -> Any:
    """True or False when the chain decides it from ``request`` alone, else ``_UNKNOWN``."""
    kind = type(view)
    if isinstance(view, dsl.Root) and kind.__iter__ is dsl.Root.__iter__:
        return any(recorded is request for recorded in reversed(view._requests))  # it is the newest
    if kind is dsl.Filter:
        inside = member(view._source, request)
        return inside if inside is not True else bool(view.criteria(request))
    if kind is dsl.Priority:
        return member(view._source, request)
    if kind is dsl.Exclusion:
        inside = member(view._source, request)
        if inside is not True:
            return inside
        excluded = [member(other, request) for other in view._exclusions]
        return _UNKNOWN if _UNKNOWN in excluded else not any(excluded)
    if kind is dsl.OrGroup or kind is dsl.AndGroup:
        answers = [member(source, request) for source in view._sources]
        if _UNKNOWN in answers:
            return _UNKNOWN
        return any(answers) if kind is dsl.OrGroup else all(answers)
    return _UNKNOWN


@once
def install() -> None:
    """Patch kmock's ``View.__contains__`` for requests (idempotent)."""
    original = dsl.View.__contains__

    def __contains__(self: Any, item: Any) -> bool:
        if isinstance(item, rendering.Request):
            answer = member(self, item)
            if answer is not _UNKNOWN:
                return bool(answer)
        return bool(original(self, item))

    __contains__.__wrapped__ = original  # type: ignore[attr-defined]
    patch(dsl.View, "__contains__", __contains__)
