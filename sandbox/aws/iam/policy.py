"""IAM's policy language, evaluated as AWS evaluates identity-based policies.

One request (action, resource ARN, condition context) against a list of statements: an explicit Deny
wins, then any Allow, otherwise the implicit deny (IAM User Guide, "Policy evaluation logic").
Supported: Action/NotAction, Resource/NotResource with ``*`` and ``?`` wildcards (actions match
case-insensitively, ARNs case-sensitively), and the condition operators Launchpod's policies use or
might: String(Not)Equals(IgnoreCase), String(Not)Like, Arn(Not)Equals, Arn(Not)Like, Bool, Null, with
the ``ForAnyValue:``/``ForAllValues:`` set qualifiers and the ``IfExists`` suffix. Condition keys
are case-insensitive, values case-sensitive (IAM User Guide, "IAM JSON policy elements: Condition").
Policy variables are not substituted (Launchpod's policies use none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

Decision = Literal["Allow", "ExplicitDeny", "ImplicitDeny"]


@dataclass(frozen=True)
class AuthzRequest:
    action: str  # "service:Action"
    resource: str  # an ARN, or "*" for actions without a resource type
    context: dict[str, tuple[str, ...]] = field(default_factory=dict)  # lower-cased key -> values


@lru_cache(maxsize=4096)
def _glob(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(f"^{body}$", re.IGNORECASE | re.DOTALL if ignore_case else re.DOTALL)


def glob_match(pattern: str, value: str, ignore_case: bool = False) -> bool:
    return bool(_glob(pattern, ignore_case).match(value))


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _values_match(op: str, policy_value: str, value: str) -> bool:
    if op == "StringEquals":
        return policy_value == value
    if op == "StringEqualsIgnoreCase":
        return policy_value.lower() == value.lower()
    if op in ("StringLike", "ArnLike", "ArnEquals"):
        # ArnEquals and ArnLike behave the same: wildcards are allowed in both.
        return glob_match(policy_value, value)
    if op == "Bool":
        return policy_value.lower() == value.lower()
    raise ValueError(f"unsupported condition operator {op}")


_NEGATED = {
    "StringNotEquals": "StringEquals",
    "StringNotEqualsIgnoreCase": "StringEqualsIgnoreCase",
    "StringNotLike": "StringLike",
    "ArnNotEquals": "ArnEquals",
    "ArnNotLike": "ArnLike",
}


def _condition_holds(raw_op: str, key: str, policy_values: list[str], context: dict[str, tuple[str, ...]]) -> bool:
    qualifier, _, op = raw_op.rpartition(":")
    if_exists = op.endswith("IfExists")
    op = op.removesuffix("IfExists")
    present = key.lower() in context
    values = context.get(key.lower(), ())
    if op == "Null":
        wanted = policy_values[0].lower() == "true"
        return (not present) == wanted
    if not present and if_exists:
        return True
    negated = op in _NEGATED
    base = _NEGATED.get(op, op)

    def matches(value: str) -> bool:
        return any(_values_match(base, pv, value) for pv in policy_values)

    if qualifier == "ForAllValues":
        # True for a missing or empty key: every one of no values matches.
        result = all(matches(v) for v in values)
        return not result if negated else result
    if qualifier == "ForAnyValue":
        if not values:
            return False
        result = any(matches(v) for v in values)
        return not result if negated else result
    if not present:
        return negated  # a negated operator holds when the key is absent
    result = any(matches(v) for v in values)
    return not result if negated else result


def conditions_hold(condition: dict[str, dict[str, Any]] | None, context: dict[str, tuple[str, ...]]) -> bool:
    for op, keys in (condition or {}).items():
        for key, expected in keys.items():
            if not _condition_holds(op, key, _as_list(expected), context):
                return False
    return True


def _element_matches(statement: dict[str, Any], name: str, value: str, ignore_case: bool) -> bool:
    if name in statement:
        return any(glob_match(p, value, ignore_case) for p in _as_list(statement[name]))
    negative = "Not" + name
    if negative in statement:
        return not any(glob_match(p, value, ignore_case) for p in _as_list(statement[negative]))
    return False


def statement_applies(statement: dict[str, Any], request: AuthzRequest) -> bool:
    return (
        _element_matches(statement, "Action", request.action, ignore_case=True)
        and _element_matches(statement, "Resource", request.resource, ignore_case=False)
        and conditions_hold(statement.get("Condition"), request.context)
    )


def evaluate(statements: list[dict[str, Any]], request: AuthzRequest) -> Decision:
    allowed = False
    for statement in statements:
        if not statement_applies(statement, request):
            continue
        if statement.get("Effect") == "Deny":
            return "ExplicitDeny"
        allowed = True
    return "Allow" if allowed else "ImplicitDeny"
