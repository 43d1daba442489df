"""CloudWatch Logs JSON filter patterns in moto, as FilterLogEvents applies them (FilterAndPatternSyntax):
a path's value, ``!=``, ``*`` wildcards, ``&&`` and ``||``; events that are not JSON never match."""

from __future__ import annotations

import json

import pytest

from sandbox.aws.logs.filters import JsonFilterPattern

EVENT = json.dumps({"log": "step 3", "kubernetes": {"pod_name": "j-pods-0", "namespace_name": "default"}})


@pytest.mark.parametrize(
    ("pattern", "matches"),
    [
        ('{ $.kubernetes.pod_name = "j-pods-0" }', True),
        ('{ $.kubernetes.pod_name = "j-pods-1" }', False),
        ('{ $.kubernetes.pod_name = "j-*" }', True),
        ('{ $.kubernetes.pod_name != "j-*" }', False),
        ('{ $.kubernetes.pod_name = "j-pods-0" && $.kubernetes.namespace_name = "other" }', False),
        ('{ $.kubernetes.namespace_name = "other" || $.log = "step 3" }', True),
        ('{ $.kubernetes.container_name = "pytorch" }', False),
    ],
)
def test_json_patterns_select_events_by_their_fields(pattern, matches):
    assert JsonFilterPattern(pattern).matches(EVENT) is matches


def test_a_plain_text_event_never_matches_a_json_pattern():
    assert JsonFilterPattern('{ $.log = "*" }').matches("step 3") is False
