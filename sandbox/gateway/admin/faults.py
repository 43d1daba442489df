"""POST /api/sandbox/faults: what each field injects, checked and applied in the order listed; GET (and the
answer to POST) describes every fault in force."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sandbox.aws import sagemaker as hyperpod
from sandbox.aws.ec2 import propagation as ec2_propagation
from sandbox.aws.iam import propagation
from sandbox.aws.sagemaker import node_faults
from sandbox.controllers import training
from sandbox.gateway.admin.training import training_controls
from sandbox.lambda_env.faults import FUNCTION_FAULTS

KNOWN = frozenset(
    {
        "failNextEksCreate",
        "failNextHyperPodCreate",
        "message",
        "throttle",
        "clear",
        "deny",
        "iamPropagationSeconds",
        "iamUnassumable",
        "ec2PropagationSeconds",
        "nodeFault",
        "hyperpodUnpatched",
        "jobFault",
        "jobLogIntervalSeconds",
        "jobLogLinesPerStep",
        "jobSteps",
        "jobCheckpointEverySteps",
        "functionFault",
        "functionFaultRates",
    }
)

HELP = (
    "Known fields: failNextEksCreate (bool), failNextHyperPodCreate (capacity, lifecycle_script or "
    "deep_health_check), message (str), throttle (0..1), clear (bool), "
    'deny ([{"function": "<registry name>", "action": "<service:Action>"}]), '
    "iamPropagationSeconds (simulated seconds a new role stays unassumable, default 10), "
    'iamUnassumable ({"role": "<text in the role name>", "attempts": 0..20}: the next calls '
    "handing a service such a role are refused as not yet propagated), "
    "ec2PropagationSeconds (simulated seconds a new EC2 id stays NotFound, default 1), "
    'nodeFault ({"cluster": "<name>", "nodeId": "i-...", "kind": "gpu|efa|unresponsive", '
    '"fixedBy": "reboot|replace|nothing"}), '
    "hyperpodUnpatched (a HyperPod cluster name: it predates BatchReplaceClusterNodes until patched), "
    'jobFault ({"cluster": "<name>", "job": "<job>", "namespace": "default", '
    '"kind": "processCrash|hang|nodeFailure", "pod": "<pod>", "atStep": 2}), '
    "jobLogIntervalSeconds (simulated seconds between a training pod's steps, default 10), "
    "jobLogLinesPerStep (log lines a pytorch pod writes per step, default 1), "
    "jobSteps (training steps per job, default 40), "
    "jobCheckpointEverySteps (steps between a job's checkpoints, default 1: a restart resumes from the last), "
    'functionFault ({"kind": "kill|timeout|responseTooLarge|stateTooLarge|throttle|serviceError", '
    '"function": "<registry name>", "count": 1..100}: the next invocations of a function, or of any), '
    'functionFaultRates ({"rates": {"<kind>": 0..1}, "functions": ["<registry name>"], "seed": 7}).'
)


def _refused(apply: Callable[[], object]) -> str | None:
    """The message ``apply`` refuses its field's value with (a ValueError's: the answer's 422), or None once
    it has applied it."""
    try:
        apply()
    except ValueError as exc:
        return str(exc)
    return None


class Injection:
    """One POST's body applied to the sandbox; ``error`` is the 422 message of the first field refused
    (fields before it stay applied), ``injected`` the node fault it made."""

    def __init__(self, sandbox: Any, body: dict[str, Any]) -> None:
        self.sandbox, self.body = sandbox, body
        self.injected: dict[str, Any] | None = None
        self.error: str | None = None

    def apply(self) -> Injection:
        if self.body.get("clear"):
            self._clear()
        steps: list[Callable[[], str | None]] = [
            lambda: self._propagation("iamPropagationSeconds", propagation.set_propagation_seconds),
            self._iam_unassumable,
            lambda: self._propagation("ec2PropagationSeconds", ec2_propagation.set_propagation_seconds),
            self._denies,
            self._hyperpod_create,
            self._node_fault,
            self._unpatched,
            lambda: training_controls(self.body),
            self._eks_create,
            self._throttle,
            self._function_fault,
            self._function_fault_rates,
        ]
        for step in steps:
            self.error = step()
            if self.error:
                break
        return self

    def _clear(self) -> None:
        node_faults.clear()
        training.clear()
        self.sandbox.faults.clear()
        self.sandbox.hyperpod_faults.clear()
        self.sandbox.iam.clear_denies()
        propagation.set_propagation_seconds(None)
        propagation.set_unassumable("", 0)
        ec2_propagation.set_propagation_seconds(None)
        FUNCTION_FAULTS.clear()

    def _propagation(self, field: str, set_seconds: Callable[[float | None], None]) -> str | None:
        """``field``: the simulated seconds a new IAM role or EC2 id takes to propagate."""
        if field not in self.body:
            return None
        seconds = self.body[field]
        if not isinstance(seconds, int | float) or not 0 <= seconds <= 3600:
            return f"{field} is 0..3600 simulated seconds."
        set_seconds(float(seconds))
        return None

    def _iam_unassumable(self) -> str | None:
        if "iamUnassumable" not in self.body:
            return None
        spec = self.body["iamUnassumable"]
        attempts = spec.get("attempts") if isinstance(spec, dict) else None
        if (
            not isinstance(spec, dict)
            or set(spec) != {"role", "attempts"}
            or not isinstance(spec["role"], str)
            or not spec["role"]
            or isinstance(attempts, bool)
            or not isinstance(attempts, int)
            or not 0 <= attempts <= 20
        ):
            return 'iamUnassumable is {"role": "<text in the role name>", "attempts": <whole number 0..20>}.'
        propagation.set_unassumable(spec["role"], attempts)
        return None

    def _denies(self) -> str | None:
        denies = self.body.get("deny")
        if denies is None:
            return None
        if not isinstance(denies, list) or not all(
            isinstance(d, dict) and set(d) == {"function", "action"} for d in denies
        ):
            return 'deny is a list of {"function": "<registry name>", "action": "<service:Action>"}.'
        for d in denies:
            try:
                self.sandbox.iam.deny(str(d["function"]), str(d["action"]))
            except (KeyError, ValueError) as exc:
                return str(exc).strip("'\"")
        return None

    def _hyperpod_create(self) -> str | None:
        kind = self.body.get("failNextHyperPodCreate")
        if kind is None:
            return None
        if kind not in ("capacity", "lifecycle_script", "deep_health_check"):
            return "failNextHyperPodCreate is capacity, lifecycle_script or deep_health_check."
        self.sandbox.hyperpod_faults.fail_next_create(kind, self.body.get("message"))
        return None

    def _node_fault(self) -> str | None:
        fault = self.body.get("nodeFault")
        if fault is None:
            return None
        if not isinstance(fault, dict) or not {"cluster", "nodeId", "kind"} <= set(fault) <= {
            "cluster",
            "nodeId",
            "kind",
            "fixedBy",
        }:
            return (
                'nodeFault is {"cluster": "<name>", "nodeId": "i-...", "kind": "gpu|efa|unresponsive"} with an'
                ' optional "fixedBy": "reboot|replace|nothing".'
            )

        def inject() -> None:
            self.injected = node_faults.inject(
                str(fault["cluster"]), str(fault["nodeId"]), str(fault["kind"]), fault.get("fixedBy")
            )

        return _refused(inject)

    def _unpatched(self) -> str | None:
        unpatched = self.body.get("hyperpodUnpatched")
        if unpatched is None:
            return None
        return _refused(lambda: hyperpod.mark_unpatched(str(unpatched)))

    def _eks_create(self) -> str | None:
        if self.body.get("failNextEksCreate"):
            self.sandbox.faults.fail_next_eks_create(self.body.get("message"))
        return None

    def _throttle(self) -> str | None:
        if "throttle" not in self.body:
            return None
        fraction = self.body["throttle"]
        if not isinstance(fraction, int | float) or not 0 <= fraction <= 1:
            return "throttle is a fraction between 0 and 1."
        self.sandbox.faults.throttle(float(fraction))
        return None

    def _function_fault(self) -> str | None:
        spec = self.body.get("functionFault")
        if spec is None:
            return None
        if not isinstance(spec, dict) or not {"kind"} <= set(spec) <= {"kind", "function", "count"}:
            return 'functionFault is {"kind": "<kind>"} with an optional "function" and "count".'
        count, function = spec.get("count", 1), spec.get("function")
        if isinstance(count, bool) or not isinstance(count, int) or not (function is None or isinstance(function, str)):
            return "functionFault's count is a whole number 1..100 and its function a registry name."
        return _refused(lambda: FUNCTION_FAULTS.arm(str(spec["kind"]), function, count))

    def _function_fault_rates(self) -> str | None:
        spec = self.body.get("functionFaultRates")
        if spec is None:
            return None
        if (
            not isinstance(spec, dict)
            or not {"rates"} <= set(spec) <= {"rates", "functions", "seed"}
            or not isinstance(spec["rates"], dict)
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in spec["rates"].values())
            or not isinstance(spec.get("functions", []), list)
            or not isinstance(spec.get("seed", 0), int)
        ):
            return 'functionFaultRates is {"rates": {"<kind>": 0..1}} with optional "functions" (names) and "seed".'
        functions = [str(f) for f in spec.get("functions", [])]
        return _refused(lambda: FUNCTION_FAULTS.rates(spec["rates"], functions, spec.get("seed")))


def describe(sandbox: Any, injected: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every fault in force, and the node fault this request injected."""
    return {
        **sandbox.faults.describe(),
        "hyperpod": sandbox.hyperpod_faults.describe(),
        "nodeFaults": node_faults.describe(),
        "jobFaults": training.describe(),
        "removedGrants": sandbox.iam.report()["removedGrants"],
        "iamPropagationSeconds": propagation.propagation_seconds(),
        "iamUnassumable": propagation.unassumable(),
        "ec2PropagationSeconds": ec2_propagation.propagation_seconds(),
        "functionFaults": FUNCTION_FAULTS.describe(),
        **({"injectedNodeFault": injected} if injected else {}),
    }
