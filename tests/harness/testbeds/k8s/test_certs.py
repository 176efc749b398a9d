"""harness/testbeds/k8s/certs.py: every certificate is signed by the CA, carries the
names and groups Kubernetes authorizes by, and private keys are the owner's alone."""

from __future__ import annotations

import stat

import yaml
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from harness.testbeds.k8s.certs import make_pki, write_kubeconfig


def _cert(path):
    return x509.load_pem_x509_certificate(path.read_bytes())


def test_the_pki_is_signed_by_its_ca_with_the_names_kubernetes_needs(tmp_path):
    pki = tmp_path / "pki"
    make_pki(pki, "node-a", "10.244.0.1")
    ca = _cert(pki / "ca.crt")
    subjects = {}
    for path in pki.glob("*.crt"):
        cert = _cert(path)
        ca.public_key().verify(
            cert.signature, cert.tbs_certificate_bytes, ec.ECDSA(cert.signature_hash_algorithm)
        )
        subjects[path.stem] = cert
    kubelet = subjects["kubelet"].subject
    assert kubelet.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "system:node:node-a"
    assert kubelet.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)[0].value == "system:nodes"
    admin = subjects["admin"].subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)
    assert admin[0].value == "system:masters"
    serving = (
        subjects["kubelet-serving"]
        .extensions.get_extension_for_class(x509.SubjectAlternativeName)
        .value
    )
    assert "node-a" in serving.get_values_for_type(x509.DNSName)
    assert {str(a) for a in serving.get_values_for_type(x509.IPAddress)} == {
        "127.0.0.1",
        "10.244.0.1",
    }
    usage = subjects["apiserver"].extensions.get_extension_for_class(x509.ExtendedKeyUsage)
    assert ExtendedKeyUsageOID.SERVER_AUTH in usage.value
    for key in pki.glob("*.key"):
        assert stat.S_IMODE(key.stat().st_mode) == 0o600, key
    before = (pki / "ca.crt").read_bytes()
    make_pki(pki, "node-a", "10.244.0.1")  # kept, not made again
    assert (pki / "ca.crt").read_bytes() == before


def test_a_kubeconfig_embeds_its_clients_certificate_and_is_private(tmp_path):
    make_pki(tmp_path, "n", "10.0.0.1")
    path = tmp_path / "admin.kubeconfig"
    write_kubeconfig(path, tmp_path, "admin", "https://127.0.0.1:6443")
    config = yaml.safe_load(path.read_text())
    assert config["clusters"][0]["cluster"]["server"] == "https://127.0.0.1:6443"
    assert config["users"][0]["user"]["client-key-data"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
