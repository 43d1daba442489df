"""What the managed-feature tests share: cluster c1's real state (no HyperPod cluster and no checkpoint chain
unless a test gives them) and the steps ``features.plan`` makes of a request against it."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.features import UpdateFeaturesInput
from launchpod.domain import features
from launchpod.domain.clusters.eks_addon import EksAddon


def real_state(addons: dict[str, EksAddon], **known: Any) -> features.RealState:
    state: dict[str, Any] = {"hyperpod": None, "checkpoint_account": None, "checkpoint_role": None, **known}
    return features.RealState(cluster="c1", addons=addons, **state)


def plan_steps(request: dict[str, Any], addons: dict[str, EksAddon], **known: Any) -> list[tuple[str, str, str | None]]:
    """The plan of ``request`` (UpdateFeaturesInput's fields but the name) as (action, target, phase)."""
    body = UpdateFeaturesInput.model_validate({"name": "c1", **request})
    return [(s.action, s.target, s.phase) for s in features.plan(body, real_state(addons, **known)).steps]
