"""The shared bucket's contract: the in-memory fake (tests/fakes/s3.py) and adapters.aws.s3 on the sandbox's S3
answer each case alike: a page of objects and folders, its continuation, a prefix with nothing under it, every
key under a prefix up to a limit, a prefix deleted, and a bucket that does not exist."""

from __future__ import annotations

import pytest
from launchpod.adapters.aws import s3 as adapter
from launchpod.domain.errors import NotFound
from launchpod.domain.storage import ObjectPage, StoredObject
from launchpod.runtime.wiring import S3Objects

from tests.fakes.s3 import S3

BUCKET = "launchpod-shared-123456789012"
KEYS = {"datasets/a.txt": "abc", "datasets/b.txt": "b", "datasets/imgs/1.png": "123456789", "other/c.txt": "c"}


@pytest.fixture(params=["fake", "s3"])
def bucket(request: pytest.FixtureRequest) -> S3Objects:
    if request.param == "fake":
        port: S3Objects = S3({BUCKET: {}})
    else:
        request.getfixturevalue("client")("s3").create_bucket(Bucket=BUCKET)
        port = adapter
    for key, text in KEYS.items():
        port.put_text(BUCKET, key, text)
    return port


def _page(answer: ObjectPage) -> tuple[list[tuple[str, int]], list[str], bool]:
    return [(o.key, o.size) for o in answer.objects], list(answer.prefixes), answer.next_token is not None


def test_a_page_holds_the_objects_and_the_folders_right_under_the_prefix(bucket: S3Objects) -> None:
    answer = bucket.list_page(BUCKET, "datasets/", None)
    assert _page(answer) == ([("datasets/a.txt", 3), ("datasets/b.txt", 1)], ["datasets/imgs/"], False)
    assert all(isinstance(o, StoredObject) and o.last_modified.tzinfo is not None for o in answer.objects)


def test_a_full_page_carries_a_token_to_the_rest(bucket: S3Objects) -> None:
    first = bucket.list_page(BUCKET, "datasets/", None, max_keys=2)
    assert _page(first) == ([("datasets/a.txt", 3), ("datasets/b.txt", 1)], [], True)
    rest = bucket.list_page(BUCKET, "datasets/", first.next_token, max_keys=2)
    assert _page(rest) == ([], ["datasets/imgs/"], False)


def test_a_prefix_with_nothing_under_it_has_no_contents_at_all(bucket: S3Objects) -> None:
    assert bucket.list_page(BUCKET, "models/", None) == ObjectPage()


def test_every_key_under_a_prefix_up_to_the_limit(bucket: S3Objects) -> None:
    assert bucket.list_keys(BUCKET, "datasets/") == (
        [
            {"Key": "datasets/a.txt", "Size": 3},
            {"Key": "datasets/b.txt", "Size": 1},
            {"Key": "datasets/imgs/1.png", "Size": 9},
        ],
        False,
    )
    keys, more = bucket.list_keys(BUCKET, "datasets/", limit=2)
    assert [k["Key"] for k in keys] == ["datasets/a.txt", "datasets/b.txt"] and more


def test_deleting_a_prefix_removes_what_is_under_it_and_counts_it(bucket: S3Objects) -> None:
    assert bucket.delete_prefix(BUCKET, "datasets/") == 3
    assert bucket.list_keys(BUCKET, "") == ([{"Key": "other/c.txt", "Size": 1}], False)
    assert bucket.delete_prefix(BUCKET, "datasets/") == 0


def test_a_bucket_that_does_not_exist_is_not_found(bucket: S3Objects) -> None:
    with pytest.raises(NotFound, match="NoSuchBucket"):
        bucket.list_page("launchpod-nobody", "", None)
    with pytest.raises(NotFound, match="NoSuchBucket"):
        bucket.list_keys("launchpod-nobody", "")
