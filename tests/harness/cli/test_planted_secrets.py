"""Secrets planted everywhere a user or a tool can put text, then looked for everywhere
volperf writes: every kind of secret volperf reads is read the way volperf reads it
(OS_PASSWORD from the environment, a clouds.yaml, a kubeconfig, a Ceph keyring, a
database password volperf makes), then a real local campaign carries all of them in its
labels, its target directory's name, fio's own output and a failed step's error, and its
page is built. The results, the console output and the built HTML must hold none."""

from __future__ import annotations

import base64
import secrets as stdlib_secrets
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from harness.cli.main import main
from harness.core import secrets
from harness.core.spec import OpenStackTarget
from harness.planes.ceph.access import register_keys
from harness.planes.cloud import cloud_region
from harness.planes.k8s.cluster import api_client
from tests.harness.helpers import doc_source_copy

pytestmark = pytest.mark.functional

FIO_WRAPPER = """#!/bin/sh
# fio as a tool that repeats what it was given: its stderr is kept under raw/
echo "wrapper: connecting with $PLANTED" >&2
for last; do :; done
if [ -f "$last" ] && grep -q '^bs=8k' "$last"; then
    echo "fio: login refused for $PLANTED" >&2
    exit 1
fi
exec fio "$@"
"""


def _token(prefix: str) -> str:
    return f"{prefix}{stdlib_secrets.token_urlsafe(15)}"


def _client_key() -> tuple[str, str]:
    """A real private key as kubeconfig's client-key-data holds it, and its PEM."""
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    return base64.b64encode(pem.encode()).decode(), pem


def _read_like_volperf(tmp_path: Path, monkeypatch) -> dict[str, str]:
    """Every kind of secret, each read by the code volperf reads it with."""
    planted = {
        "environment": _token("env"),
        "clouds.yaml password": _token("cloud"),
        "application credential secret": _token("app"),
        "kubeconfig token": _token("tok"),
        "kubeconfig password": _token("kpw"),
        "ceph key": "AQ" + base64.b64encode(stdlib_secrets.token_bytes(28)).decode()[2:],
    }
    monkeypatch.setenv("OS_PASSWORD", planted["environment"])  # the CLI reads it

    clouds = tmp_path / "clouds.yaml"
    password = {
        "auth_url": "http://127.0.0.1:1/v3",
        "username": "admin",
        "password": planted["clouds.yaml password"],
        "project_name": "admin",
        "user_domain_name": "Default",
        "project_domain_name": "Default",
    }
    application = {
        "auth_url": "http://127.0.0.1:1/v3",
        "application_credential_id": "0123456789abcdef",
        "application_credential_secret": planted["application credential secret"],
    }
    entries = {
        "planted": {"auth": password},
        "planted-app": {"auth_type": "v3applicationcredential", "auth": application},
    }
    clouds.write_text(yaml.safe_dump({"clouds": entries}))
    for cloud in entries:
        cloud_region(OpenStackTarget(type="openstack", cloud=cloud, clouds_yaml=clouds))

    key_data, pem = _client_key()
    planted["kubeconfig client key"] = pem.splitlines()[1]  # a line of the key's body
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
                "users": [
                    {"name": "t", "user": {"token": planted["kubeconfig token"]}},
                    {"name": "k", "user": {"client-key-data": key_data}},
                    {
                        "name": "p",
                        "user": {"username": "u", "password": planted["kubeconfig password"]},
                    },
                ],
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": "t"}}],
                "current-context": "c",
            }
        )
    )
    api_client(kubeconfig)

    import rados  # Debian's bindings, linked into the virtualenv by setup

    keyring = tmp_path / "ceph.client.planted.keyring"
    keyring.write_text(f"[client.planted]\n\tkey = {planted['ceph key']}\n")
    conf = tmp_path / "ceph.conf"
    conf.write_text(f"[global]\nmon_host = 127.0.0.1:1\nkeyring = {keyring}\n")
    register_keys(rados.Rados(conffile=str(conf), name="client.planted"))

    planted["database password"] = secrets.new_password()
    return planted


def test_no_planted_secret_reaches_results_console_or_page(tmp_path, monkeypatch):
    planted = _read_like_volperf(tmp_path, monkeypatch)
    every = " ".join(planted.values())
    wrapper = tmp_path / "fio-wrapper"
    wrapper.write_text(FIO_WRAPPER)
    wrapper.chmod(0o755)
    monkeypatch.setenv("PLANTED", every)
    data = tmp_path / f"data-{planted['environment']}"
    data.mkdir()
    spec = {
        "name": "planted",
        "target": {"type": "local", "dir": str(data)},
        "fio": str(wrapper),
        "labels": {"note": f"see {every}", planted["kubeconfig token"]: "as a key too"},
        "workloads": [
            {"name": "reads", "rw": "randread", "bs": "4k", "size": "8M", "runtime": 1},
            {"name": "refused", "rw": "randread", "bs": "8k", "size": "8M", "runtime": 1},
        ],
        "sweep": [1],
    }
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    source = doc_source_copy(tmp_path)
    runner = CliRunner()
    run = runner.invoke(
        main, ["run", str(tmp_path / "spec.yaml"), "--results", str(tmp_path / "results")]
    )
    campaign = tmp_path / "results" / "planted"
    report = runner.invoke(
        main,
        ["report", str(campaign), "--doc-source", str(source), "--build", str(tmp_path / "html")],
    )
    assert report.exit_code == 0, report.output

    # the campaign ran, and the planted text went through: redacted, not dropped
    assert run.exit_code == 1 and "failed steps" in run.output
    statuses = [p.read_text() for p in campaign.glob("steps/*/status.json")]
    assert any("login refused for <redacted>" in s for s in statuses)
    assert (
        "connecting with <redacted>" in next(campaign.glob("steps/*reads*/raw/fio.err")).read_text()
    )
    page = tmp_path / "html" / "test_results" / "planted" / "index.html"
    assert "see &lt;redacted&gt;" in page.read_text() or "see <redacted>" in page.read_text()

    places = [campaign, source / "test_results" / "planted", tmp_path / "html"]
    files = [p for place in places for p in place.rglob("*") if p.is_file()]
    assert len(files) > 20
    for kind, value in planted.items():
        assert value not in run.output + report.output, kind
        for path in files:
            assert value.encode() not in path.read_bytes(), (kind, path)
    shutil.rmtree(data)
