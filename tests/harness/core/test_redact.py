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


def test_a_key_pair_s_name_is_no_secret():
    """Heat's key_name names a Nova key pair; what is secret is the key's material."""
    heat = {"image": "debian", "key_name": "", "network": "private"}
    assert redact(heat) == heat
    assert redact({"key_name": "ops-key", "secret_name": "db-creds"}) == {
        "key_name": "ops-key",
        "secret_name": "db-creds",
    }
    material = {
        "private_key": "-----BEGIN",
        "public_key": "ssh-ed25519 AAAA",
        "key": "k",
        "password": "p",
        "auth_token": "t",
        "client_secret": "s",
        "keyring": "/etc/ceph/keyring",
    }
    assert redact(material) == dict.fromkeys(material, REDACTED)


def test_an_empty_key_name_is_kept_in_a_campaign_s_spec():
    from harness.core.spec import validate

    spec = validate(
        {
            "name": "heat",
            "target": {
                "type": "openstack",
                "heat": {"image": "debian", "flavor": "m1.small", "key_name": ""},
            },
            "workloads": [{"name": "w", "rw": "randread", "size": "1G", "runtime": 5}],
            "sweep": [1],
        }
    )
    saved = redact(spec.to_dict())
    assert saved["target"]["heat"]["key_name"] == ""
