"""Faults inside Lambda functions (``FUNCTION_FAULTS``): what goes wrong with an invocation itself rather than
with the AWS calls a function makes (``sandbox.aws.faults``).

Each kind is reported to the caller the way Lambda reports it:

- ``kill``: the function's environment dies mid-invocation, right after the invocation's first mutating AWS
  call to a service other than DynamoDB (where Launchpod records progress) succeeded, or before it answers when
  it makes none (the worst moment: the change is made, the answer lost). Lambda answers with a function error
  ``Runtime.ExitError``, "Runtime exited with error: signal: killed", and starts a new environment next time.
- ``timeout``: the invocation is ended at the same moment as its timeout would end it (without waiting the real
  seconds): ``Sandbox.Timedout``, "Task timed out after N seconds"; the environment is not reused.
- ``responseTooLarge``: the function's answer is refused as over the 6 MB synchronous response quota
  (``Function.ResponseSizeTooLarge``, https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html).
- ``stateTooLarge``: the function answers with its result padded past 256 KiB, so the Step Functions Task that
  invoked it fails with ``States.DataLimitExceeded``
  (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html).
- ``throttle``: the Invoke call is refused before the function runs, HTTP 429 ``TooManyRequestsException``
  (https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html); Step Functions names it
  ``Lambda.TooManyRequestsException``.
- ``serviceError``: the Invoke call fails inside Lambda, HTTP 500 ``ServiceException`` (the same page); Step
  Functions names it ``Lambda.ServiceException``.

Step Functions reports the first three to the Task as ``Lambda.Unknown`` ("Unhandled errors in Lambda are
reported as Lambda.Unknown in the error output. These include out-of-memory errors and function timeouts",
https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html); see
``sandbox.aws.stepfunctions``.

Faults are armed one-shot (``arm``: the next ``count`` invocations of a function, or of any) or at a rate per
kind with a seed (``rates``), limited to some functions when named.
"""

from __future__ import annotations

import collections
import random
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Literal, get_args

FaultKind = Literal["kill", "timeout", "responseTooLarge", "stateTooLarge", "throttle", "serviceError"]
KINDS: tuple[str, ...] = get_args(FaultKind)
#: Refused by the Invoke API before the function runs; the others happen in its execution environment.
INVOKE_KINDS = frozenset({"throttle", "serviceError"})
#: What the environment's runtime reports for each fault that ends an invocation (Lambda's ``errorType``).
ERROR_TYPES = {
    "kill": "Runtime.ExitError",
    "timeout": "Sandbox.Timedout",
    "responseTooLarge": "Function.ResponseSizeTooLarge",
}
#: Errors Lambda itself (not the function's code) reports for an invocation: Step Functions sees them as
#: Lambda.Unknown. Runtime.OutOfMemory is the sandbox's name for an environment stopped over its memory.
PLATFORM_ERROR_TYPES = frozenset({*ERROR_TYPES.values(), "Runtime.OutOfMemory"})
STATE_LIMIT = 262144  # Step Functions quotas: 256 KiB for a task's result


class FunctionFaults:
    """Thread-safe settings and counts of the faults inside functions; use ``FUNCTION_FAULTS``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rng = random.Random()
        self._clear_locked()

    def _clear_locked(self) -> None:
        self._armed: list[dict[str, Any]] = []  # {"kind", "function", "left"}, first match wins
        self._rates: dict[str, float] = {}
        self._functions: frozenset[str] = frozenset()
        self._injected: collections.Counter[str] = collections.Counter()
        self._by_function: collections.Counter[tuple[str, str]] = collections.Counter()

    def arm(self, kind: str, function: str | None = None, count: int = 1) -> None:
        """Inject ``kind`` into the next ``count`` invocations of ``function`` (any function when None). A name
        matches the deployed name or its registry name (``launchpod-create-hyperpod`` or ``create-hyperpod``)."""
        _check_kind(kind)
        if not 1 <= count <= 100:
            raise ValueError(f"count is 1..100, got {count!r}")
        with self._lock:
            self._armed.append({"kind": kind, "function": function, "left": count})

    def rates(self, rates: Mapping[str, float], functions: Iterable[str] = (), seed: int | None = None) -> None:
        """Inject each kind into that fraction of invocations (of ``functions`` only, when named); replaces the
        previous rates. ``seed`` makes the choices reproducible."""
        for kind, rate in rates.items():
            _check_kind(kind)
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"the rate of {kind} is within [0, 1], got {rate!r}")
        if sum(rates.values()) > 1.0:
            raise ValueError("the rates add up to more than 1")
        with self._lock:
            self._rates = {k: float(v) for k, v in rates.items() if v > 0}
            self._functions = frozenset(functions)
            if seed is not None:
                self._rng.seed(seed)

    def clear(self) -> None:
        """Disarm every fault and zero the counts."""
        with self._lock:
            self._clear_locked()

    def describe(self) -> dict[str, Any]:
        with self._lock:
            return {
                "armed": [dict(a) for a in self._armed],
                "rates": dict(self._rates),
                "functions": sorted(self._functions),
                "injected": {k: self._injected[k] for k in KINDS if self._injected[k]},
                "injectedByFunction": {f"{f}:{k}": n for (f, k), n in sorted(self._by_function.items())},
            }

    def take(self, function: str) -> str | None:
        """The fault to inject into this invocation of ``function`` (consumed), or None: drawn once per
        invocation, when Lambda receives it."""
        with self._lock:
            for armed in self._armed:
                if _matches(armed["function"], function):
                    armed["left"] -= 1
                    if armed["left"] <= 0:
                        self._armed.remove(armed)
                    return self._count(function, armed["kind"])
            if not self._rates or (self._functions and not any(_matches(f, function) for f in self._functions)):
                return None
            draw, edge = self._rng.random(), 0.0
            for kind, rate in self._rates.items():
                edge += rate
                if draw < edge:
                    return self._count(function, kind)
            return None

    def _count(self, function: str, kind: str) -> str:
        self._injected[kind] += 1
        self._by_function[(function, kind)] += 1
        return kind


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"kind is one of {list(KINDS)}, got {kind!r}")


def _matches(name: str | None, function: str) -> bool:
    return name is None or name == function or function.endswith(f"-{name}")


def failure(kind: str, request_id: str, timeout: float) -> str:
    """The payload Lambda answers an invocation ended by ``kind`` with."""
    import json

    messages = {
        "kill": f"RequestId: {request_id} Error: Runtime exited with error: signal: killed",
        "timeout": f"RequestId: {request_id} Error: Task timed out after {timeout:.2f} seconds",
        "responseTooLarge": "Response payload size exceeded maximum allowed payload size (6291556 bytes).",
    }
    return json.dumps({"errorMessage": messages[kind], "errorType": ERROR_TYPES[kind]})


def padded(payload: str) -> str:
    """``payload`` (a JSON object) with a field that takes it past Step Functions' 256 KiB; other payloads are
    replaced by a string that long (a function answering too much)."""
    import json

    try:
        value = json.loads(payload)
    except ValueError:
        value = None
    padding = "x" * (STATE_LIMIT + 1)
    if isinstance(value, dict):
        return json.dumps({**value, "sandboxPadding": padding})
    return json.dumps(padding)


FUNCTION_FAULTS = FunctionFaults()
