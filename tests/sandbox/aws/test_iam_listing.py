"""ListRoles pages through every role that remains, even while other roles are deleted between pages
(moto's offset markers skipped one; Launchpod's teardown then left a cluster's role behind)."""

from __future__ import annotations

import json

TRUST = json.dumps({"Version": "2012-10-17", "Statement": []})


def test_a_role_deleted_on_an_earlier_page_hides_no_later_role(client):
    iam = client("iam")
    for i in range(12):
        iam.create_role(RoleName=f"r-{i:02d}", AssumeRolePolicyDocument=TRUST)
    first = iam.list_roles(MaxItems=5)
    assert first["IsTruncated"]
    for role in first["Roles"][:3]:  # another teardown deletes roles the caller has already seen
        iam.delete_role(RoleName=role["RoleName"])
    seen = [r["RoleName"] for r in first["Roles"]]
    marker = first["Marker"]
    while marker:
        page = iam.list_roles(MaxItems=5, Marker=marker)
        seen += [r["RoleName"] for r in page["Roles"]]
        marker = page.get("Marker")
    assert sorted(seen) == [f"r-{i:02d}" for i in range(12)]
    assert len(seen) == len(set(seen))


def test_get_role_answers_while_other_requests_create_roles():
    """IAM serves GetRole while another caller's CreateRole lands; moto walked its live dict of roles and
    raised "dictionary changed size during iteration" (a provisioning phase failed on it in a full run)."""
    import sys
    import threading

    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.iam.models import iam_backends

    from sandbox.aws.iam import listing as iam_listing

    iam_listing.install()
    backend = iam_backends[DEFAULT_ACCOUNT_ID]["global"]
    backend.create_role("first", TRUST, "/", None, "", [], None, None)
    stop, errors = threading.Event(), []

    def create() -> None:
        i = 0
        while not stop.is_set():
            backend.create_role(f"r-{i}", TRUST, "/", None, "", [], None, None)
            i += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    writer = threading.Thread(target=create)
    writer.start()
    try:
        for _ in range(3000):
            try:
                backend.get_role(f"r-{len(backend.roles) // 2}")
            except RuntimeError as exc:
                errors.append(exc)
            except Exception:
                pass  # NotFound for a name not made yet
    finally:
        stop.set()
        writer.join()
        sys.setswitchinterval(interval)
    assert errors == []
