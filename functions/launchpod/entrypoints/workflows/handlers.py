"""Every workflow phase's Lambda handler, made from its declaration in the registry.

A phase's Handler setting is ``launchpod.entrypoints.workflows.handlers.<function name with underscores>``
(``registry.phase_function``). The Lambda runtime imports this module and reads that attribute
(``getattr``), which builds the handler here: the phase decorator (parse, ``run_phase``, dump) around the
use case the declaration names. Only that use case's module is imported, so a function's cold start loads
its own phase, not every workflow's.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from launchpod import registry
from launchpod.entrypoints.workflows.phase import phase

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


def __getattr__(attribute: str) -> Handler:
    spec = registry.PHASES_BY_HANDLER.get(attribute)
    if spec is None or spec.run is None or spec.phase is None:
        raise AttributeError(f"no workflow phase is declared as {attribute}")
    module, _, function = spec.run.rpartition(".")
    run = getattr(importlib.import_module(f"launchpod.usecases.workflows.{module}"), function)
    handler = phase(spec.phase)(run)
    globals()[attribute] = handler
    return handler
