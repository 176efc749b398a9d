from __future__ import annotations

from harness.core.redact import REDACTED, redact, redact_text

CEPH_KEY = "AQAKoUZYmYmDMxAAfD52DuUlghtH6bGSutTfnQ=="  # published in the seed document


def test_secret_keys_are_replaced_at_any_depth():
    data = {
        "labels": {"backend": "ceph", "password": "hunter2"},
        "cinder": {"ceph": {"key": CEPH_KEY, "username": "cinder4"}},
        "auth": {"token": "abc"},
        "list": [{"api_key": "x"}],
    }
    out = redact(data)
    assert out["labels"] == {"backend": "ceph", "password": REDACTED}
    assert out["cinder"]["ceph"] == {"key": REDACTED, "username": "cinder4"}
    assert out["auth"] == REDACTED
    assert out["list"] == [{"api_key": REDACTED}]
    assert data["labels"]["password"] == "hunter2"  # the input is not changed


def test_secret_values_inside_text():
    assert CEPH_KEY not in redact_text(f"key = {CEPH_KEY}\n")
    assert (
        redact_text("Authorization: Bearer eyJhbGciOi.x-y") == f"Authorization: Bearer {REDACTED}"
    )
    assert redact_text("http://admin:s3cret@keystone:5000/v3") == (
        f"http://admin:{REDACTED}@keystone:5000/v3"
    )


def test_innocent_names_stay():
    assert redact({"monkey": 1, "keyboard": 2, "tokens_total": 3}) == {
        "monkey": 1,
        "keyboard": 2,
        "tokens_total": 3,
    }
