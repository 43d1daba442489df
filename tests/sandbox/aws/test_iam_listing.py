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
