"""Nothing acted on blind: every route that names a thing of a cluster in its path (a node, a group, a storage,
a job, an endpoint, a model pool, a Space, an operation) answers 404 naming it when the cluster has no such
thing, in a dry run too, read from the same real state the planner reads; a delete of something already gone
is NOOP, as a second delete is. The routes come from the catalog, so a new one cannot be left out."""

from __future__ import annotations

import re

import pytest
from launchpod.contracts.catalog_ops import CATALOG

from tests.sandbox.jobs_support import ready_cluster

pytestmark = pytest.mark.e2e

UNKNOWN = {
    "nodeId": "i-0123456789abcdef0",
    "group": "no-such-group",
    "storageName": "no-such-claim",
    "operationId": "op-00000000000000000000",
    "endpoint": "no-such-endpoint",
    "pool": "no-such-pool",
    "jobName": "no-such-job",
    "subscriberId": "0123456789abcdef",
    "spaceName": "no-such-space",
    "plan": "no-such-plan",  # a training plan (not of a cluster, but read from SageMaker the same way)
}
# The least body each route accepts, so that the unknown id, not the body, is what is refused.
BODIES = {
    "update_instance_group": {"instanceCount": 2},
    "scale_endpoint": {"replicas": 2},
    "invoke_endpoint": {"messages": [{"role": "user", "content": "hi"}]},
    "create_chat_completion": {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
    "assign_pod": {"pod": "p-0", "endpoint": "no-such-endpoint"},
    "extend_training_plan": {"offeringId": "tpeo-0", "confirmPrice": "1"},
    "update_space": {"desiredStatus": "Stopped"},
}
# Path parameters that are not things read from the cluster: a phase is one of a fixed list (422 otherwise),
# and a team is created by PUT.
NOT_READ = {"phase", "team"}


def _id_routes() -> list:
    found = []
    for entry in CATALOG:
        params = [p for p in re.findall(r"{(\w+)}", entry.path) if p != "name"]
        if params and not set(params) & NOT_READ:
            found.append(pytest.param(entry, id=entry.id))
    return found


@pytest.fixture(scope="module")
def cluster(sandbox):
    return ready_cluster(sandbox)


def test_every_id_taking_route_is_covered():
    params = {p for e in CATALOG for p in re.findall(r"{(\w+)}", e.path)} - {"name"} - NOT_READ
    assert params <= set(UNKNOWN), params - set(UNKNOWN)


@pytest.mark.parametrize("entry", _id_routes())
def test_an_unknown_id_is_refused_naming_it(sandbox, cluster, entry):
    params = [p for p in re.findall(r"{(\w+)}", entry.path) if p != "name"]
    path = entry.path.replace("{name}", cluster)
    for p in params:
        path = path.replace("{" + p + "}", UNKNOWN[p])
    query = {"dryRun": "true"} if "dryRun" in (entry.query or ()) else {}
    if entry.method == "DELETE":
        query["confirm"] = UNKNOWN[params[-1]]
    body = BODIES.get(entry.id)
    with sandbox.client() as c:
        response = c.request(entry.method, path, params=query, json=body if entry.method != "GET" else None)
    answer = response.json()
    if entry.method == "DELETE" and response.status_code == 200:
        assert answer.get("status") == "NOOP", answer  # already gone: nothing to delete
        return
    assert response.status_code == 404, (response.status_code, answer)
    assert UNKNOWN[params[-1]] in answer["message"], answer
