"""One name per concept: the table of each concept's canonical name and its older spellings, and how a request
model keeps taking an older spelling while the OpenAPI document marks it deprecated.

A request field renamed to its canonical name declares its older spellings with ``renamed`` (a pydantic
``AliasChoices``: the canonical name first). ``Contract`` then, for every such field:

- takes either spelling, and refuses both at once with a 422 naming the two (rule ``one_spelling``);
- states it in the document: the older spelling is a property of its own with ``deprecated: true`` (JSON
  Schema 2020-12, https://json-schema.org/draft/2020-12/json-schema-validation#name-deprecated, which
  OpenAPI 3.1 uses), and the schema says one spelling or the other, never both.

A view has no older spelling: it answers the canonical name. The MCP tools' input schemas leave the older
spellings out (``without_older_spellings``): an agent reads only the canonical names and pays no tokens for
the rest. A REST path parameter keeps its name (``/clusters/{name}``, ``/instance-groups/{group}``): a path
is not a field a client names. tests/contracts/test_naming.py walks the document against this table.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from pydantic import AliasChoices, BaseModel
from pydantic_core import PydanticCustomError

ONE_SPELLING = "one_spelling"


@dataclass(frozen=True)
class Concept:
    canonical: str
    what: str
    older: tuple[str, ...] = ()  # spellings that mean this concept wherever they appear
    # generic words ("name") that mean this concept only in these schemas: {"name": ("CreateClusterRequest",)}
    older_in: dict[str, tuple[str, ...]] = field(default_factory=dict)


CONCEPTS: tuple[Concept, ...] = (
    Concept(
        "cluster",
        "a Launchpod cluster (its EKS and HyperPod clusters share the name)",
        ("clusterName",),
        {"name": ("CreateClusterRequest", "ProvisionClusterRequest", "ImportClusterRequest")},
    ),
    Concept(
        "instanceGroup",
        "an instance group of the HyperPod cluster (AWS's InstanceGroupName)",
        ("group", "groupName", "instanceGroupName"),
        {"name": ("InstanceGroupRequest",)},
    ),
    Concept("instanceGroups", "instance groups, several", ("groups",)),
    Concept("availabilityZone", "an availability zone by name (us-east-1a)", ("zone", "az")),
    Concept("availabilityZones", "availability zones by name, several", ("zones",)),
    Concept("instanceType", "an instance type (ml.p5.48xlarge)", ("instanceTypeName",)),
    # a team's quota of an instance type too (SageMaker's ComputeQuotaResourceConfig calls it Count), and the
    # instances a team's guaranteed or used resources come to
    Concept(
        "instanceCount",
        "how many instances a group runs, a request asks for or a quota gives",
        ("nodeCount",),
        {"count": ("InstanceQuota",), "instances": ("ResourceAmounts",)},
    ),
    Concept("minInstanceCount", "the fewest instances a group keeps (continuous provisioning)", ("minCount",)),
    Concept("nodeId", "a HyperPod node by its EC2 instance id", ("instanceId",)),
    Concept(
        "kubernetesNode",
        "the Kubernetes Node's name of a HyperPod node (a pod's spec.nodeName)",
        ("nodeName",),
        {"node": ("JobPodView", "EndpointPodView")},
    ),
    Concept("jobName", "a training job (its Kubernetes object's name)", ("job",)),
    Concept("endpoint", "an inference endpoint by name", ("endpointName",)),
    Concept("namespace", "a Kubernetes namespace", ("ns",)),
    # a GPU partition's type (mig-1g.10gb): the name AWS's JumpStartModel CRD gives it
    # (spec.server.acceleratorPartitionType, which JumpStartSpec keeps) and SageMaker's AcceleratorPartition
    # {Type, Count} nests, as acceleratorPartition.type does here
    Concept(
        "acceleratorPartitionType",
        "a GPU partition's type, a MIG profile (mig-1g.10gb)",
        older_in={"profile": ("MigLayout",)},
    ),
    # a job's tracking server is its pods' MLFLOW_TRACKING_URI, an ARN: the name SageMaker's own views use
    Concept(
        "trackingServerArn",
        "an MLflow tracking server's ARN (SageMaker's TrackingServerArn)",
        older_in={"trackingServer": ("JobMlflowView",)},
    ),
    Concept(
        "storageName",
        "a storage of the cluster by name (its PersistentVolumeClaim's and PersistentVolume's name)",
        older_in={"storage": ("ManagedSpec", "DownloadModelRequest", "ModelView")},
    ),
    Concept(
        "storageClaim",
        "a PersistentVolumeClaim of the cluster's storage mounted into pods",
        older_in={"storage": ("ContainerSpec",)},
    ),
    Concept("queue", "a team's Kueue LocalQueue (task governance)", ("localQueue",)),
    # SageMaker's own names (ComputeQuotaResourceConfig's VCpu and MemoryInGiB), which quotas send
    Concept("vCpu", "vCPUs", ("vcpus", "vCpus")),
    Concept("memoryInGiB", "memory in GiB", ("memoryGiB", "memoryGb")),
    Concept("nextToken", "the cursor of the next page", ("continuationToken", "nextContinuationToken")),
    Concept("max_tokens", "at most this many tokens back (OpenAI's name)", ("maxTokens",)),
)

BY_CANONICAL: dict[str, Concept] = {c.canonical: c for c in CONCEPTS}


def canonical_of(name: str, schema: str | None = None) -> str | None:
    """The canonical name ``name`` is an older spelling of (in ``schema``, for the words that depend on it; a
    model whose request takes an older spelling has two schemas in the document, ``<model>-Input`` and
    ``-Output``, and the model's name stands for both)."""
    if schema is not None:
        schema = schema.removesuffix("-Input").removesuffix("-Output")
    for concept in CONCEPTS:
        if name in concept.older or schema in concept.older_in.get(name, ()):
            return concept.canonical
    return None


def renamed(canonical: str, *older: str) -> AliasChoices:
    """A request field's ``validation_alias``: its canonical name, then the older spellings still taken. Each
    must be in the table under that concept (the table stays the one place that says it)."""
    concept = BY_CANONICAL.get(canonical)
    if concept is None:
        raise ValueError(f"{canonical} is not a canonical name in launchpod.contracts.naming.CONCEPTS")
    unknown = [o for o in older if o not in concept.older and o not in concept.older_in]
    if unknown:
        raise ValueError(f"{', '.join(unknown)}: not an older spelling of {canonical} in CONCEPTS")
    return AliasChoices(canonical, *older)


_OLDER: dict[type[BaseModel], dict[str, str]] = {}


def older_spellings(model: type[BaseModel]) -> dict[str, str]:
    """``{older spelling: canonical}`` of ``model``'s own fields (not its nested models')."""
    known = _OLDER.get(model)
    if known is None:
        known = {}
        for info in model.model_fields.values():
            alias = info.validation_alias
            if isinstance(alias, AliasChoices):
                names = [c for c in alias.choices if isinstance(c, str)]
                known.update({old: names[0] for old in names[1:]})
        _OLDER[model] = known
    return known


def one_spelling(model: type[BaseModel], data: Any) -> Any:
    """Refuses a field sent under its canonical name and an older spelling at once, naming both."""
    older = older_spellings(model)
    if not older or not isinstance(data, dict):
        return data
    for old, canonical in older.items():
        if old in data and canonical in data:
            raise PydanticCustomError(
                ONE_SPELLING,
                "{old} and {canonical} are one field: send {canonical} only ({old} is its older spelling)",
                {"old": old, "canonical": canonical},
            )
    return data


def state_older_spellings(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """Adds to ``model``'s validation schema each older spelling as a deprecated property, and the rule that
    a body carries one spelling or the other (``allOf``: a model may have its own ``oneOf``)."""
    older = older_spellings(model)
    properties = schema.get("properties")
    if not older or not isinstance(properties, dict):
        return
    required: list[str] = schema.get("required", [])
    rules: list[dict[str, Any]] = []
    for canonical in dict.fromkeys(older.values()):
        spellings = [canonical, *(old for old, c in older.items() if c == canonical)]
        for old in spellings[1:]:
            was = copy.deepcopy(properties[canonical])
            for key in ("default", "title", "examples"):
                was.pop(key, None)
            was["description"] = f"deprecated: the older spelling of {canonical}; send {canonical}"
            was["deprecated"] = True
            properties[old] = was
        if canonical in required:
            required.remove(canonical)
            rules.append({"oneOf": [{"required": [s]} for s in spellings]})
        else:
            rules.extend({"not": {"required": [canonical, old]}} for old in spellings[1:])
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    schema["allOf"] = [*schema.get("allOf", []), *rules]


def without_older_spellings(schema: Any) -> Any:
    """``schema`` (a model's JSON schema, nested models in ``$defs``) with no deprecated property, and the
    canonical name required again where the rule between spellings required one of them: what an agent reads."""
    if isinstance(schema, list):
        return [without_older_spellings(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: without_older_spellings(v) if k != "properties" else v for k, v in schema.items()}
    properties = out.get("properties")
    if not isinstance(properties, dict):
        return out
    gone = {name for name, sub in properties.items() if isinstance(sub, dict) and sub.get("deprecated")}
    if not gone:
        out["properties"] = {name: without_older_spellings(sub) for name, sub in properties.items()}
        return out
    out["properties"] = {n: without_older_spellings(s) for n, s in properties.items() if n not in gone}
    required = [r for r in out.get("required", []) if r not in gone]
    kept = []
    for rule in out.get("allOf", []):
        named = _names_in(rule)
        if not named & gone:
            kept.append(rule)
        elif _between_spellings(rule):
            if "oneOf" in rule:  # the field is required: under its name, now
                required.extend(n for n in sorted(named - gone) if n not in required)
        else:
            kept.append(_scrub(rule, gone))
    if required:
        out["required"] = required
    if kept:
        out["allOf"] = kept
    else:
        out.pop("allOf", None)
    for key in ("oneOf", "anyOf"):
        if key in out:
            out[key] = [_scrub(branch, gone) for branch in out[key]]
    if isinstance(out.get("not"), dict):  # a model's "none of these given" rule (InstanceQuota's)
        out["not"] = _scrub(out["not"], gone)
    return out


def _between_spellings(rule: dict[str, Any]) -> bool:
    """One of ``state_older_spellings``'s rules: a oneOf of bare ``required``, or a ``not`` of one."""
    if set(rule) == {"oneOf"}:
        return all(isinstance(b, dict) and set(b) == {"required"} for b in rule["oneOf"])
    return set(rule) == {"not"} and isinstance(rule["not"], dict) and set(rule["not"]) == {"required"}


def _scrub(node: Any, gone: set[str]) -> Any:
    """A model's own rule (``rules``) without the older spellings: their properties and ``required`` go, and
    an ``anyOf`` branch that named only an older spelling."""
    if isinstance(node, list):
        return [_scrub(n, gone) for n in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            out[key] = {n: _scrub(s, gone) for n, s in value.items() if n not in gone}
        elif key == "required" and isinstance(value, list):
            out[key] = [n for n in value if n not in gone]
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            branches = [_scrub(b, gone) for b in value]
            left = [b for b, was in zip(branches, value, strict=True) if b or not was]
            if len(left) == 1:
                out.update(left[0])
            else:
                out[key] = left
        else:
            out[key] = _scrub(value, gone)
    return {k: v for k, v in out.items() if v != [] or k not in ("required",)}


def _names_in(rule: Any) -> set[str]:
    if isinstance(rule, dict):
        found = set(rule.get("required", [])) if isinstance(rule.get("required"), list) else set()
        for key, value in rule.items():
            if key != "required":
                found |= _names_in(value)
        return found
    if isinstance(rule, list):
        return set().union(*(_names_in(r) for r in rule)) if rule else set()
    return set()
