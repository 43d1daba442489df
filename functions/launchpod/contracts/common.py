"""Named types and the base model shared by every contract."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from enum import StrEnum
from typing import Annotated, Any, LiteralString

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError

from launchpod.contracts import naming

OPENAI_PATH = "/openai/v1/"  # the part of a path that makes its route OpenAI-compatible


def openai_compatible(path: str) -> bool:
    """True for the OpenAI-compatible routes: their errors also carry OpenAI's ``error`` object. Here, not
    in contracts.chat, so the API's error mapping knows the routes without importing their models."""
    return OPENAI_PATH in path


class Contract(BaseModel):
    """Base of every request and view: unknown fields are refused, names are camelCase on the wire."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, use_enum_values=True, defer_build=True)

    @model_validator(mode="before")
    @classmethod
    def _one_spelling(cls, data: Any) -> Any:
        return naming.one_spelling(cls, data)  # a renamed field's older spelling, never with its name

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core_schema)
        resolved = handler.resolve_ref_schema(schema)
        _keys_as_property_names(resolved)
        if handler.mode == "validation":
            naming.state_older_spellings(resolved, cls)
        return schema


def _keys_as_property_names(schema: Any) -> None:
    """Pydantic writes a dict whose keys have a pattern as ``patternProperties``, which only says what the
    values of matching keys are: a key that does not match would pass. The validator refuses such keys, so
    the document says ``propertyNames`` (every key matches) and ``additionalProperties`` (every value)."""
    if isinstance(schema, list):
        for item in schema:
            _keys_as_property_names(item)
        return
    if not isinstance(schema, dict):
        return
    patterned = schema.get("patternProperties")
    if isinstance(patterned, dict) and len(patterned) == 1 and "additionalProperties" not in schema:
        ((pattern, values),) = patterned.items()
        del schema["patternProperties"]
        schema["propertyNames"] = {**schema.get("propertyNames", {}), "pattern": pattern}
        schema["additionalProperties"] = values
    for value in schema.values():
        _keys_as_property_names(value)


def rules(
    *, required: tuple[str, ...] = (), without_default: tuple[str, ...] = (), **keywords: Any
) -> Callable[[dict[str, Any]], None]:
    """A model's ``json_schema_extra``: the JSON Schema keywords (``oneOf``, ``minProperties``...) that state
    its cross-field validators in the OpenAPI document and the MCP tools' input schemas. ``required`` adds
    fields the validator refuses without (their schema default goes); ``without_default`` drops the default
    of a field whose null the document does not show."""

    def extra(schema: dict[str, Any]) -> None:
        schema.update(keywords)
        if required:
            had = schema.get("required", [])
            schema["required"] = [*had, *(name for name in required if name not in had)]
        for name in (*required, *without_default):
            schema.get("properties", {}).get(name, {}).pop("default", None)

    return extra


def without_dot_segments(chars: str, *, trailing_slash: bool = False) -> str:
    """A pattern of "/"-separated segments of ``chars`` (a class that includes "."), none of them "." or "..":
    a segment starts with another character, or with one dot and another, or with two dots and anything."""
    other = chars.replace(".", "", 1)
    segment = rf"({other}{chars}*|\.{other}{chars}*|\.\.{chars}+)"
    return rf"^{segment}(/{segment})*{'/?' if trailing_slash else ''}$"


def no_dot_segments(what: str = "") -> AfterValidator:
    """The check ``without_dot_segments`` states in the document: no "." or ".." segment (``what`` opens the
    message, such as "prefix")."""

    def check(value: str) -> str:
        if any(part in (".", "..") for part in value.split("/")):
            raise ValueError(f"{what} must not contain '.' or '..' segments".lstrip())
        return value

    return AfterValidator(check)


def one_of(*cases: dict[str, Any], **keywords: Any) -> ConfigDict:
    """The ``model_config`` of a model whose validators accept exactly one of ``cases`` (each a ``case``),
    stated as ``oneOf`` in the document and the tools' schemas; ``keywords`` go to ``rules`` too."""
    return ConfigDict(json_schema_extra=rules(oneOf=list(cases), **keywords))


def case(title: str, **schema: Any) -> dict[str, Any]:
    """One case of ``one_of``: an object schema (``required``, ``properties``, ``anyOf``...) titled for the
    reader."""
    return {"title": title, "type": "object", **schema}


# JSON Schema pieces for ``rules``: a field that is absent or null, and one that must be absent (the object
# form of ``false``, which MCP clients take; the MCP Inspector's --strict refuses a boolean schema).
ABSENT: dict[str, Any] = {"type": "null"}
NEVER: dict[str, Any] = {"not": {}}


def refused(rule: LiteralString, message: str) -> PydanticCustomError:
    """A validator's refusal with its own rule name (the error's ``details[].rule``), for rules a JSON Schema
    cannot state (names distinct across objects, one number at most another); each such rule is listed in
    launchpod.contracts.refusals with its status and code."""
    return PydanticCustomError(rule, message)


def refuse_repeats(names: Iterable[str], message: str) -> None:
    """Refuses (rule distinct_names) a list in which two objects share the field that names them."""
    listed = list(names)
    if len(set(listed)) != len(listed):
        raise refused("distinct_names", message)


_CLUSTER_NAME = r"^[a-zA-Z0-9](-*[a-zA-Z0-9])*$"
_K8S_NAME = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
_ZONE = r"^[a-z]{2}(-[a-z]+)+-\d[a-z]$"

# Pattern -> the rule in words, for validation messages.
PATTERN_HINTS = {
    _CLUSTER_NAME: "1-63 letters, digits and hyphens, starting and ending with a letter or digit (no underscores)",
    _K8S_NAME: "lower-case letters, digits and hyphens, starting and ending with a letter or digit",
    _ZONE: "an availability zone name such as us-east-1a",
}

# SageMaker's cluster-name rule; EKS accepts a superset, so one rule serves both.
ClusterName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=63,
        pattern=_CLUSTER_NAME,
        description="1-63 letters, digits and hyphens; starts and ends with a letter or digit.",
        examples=["ml-team-a"],
    ),
]

# RFC 1123 label, as Kubernetes requires for namespaces and most object names.
K8sName = Annotated[
    str,
    Field(min_length=1, max_length=63, pattern=_K8S_NAME, examples=["training"]),
]

# AWS's tag rules (Tagging AWS resources, "Tag naming limits and requirements"): letters, digits,
# spaces and + - = . _ : / @; keys 1-128 characters and not starting with "aws:", values 0-256.
_TAG_CHARS = r"^[\w\s.:/=+\-@]*$"  # \w and \s are Unicode-aware: letters, digits, _ and spaces
TagKey = Annotated[str, Field(min_length=1, max_length=128, pattern=_TAG_CHARS)]
TagValue = Annotated[str, Field(max_length=256, pattern=_TAG_CHARS)]


def _no_aws_prefix(tags: dict[str, str]) -> dict[str, str]:
    reserved = sorted(k for k in tags if k.lower().startswith("aws:"))
    if reserved:
        raise ValueError(f"tag keys starting with aws: are reserved for AWS ({', '.join(reserved)})")
    return tags


Tags = Annotated[dict[TagKey, TagValue], AfterValidator(_no_aws_prefix), Field(max_length=40)]

OperationId = Annotated[str, Field(pattern=r"^op-[0-9a-z]{8,40}$", examples=["op-01jd3k2m4n5p6q7r"])]

AvailabilityZoneName = Annotated[str, Field(pattern=_ZONE, examples=["us-east-1a"])]

# A GPU partition's MIG profile, as a pod asks for it (nvidia.com/mig-<profile>) and a group is split into.
PartitionType = Annotated[str, Field(pattern=r"^mig-[1-7]g\.[0-9]+gb$", examples=["mig-1g.10gb"])]

# The Regions SageMaker HyperPod orchestrated by Amazon EKS runs in ("Supported AWS Regions", Amazon SageMaker
# HyperPod, https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod.html#sagemaker-hyperpod-available-regions).
# HyperPod's EKS clusters also need its health-monitoring agent, which AWS publishes per Region; this is that
# chart's Region map (launchpod.domain.dependencies.objects.HMA_ACCOUNTS; tests/contracts/test_regions.py holds
# the two equal), mirrored here because the MCP gateway's image carries only the contracts.
HYPERPOD_REGIONS: tuple[str, ...] = (
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "ca-central-1",
    "sa-east-1",
    "eu-central-1",
    "eu-north-1",
    "eu-west-1",
    "eu-west-2",
    "eu-south-2",
    "ap-northeast-1",
    "ap-south-1",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-southeast-3",
    "ap-southeast-4",
)


def _hyperpod_region(value: str) -> str:
    if value not in HYPERPOD_REGIONS:
        supported = ", ".join(HYPERPOD_REGIONS)
        raise refused("hyperpod_region", f"SageMaker HyperPod does not run in {value}; supported Regions: {supported}")
    return value


# Not an enum in the schema: the list would be repeated in every tool an agent is given; a Region outside it is
# refused with a 422 that lists the supported ones.
HyperPodRegion = Annotated[
    str,
    Field(pattern=r"^[a-z]{2}(-[a-z]+)+-\d$", examples=["us-west-2"]),
    AfterValidator(_hyperpod_region),
]


def zone_in_region(zone: str, region: str) -> bool:
    """An Availability Zone's name is its Region's code and a letter, us-west-2a ("Regions and Zones", Amazon
    EC2 user guide, https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-regions-availability-zones.html)."""
    return re.fullmatch(rf"{re.escape(region)}[a-z]", zone) is not None


Cidr = Annotated[
    str,
    Field(pattern=r"^(\d{1,3}\.){3}\d{1,3}/\d{1,2}$", examples=["10.192.0.0/16"]),
]

# The Kubernetes versions Launchpod creates clusters at: those SageMaker HyperPod supports that are in EKS
# standard support, newest (the default) first. The source, with its citations, is the `kubernetes` section
# of the pinned dependency manifest (domain/dependencies/manifest.yaml); it is mirrored here because the MCP
# gateway's image carries only the contracts, and tests/domain/test_dependencies.py checks the two agree.
SUPPORTED_KUBERNETES_VERSIONS: tuple[str, ...] = ("1.34",)
DEFAULT_KUBERNETES_VERSION = SUPPORTED_KUBERNETES_VERSIONS[0]


def _supported_kubernetes_version(value: str) -> str:
    if value not in SUPPORTED_KUBERNETES_VERSIONS:
        raise ValueError(
            f"Kubernetes {value} is not supported; supported versions: {', '.join(SUPPORTED_KUBERNETES_VERSIONS)} "
            "(the versions SageMaker HyperPod supports that are in EKS standard support)"
        )
    return value


KubernetesVersion = Annotated[
    str,
    Field(
        json_schema_extra={"enum": list(SUPPORTED_KUBERNETES_VERSIONS)},
        description="A version SageMaker HyperPod supports that is in EKS standard support.",
        examples=[DEFAULT_KUBERNETES_VERSION],
    ),
    AfterValidator(_supported_kubernetes_version),
]


class Role(StrEnum):
    """What a user may do. Each role includes the ones below it."""

    VIEWER = "viewer"
    OPERATOR = "operator"
    ADMIN = "admin"

    @property
    def rank(self) -> int:
        return {"viewer": 0, "operator": 1, "admin": 2}[self.value]

    def allows(self, needed: Role) -> bool:
        return self.rank >= Role(needed).rank
