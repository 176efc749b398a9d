"""Secrets by value: registered when read, replaced wherever they appear.

The registry is the process's own, so every value here is new (a random token): one
test's secret never shows up in another test's output."""

from __future__ import annotations

import base64
import io
import secrets as stdlib_secrets

import pytest

from harness.core import secrets
from harness.core.redact import redact, redact_text

REDACTED = secrets.REDACTED


def fresh(prefix: str = "s") -> str:
    return f"{prefix}-{stdlib_secrets.token_urlsafe(12)}"


def test_a_registered_value_is_replaced_in_any_text_and_any_field():
    value = fresh()
    secrets.register(value)
    assert redact_text(f"mysql -p{value} -h db") == f"mysql -p{REDACTED} -h db"
    # under an innocent name, in a list, in a label: the name does not matter any more
    assert redact({"labels": {"note": f"pw is {value}"}, "argv": ["x", value]}) == {
        "labels": {"note": f"pw is {REDACTED}"},
        "argv": ["x", REDACTED],
    }


def test_short_values_are_not_registered():
    secrets.register("1234")
    assert redact_text("iops 1234") == "iops 1234"


def test_the_longest_value_wins_when_one_contains_another():
    short = fresh()
    secrets.register(short)
    secrets.register(short + "-longer")
    assert redact_text(f"[{short}-longer] [{short}]") == f"[{REDACTED}] [{REDACTED}]"


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("OS_PASSWORD", True),
        ("OS_APPLICATION_CREDENTIAL_SECRET", True),
        ("OS_TOKEN", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("MYSQL_PWD", True),
        ("client-key", True),
        ("password", True),
        ("OS_AUTH_URL", False),
        ("OS_AUTH_TYPE", False),  # its value is the word "password"
        ("OS_USERNAME", False),
        ("KEY_NAME", False),
        ("PWD", False),  # the working directory
        ("SSH_AUTH_SOCK", False),
        ("token_count", False),
    ],
)
def test_names_whose_value_is_a_secret(name, secret):
    assert secrets.is_value_name(name) is secret


def test_the_environment_registers_only_secret_valued_names():
    password, url = fresh("pw"), f"http://{fresh('host')}:5000/v3"
    secrets.register_environment(
        {"OS_PASSWORD": password, "OS_AUTH_URL": url, "OS_AUTH_TYPE": "password"}
    )
    assert redact_text(f"{password} {url} password") == f"{REDACTED} {url} password"


def test_named_values_are_found_at_any_depth():
    token, secret = fresh("tok"), fresh("app")
    secrets.register_named(
        {"clouds": {"c": {"auth": {"token": token, "application_credential_secret": secret}}}}
    )
    assert redact_text(f"{token} {secret}") == f"{REDACTED} {REDACTED}"


def test_a_pem_key_from_its_base64_form_is_redacted_whole_and_by_line():
    body = [base64.b64encode(stdlib_secrets.token_bytes(48)).decode() for _ in range(3)]
    pem = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END PRIVATE KEY-----\n"
    data = base64.b64encode(pem.encode()).decode()
    secrets.register_pem(data)
    assert redact_text(f"client-key-data: {data}") == f"client-key-data: {REDACTED}"
    assert body[1] not in redact_text(f"quoted: {body[1]}")
    assert redact_text(pem) == f"{REDACTED}\n"


def test_a_new_password_is_registered():
    password = secrets.new_password()
    assert len(password) >= 20 and redact_text(password) == REDACTED


def test_scrub_files_rewrites_only_files_holding_a_secret(tmp_path):
    value = fresh()
    secrets.register(value)
    holding, clean = tmp_path / "fio.err", tmp_path / "fio.out"
    holding.write_bytes(b"\x00binary\xff " + value.encode() + b"\n")
    clean.write_text("nothing here\n")
    before = clean.stat().st_mtime_ns
    (tmp_path / "logs").mkdir()
    nested = tmp_path / "logs" / "a.log"
    nested.write_text(f"1, {value}\n")
    assert secrets.scrub_tree(tmp_path) == [holding, nested]
    assert holding.read_bytes() == b"\x00binary\xff " + REDACTED.encode() + b"\n"
    assert nested.read_text() == f"1, {REDACTED}\n"
    assert clean.stat().st_mtime_ns == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fio.err", "fio.out", "logs"]


def test_the_redacting_stream_writes_through_without_secrets():
    value = fresh()
    secrets.register(value)
    target = io.StringIO()
    stream = secrets.RedactingStream(target)
    stream.write(f"error: login as admin/{value} refused\n")
    stream.flush()
    assert target.getvalue() == f"error: login as admin/{REDACTED} refused\n"
