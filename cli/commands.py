"""Catalog entries as ``launchpod <resource> <verb>`` commands, and their arguments back as a REST call's.

The naming is the AWS CLI's (``aws eks list-clusters``), grouped as kubectl groups by resource: the
resource is the entry's first tag, the verb is its id without the resource's noun (``list_clusters`` ->
``clusters list``, ``submit_job`` -> ``jobs submit``, ``get_job_logs`` -> ``jobs get-logs``, also answering
``jobs logs``). Arguments:

- the cluster a route is scoped to (``/api/clusters/{name}/...``) is ``--cluster``;
- the route's last other path parameter is a positional (``operations get ID``, ``clusters get NAME``);
- every other field of the request model is an option named after it in kebab case, typed from the model:
  booleans are flags, enums and literals have choices, lists take several values, string maps take
  ``KEY=VALUE`` pairs, and nested shapes take JSON (or ``file://PATH``), as do ``--cli-input-json`` and
  ``--body FILE`` for the whole request.

Values are not validated here beyond their type: the REST API is the one validator, so the CLI answers
exactly the 422 the console and the agent would get.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import types
import typing
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import annotated_types
from launchpod.contracts.catalog_ops import CATALOG, CatalogEntry
from launchpod.contracts.operations import OperationView
from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

# The options every generated command takes; a request field of the same name would be shadowed.
GLOBAL_OPTIONS = ("output", "profile", "api_url", "token", "cli_input_json", "body", "wait", "poll_interval", "follow")
_CLUSTER_SCOPE = re.compile(r"^/api/clusters/\{(\w+)\}/")
# typed as one word on the command line: a time as ISO 8601 (``--start 2026-12-01T00:00:00Z``), a secret as itself
_SCALARS = (str, int, float, datetime.datetime, datetime.date, SecretStr)


@dataclass(frozen=True)
class Option:
    """One request field on the command line."""

    field: str
    kind: str  # flag, scalar, list, map, json, or cluster (the path's cluster, as --cluster)
    positional: bool = False
    flag: str = ""

    @property
    def dest(self) -> str:
        return f"f_{self.field}"


@dataclass(frozen=True)
class Command:
    entry: CatalogEntry
    resource: str
    verb: str
    aliases: tuple[str, ...]
    options: tuple[Option, ...]

    @property
    def words(self) -> str:
        return f"{self.resource} {self.verb}"

    @property
    def noun(self) -> str:
        """What its list holds, for "No <noun>.": ``list`` lists the resource; ``list-training-plans`` or
        ``search-training-plan-offerings`` name what they list (``capacity`` says nothing of it)."""
        if self.verb == "list":
            return self.resource
        for prefix in ("list-", "search-"):
            if self.verb.startswith(prefix):
                return self.verb.removeprefix(prefix).replace("-", " ")
        return "items"

    @property
    def waits(self) -> bool:
        """Answers with an operation that ``--wait`` can follow."""
        return self.entry.accepted or self.entry.response is OperationView

    @property
    def has_body(self) -> bool:
        return any(not o.positional and o.kind != "cluster" for o in self.options)


def kebab(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", name).replace("_", "-").lower()


def _naming(entry: CatalogEntry) -> tuple[str, str]:
    resource = entry.tags[0] if entry.tags else "api"
    plural = resource.replace("-", "_")
    singular = plural.removesuffix("s")
    verb = re.sub(rf"(^|_)({plural}|{singular})(?=_|$)", "", entry.id).strip("_") or entry.id
    return resource, kebab(verb)


def _unwrap(annotation: Any) -> Any:
    """The type under Annotated and Optional."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(annotation) if _unwrap(a) is not type(None)]  # SkipJsonSchema[None] too
        return _unwrap(rest[0]) if len(rest) == 1 else annotation
    return annotation


def _scalar(annotation: Any) -> bool:
    inner = _unwrap(annotation)
    if typing.get_origin(inner) is typing.Literal:
        return True
    return isinstance(inner, type) and (issubclass(inner, Enum) or inner in _SCALARS)


def _one_or_many(union: Any) -> bool:
    """``X | list[X]`` (optional or not): the list says it all."""
    members = [m for m in map(_unwrap, typing.get_args(union)) if m is not type(None)]
    many = [m for m in members if typing.get_origin(m) in (list, tuple)]
    return len(many) == 1 and members == [*typing.get_args(many[0])[:1], many[0]]


def _kind(info: FieldInfo) -> str:
    inner = _unwrap(info.annotation)
    origin = typing.get_origin(inner)
    if inner is bool:
        return "flag"
    if _scalar(inner):
        return "scalar"
    if origin in (list, tuple, set, frozenset) and all(_scalar(a) for a in typing.get_args(inner)[:1]):
        return "list"
    if origin in (typing.Union, types.UnionType) and _one_or_many(inner):
        return "list"  # "a word or a list of words" (a chat's stop): one or more values
    if origin is dict and all(_unwrap(a) is str for a in typing.get_args(inner)):
        return "map"
    return "json"


def _choices_and_type(annotation: Any) -> tuple[list[Any] | None, Any]:
    inner = _unwrap(annotation)
    if typing.get_origin(inner) in (list, tuple, set, frozenset):
        inner = _unwrap(typing.get_args(inner)[0])
    if typing.get_origin(inner) is typing.Literal:
        values = list(typing.get_args(inner))
        return values, type(values[0])
    if isinstance(inner, type) and issubclass(inner, Enum):
        return [m.value for m in inner], str
    return None, inner if inner in (int, float) else str


def _options(entry: CatalogEntry) -> tuple[Option, ...]:
    fields = entry.input.model_fields
    scope = _CLUSTER_SCOPE.match(entry.path)
    cluster_param = scope.group(1) if scope else None
    others = [p for p in entry.path_params if p != cluster_param]
    positional = others[-1] if others else None
    if positional is None and cluster_param and entry.path.endswith("{" + cluster_param + "}"):
        positional = cluster_param
    made = []
    for name in [*entry.path_params, *(f for f in fields if f not in entry.path_params)]:
        info = fields.get(name)
        if info is not None and info.deprecated:
            continue  # an older spelling the API still accepts; the CLI offers only the current one
        kind = _kind(info) if info else "scalar"
        if name == positional:
            made.append(Option(name, "scalar", positional=True))
        elif name == cluster_param:
            made.append(Option(name, "cluster", flag="--cluster"))
        else:
            made.append(Option(name, kind, flag="--" + kebab(name)))
    flags = [o.flag for o in made if o.flag]
    clash = {f for f in flags if flags.count(f) > 1} | {o.flag for o in made if o.dest[2:] in GLOBAL_OPTIONS}
    if clash:
        raise ValueError(f"{entry.id}: options {sorted(clash)} are taken twice; name the CLI option differently")
    return tuple(made)


def commands(catalog: typing.Iterable[CatalogEntry] = CATALOG) -> list[Command]:
    """One command per catalog entry; ``get-X`` also answers ``X`` when no other verb is ``X``."""
    made = []
    for entry in catalog:
        resource, verb = _naming(entry)
        made.append(Command(entry, resource, verb, (), _options(entry)))
    taken = {(c.resource, c.verb) for c in made}
    if len(taken) != len(made):
        raise ValueError("two catalog entries make the same command")
    return [
        Command(c.entry, c.resource, c.verb, (short,), c.options)
        if c.verb.startswith("get-") and (c.resource, short := c.verb.removeprefix("get-")) not in taken
        else c
        for c in made
    ]


def for_people(text: str, by_id: dict[str, Command], command: Command | None = None) -> str:
    """Catalog words as a person at a shell reads them: the agent's tool names become the commands a person
    types, and the request's camelCase fields (``dryRun true``, ``acknowledgeDataLoss: true``) the options."""

    def command_of(match: re.Match[str]) -> str:
        found = by_id.get(match.group(0))
        return f"`launchpod {found.words}`" if found else match.group(0)

    text = re.sub(r"\bwait_for_operation\b", "--wait", text)
    text = re.sub(r"\b[a-z]+(?:_[a-z]+)+\b", command_of, text)
    for option in command.options if command else ():
        if option.flag and re.search(r"[A-Z]", option.field):
            text = re.sub(rf"\b{option.field}(?::? true)?\b", option.flag, text)
    return text.replace("own tool", "own command")


def flag_of(command: Command, location: str | None) -> str | None:
    """An error detail's field (``body.name``, ``query.dryRun``, ``path.operationId``) as the option a
    person typed (``--name``), so a 422 points at the command line rather than the HTTP request."""
    if not location:
        return location
    head, _, rest = location.partition(".")
    name, _, deeper = (rest if head in ("body", "query", "path") else location).partition(".")
    option = next((o for o in command.options if o.field == name), None)
    if option is None:
        return location
    shown = kebab(name).upper().replace("-", "_") if option.positional else option.flag
    if option.kind == "list" and deeper.isdigit():  # the API counts a list's items from 0, a person from 1
        return f"{shown} (value {int(deeper) + 1})"
    return f"{shown} ({deeper})" if deeper else shown


# ---------------------------------------------------------------- values from the command line


def json_value(text: str) -> Any:
    """JSON given inline, as ``file://PATH`` (the AWS CLI's convention) or ``-`` for stdin."""
    if text == "-":
        text = sys.stdin.read()
    elif text.startswith("file://"):
        try:
            text = Path(text.removeprefix("file://")).expanduser().read_text()
        except OSError as exc:
            raise argparse.ArgumentTypeError(f"cannot read {text}: {exc.strerror}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON ({exc.msg} at column {exc.colno}): {text[:80]}") from exc


_SWITCH = {"on": True, "off": False, "true": True, "false": False}


def switch_or_json(text: str) -> Any:
    """A toggle's object: ``on`` or ``off`` for ``{"enabled": true|false}``, else its JSON as ``json_value``
    reads it (``--task-governance on``; ``--tiered-checkpointing '{"enabled": true, "memoryPercentage": 20}'``)."""
    switched = _SWITCH.get(text.strip().lower())
    return {"enabled": switched} if switched is not None else json_value(text)


def _toggle(annotation: Any) -> bool:
    """A nested shape with an ``enabled`` field: what ``switch_or_json`` reads."""
    inner = _unwrap(annotation)
    return isinstance(inner, type) and issubclass(inner, BaseModel) and "enabled" in inner.model_fields


def body_file(path: str) -> Any:
    return json_value(path if path == "-" else "file://" + path)


def pair(text: str) -> tuple[str, str] | dict[str, Any]:
    if text.lstrip().startswith("{") or text.startswith("file://"):
        value = json_value(text)
        if not isinstance(value, dict):
            raise argparse.ArgumentTypeError("give KEY=VALUE pairs or one JSON object")
        return value
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    return key, value


def _shape(annotation: Any) -> str:
    """A nested request shape in one line, its fields named: ``{enabled, version}``, ``[{name, ...}]``."""
    inner = _unwrap(annotation)
    if typing.get_origin(inner) in (list, tuple):
        return f"[{_shape(typing.get_args(inner)[0])}]"
    if isinstance(inner, type) and issubclass(inner, BaseModel):
        names = list(inner.model_fields)
        return "{" + ", ".join(names[:8]) + (", ..." if len(names) > 8 else "") + "}"
    return "value"


def literal(text: str) -> str:
    """``text`` as argparse prints it: argparse %-formats every help string (``%(default)s``), so a catalog
    summary or field description saying "90%" would end --help with a ValueError unless its % is doubled
    (https://docs.python.org/3/library/argparse.html#help)."""
    return text.replace("%", "%%")


def _field_help(info: FieldInfo | None, option: Option) -> str:
    words = (info.description or "").rstrip(".") if info else ""
    if option.kind == "cluster":
        words = "the cluster's name"
    if option.kind == "json":
        switch = "on, off, or " if info is not None and _toggle(info.annotation) else ""
        words += ("; " if words else "") + f"{switch}JSON {_shape(info.annotation) if info else ''}, or file://PATH"
    elif option.kind == "map":
        words += ("; " if words else "") + "KEY=VALUE pairs or a JSON object"
    if info is not None and info.is_required() and not option.positional and option.kind != "cluster":
        words += " (required)"
    elif info is not None and option.kind == "scalar" and info.default not in (None, PydanticUndefined):
        words += f" (default: {info.default.value if isinstance(info.default, Enum) else info.default})"
    return words.strip()


def add_option(parser: argparse.ArgumentParser, entry: CatalogEntry, option: Option) -> None:
    info = entry.input.model_fields.get(option.field)
    help_text = literal(_field_help(info, option))
    choices, value_type = _choices_and_type(info.annotation) if info else (None, str)
    metavar = kebab(option.field).upper().replace("-", "_")
    if option.positional:
        is_cluster = entry.path.startswith("/api/clusters/{" + option.field + "}")
        parser.add_argument(option.dest, metavar="CLUSTER" if is_cluster else metavar, help=help_text or None)
        return
    if option.kind == "cluster":
        help_text += " (default: your active cluster, `launchpod preferences set --active-cluster NAME`)"
        parser.add_argument("--cluster", dest=option.dest, metavar="CLUSTER", help=help_text)
        return
    common: dict[str, Any] = {"dest": option.dest, "help": help_text or None, "default": None}
    if option.kind in ("scalar", "list") and not choices:
        common["metavar"] = metavar
    if option.kind == "flag":
        default = info.default if info is not None else None
        if default is True:
            parser.add_argument("--no-" + option.flag[2:], action="store_const", const=False, **common)
        elif default is False:
            parser.add_argument(option.flag, action="store_const", const=True, **common)
        else:
            parser.add_argument(option.flag, action=argparse.BooleanOptionalAction, **common)
    elif option.kind == "scalar":
        parser.add_argument(option.flag, type=value_type, choices=choices, **common)
    elif option.kind == "list":
        common["help"] = (common["help"] or "") + (" (or one JSON array)" if not choices else "")
        parser.add_argument(option.flag, type=value_type, choices=choices, nargs="+", **common)
    elif option.kind == "map":
        parser.add_argument(option.flag, type=pair, nargs="+", metavar="KEY=VALUE", **common)
    elif info is not None and _toggle(info.annotation):
        parser.add_argument(option.flag, type=switch_or_json, metavar="on|off|JSON", **common)
    else:
        parser.add_argument(option.flag, type=json_value, metavar="JSON", **common)


def arguments_of(command: Command, namespace: argparse.Namespace) -> dict[str, Any]:
    """The request as the REST client takes it: the whole-body JSON first, then each option given."""
    arguments: dict[str, Any] = {}
    for whole in (getattr(namespace, "body", None), getattr(namespace, "cli_input_json", None)):
        if whole is not None:
            if not isinstance(whole, dict):
                raise SystemExit("launchpod: --body and --cli-input-json take a JSON object")
            arguments.update(whole)
    for option in command.options:
        value = getattr(namespace, option.dest, None)
        if value is None:
            continue
        if option.kind == "list" and len(value) == 1 and isinstance(value[0], str) and value[0].startswith("["):
            # a JSON array: the way to pass values that start with "-", such as a command's own flags
            value = json_value(value[0])
        if option.kind == "map":
            merged: dict[str, Any] = {}
            for item in value:
                merged.update(item if isinstance(item, dict) else [item])
            value = merged
        arguments[option.field] = value
    return arguments


def max_of(entry: CatalogEntry, field: str) -> int | None:
    """A field's upper bound from the request model (``le``), e.g. the most log lines one call returns."""
    info = entry.input.model_fields.get(field)
    for rule in info.metadata if info else ():
        if isinstance(rule, annotated_types.Le):
            return int(typing.cast(int, rule.le))
    return None
