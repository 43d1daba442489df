"""moto extension: CloudWatch Logs JSON filter patterns, which FilterLogEvents applies to JSON events.

moto 5.2.5 matches only plain and quoted terms and lets every other pattern match everything. AWS's syntax
("Filter pattern syntax for metric filters, subscription filters, filter log events", JSON log events,
https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html): ``{ $.a.b = "v" }``
selects events whose JSON has that value at that path; ``!=`` negates; ``*`` in a value is a wildcard;
``&&`` and ``||`` combine terms (here without parentheses, ``&&`` binding tighter). An event that is not
JSON never matches a JSON pattern. Numeric comparisons, arrays and IS NULL/EXISTS are not modelled.
"""

from __future__ import annotations

import fnmatch
import json
import re
from typing import Any

_TERM = re.compile(r'^\$\.([A-Za-z0-9_.\-]+)\s*(=|!=)\s*(?:"((?:[^"\\]|\\.)*)"|(\S+))$')


def _at(document: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(document, dict) or part not in document:
            return None
        document = document[part]
    return document


class JsonFilterPattern:
    def __init__(self, pattern: str) -> None:
        body = pattern.strip()[1:-1].strip()
        self.alternatives: list[list[tuple[str, str, str]]] = []
        for alternative in body.split("||"):
            terms = []
            for raw in alternative.split("&&"):
                match = _TERM.match(raw.strip())
                if match is None:
                    raise ValueError(f"Invalid character(s) in term '{raw.strip()}'")
                quoted = match.group(3)
                value = json.loads(f'"{quoted}"') if quoted is not None else match.group(4)
                terms.append((match.group(1), match.group(2), value))
            self.alternatives.append(terms)

    def matches(self, message: str) -> bool:
        try:
            document = json.loads(message)
        except ValueError:
            return False
        return any(all(self._term(document, *term) for term in terms) for terms in self.alternatives)

    @staticmethod
    def _term(document: Any, path: str, op: str, value: str) -> bool:
        found = _at(document, path)
        equal = found is not None and fnmatch.fnmatchcase(str(found), value)
        return equal if op == "=" else not equal


def install() -> None:
    from moto.logs import utils

    original = utils.EventMessageFilter.__init__
    if getattr(original, "_launchpod", False):
        return

    def __init__(self: Any, pattern: str) -> None:
        if pattern and pattern.strip().startswith("{") and pattern.strip().endswith("}"):
            self.filter_type = JsonFilterPattern(pattern)
            return
        original(self, pattern)

    __init__._launchpod = True  # type: ignore[attr-defined]
    utils.EventMessageFilter.__init__ = __init__  # type: ignore[method-assign]
