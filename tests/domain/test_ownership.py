"""What "created by Launchpod" means is one rule, for AWS tags and for Kubernetes labels: delete
removes only what passes it, and every tag or label Launchpod writes passes it."""

from __future__ import annotations

from launchpod.domain import ownership, storage
from launchpod.domain.clusters import control_plane, teardown
from launchpod.domain.dependencies import objects


def test_what_launchpod_tags_is_what_delete_recognises_and_nothing_else():
    tags = control_plane.tags("c1", "launchpod", {"team": "ml"})
    assert teardown.ours(tags, "c1", "launchpod")
    assert not teardown.ours(tags, "c2", "launchpod")  # another cluster's
    assert not teardown.ours({**tags, "launchpod:managed-by": "someone"}, "c1", "launchpod")
    assert not teardown.ours({"launchpod:cluster": "c1"}, "c1", "launchpod")  # a user's look-alike
    # A user's own tags cannot override the two that mark ownership.
    assert control_plane.tags("c1", "launchpod", {"launchpod:cluster": "c9"})["launchpod:cluster"] == "c1"


def test_every_object_launchpod_applies_carries_the_label_its_deletes_check():
    applied = [
        objects._namespace("kuberay-system"),
        *storage.s3_objects("shared", "default", "bucket", "us-east-1", "datasets"),
    ]
    assert all(ownership.owns_k8s(o) and storage.managed(o) for o in applied)
    assert not storage.managed({"metadata": {"labels": {"app.kubernetes.io/managed-by": "Helm"}}})
    assert not storage.managed(None) and not storage.managed({"metadata": {}})
