"""A long-running sandbox holds what its backends hold: moto kept every model instance it ever made for its
dashboard (sandbox.aws.core.install_untracked_models), so each DynamoDB write left its item's old version and
its stream record alive for the life of the process."""

from __future__ import annotations

import gc

from moto.dynamodb.models.dynamo_type import Item
from moto.s3.models import FakeKey

from tests.sandbox.aws.support import id_table


def _alive(kind: type) -> int:
    gc.collect()
    return sum(isinstance(o, kind) for o in gc.get_objects())


def test_rewriting_one_item_leaves_no_old_versions_alive(client) -> None:
    ddb = client("dynamodb")
    id_table(ddb, "versions")
    before = _alive(Item)
    for n in range(200):
        ddb.update_item(
            TableName="versions",
            Key={"id": {"S": "op-1"}},
            UpdateExpression="SET n = :n, phases = :p",
            ExpressionAttributeValues={":n": {"N": str(n)}, ":p": {"L": [{"M": {"name": {"S": f"phase-{n}"}}}]}},
        )
    assert ddb.get_item(TableName="versions", Key={"id": {"S": "op-1"}})["Item"]["n"] == {"N": "199"}
    assert _alive(Item) - before <= 1  # the table's one item: 200 writes made 400 copies on the way


def test_s3_objects_stay_tracked_for_moto_to_close_their_bodies_at_reset(client) -> None:
    s3 = client("s3")
    s3.create_bucket(Bucket="tracked-bodies")
    s3.put_object(Bucket="tracked-bodies", Key="k", Body=b"weights")
    assert any(key.name == "k" for key in FakeKey.instances_tracked)
