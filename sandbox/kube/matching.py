"""Label and field selectors as the Kubernetes API server evaluates them on LIST and WATCH.

kmock 0.8 ignores ``labelSelector`` and ``fieldSelector``; the emulator filters with these functions.
Label selectors support equality (``a=b``, ``a==b``, ``a!=b``), existence (``a``, ``!a``) and set
(``a in (x,y)``, ``a notin (x)``) terms. Field selectors support ``=``, ``==`` and ``!=`` on dotted
paths (``metadata.name``, ``status.phase``, ``spec.nodeName``).
"""

from __future__ import annotations

import re
from typing import Any

_SET_TERM = re.compile(r"\s*([^,\s!=()]+)\s+(notin|in)\s*\(([^)]*)\)\s*")
_TERM = re.compile(r"\s*(!?)\s*([^,\s!=()]+)\s*(?:(==|=|!=)\s*([^,\s]*))?\s*")


class InvalidSelector(ValueError):
    """A selector the real API server would reject with 400 BadRequest."""


def _split_terms(selector: str) -> list[str]:
    # Commas separate terms except inside "in (a,b)" value sets.
    terms, depth, current = [], 0, ""
    for ch in selector:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            terms.append(current)
            current = ""
        else:
            current += ch
    return [t for t in [*terms, current] if t.strip()]


def label_selector_matches(selector: str | None, labels: dict[str, str] | None) -> bool:
    """True when ``labels`` satisfy every term of ``selector`` (an empty selector matches all)."""
    if not selector:
        return True
    labels = labels or {}
    for term in _split_terms(selector):
        if m := _SET_TERM.fullmatch(term):
            key, op, values = m.group(1), m.group(2), {v.strip() for v in m.group(3).split(",")}
            if op == "in" and labels.get(key) not in values:
                return False
            if op == "notin" and key in labels and labels[key] in values:
                return False
            continue
        m = _TERM.fullmatch(term)
        if not m:
            raise InvalidSelector(f"unable to parse requirement: {term!r}")
        negated, key, op, value = m.group(1), m.group(2), m.group(3), m.group(4)
        if op is None:
            if bool(negated) == (key in labels):
                return False
        elif negated:
            raise InvalidSelector(f"unable to parse requirement: {term!r}")
        elif (op in ("=", "==") and labels.get(key) != value) or (op == "!=" and labels.get(key) == value):
            return False
    return True


def field_selector_matches(selector: str | None, obj: dict[str, Any]) -> bool:
    """True when the object's dotted field paths satisfy every ``path=value`` / ``path!=value`` term."""
    if not selector:
        return True
    for term in _split_terms(selector):
        parts = re.split(r"(!=|==|=)", term, maxsplit=1)
        if len(parts) != 3:
            raise InvalidSelector(f"invalid field selector: {term!r}")
        path, op, expected = parts[0].strip(), parts[1], parts[2].strip()
        current: Any = obj
        for step in path.split("."):
            current = current.get(step) if isinstance(current, dict) else None
        # Absent fields compare as the empty string, as the API server's field sets do.
        actual = "" if current is None else str(current)
        if (actual == expected) != (op != "!="):
            return False
    return True
