"""The Kubernetes testbed's certificates and kubeconfigs, made locally with `cryptography`:
one CA, the API server's serving certificate, a client certificate per component, the
kubelet's serving certificate and the service-account key pair. Private keys are 0600."""

from __future__ import annotations

import base64
import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALID_DAYS = 3650
SERVICE_IP = "10.96.0.1"  # the first address of the service range: `kubernetes`


@dataclass(frozen=True)
class Client:
    name: str  # file stem: admin, controller-manager, scheduler, kubelet, apiserver-kubelet
    common_name: str
    organization: str | None = None


def clients(node: str) -> list[Client]:
    return [
        Client("admin", "volperf-admin", "system:masters"),
        Client("controller-manager", "system:kube-controller-manager"),
        Client("scheduler", "system:kube-scheduler"),
        Client("kubelet", f"system:node:{node}", "system:nodes"),
        Client("apiserver-kubelet", "kube-apiserver-kubelet-client", "system:masters"),
    ]


def _name(common_name: str, organization: str | None = None) -> x509.Name:
    parts = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization:
        parts.insert(0, x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    return x509.Name(parts)


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> None:
    path.touch(mode=0o600)
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


def _write_cert(path: Path, cert: x509.Certificate) -> None:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _sign(
    subject: x509.Name,
    key: ec.EllipticCurvePrivateKey,
    issuer: x509.Name,
    issuer_key: ec.EllipticCurvePrivateKey,
    *,
    ca: bool = False,
    usages: list[x509.ObjectIdentifier] | None = None,
    names: list[str] | None = None,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if usages:
        builder = builder.add_extension(x509.ExtendedKeyUsage(usages), critical=False)
    if names:
        sans: list[x509.GeneralName] = []
        for name in names:
            try:
                sans.append(x509.IPAddress(ipaddress.ip_address(name)))
            except ValueError:
                sans.append(x509.DNSName(name))
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def make_pki(pki: Path, node: str, node_ip: str) -> None:
    """Write every key and certificate under pki/ (once: existing files are kept)."""
    if (pki / "ca.crt").exists():
        return
    pki.mkdir(parents=True, exist_ok=True)
    pki.chmod(0o700)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("volperf-testbed-ca")
    _write_key(pki / "ca.key", ca_key)
    _write_cert(pki / "ca.crt", _sign(ca_name, ca_key, ca_name, ca_key, ca=True))
    serving = [
        (
            "apiserver",
            [
                "127.0.0.1",
                "localhost",
                "kubernetes",
                "kubernetes.default",
                "kubernetes.default.svc",
                SERVICE_IP,
            ],
        ),
        ("kubelet-serving", ["127.0.0.1", "localhost", node, node_ip]),
    ]
    for stem, names in serving:
        key = ec.generate_private_key(ec.SECP256R1())
        _write_key(pki / f"{stem}.key", key)
        _write_cert(
            pki / f"{stem}.crt",
            _sign(
                _name(stem),
                key,
                ca_name,
                ca_key,
                usages=[ExtendedKeyUsageOID.SERVER_AUTH],
                names=names,
            ),
        )
    for client in clients(node):
        key = ec.generate_private_key(ec.SECP256R1())
        _write_key(pki / f"{client.name}.key", key)
        _write_cert(
            pki / f"{client.name}.crt",
            _sign(
                _name(client.common_name, client.organization),
                key,
                ca_name,
                ca_key,
                usages=[ExtendedKeyUsageOID.CLIENT_AUTH],
            ),
        )
    service_accounts = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    _write_key(pki / "sa.key", service_accounts)
    (pki / "sa.pub").write_bytes(
        service_accounts.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )


def write_kubeconfig(path: Path, pki: Path, client: str, server: str) -> None:
    """A kubeconfig for ``client`` with its certificate embedded (0600)."""

    def b64(name: str) -> str:
        return base64.b64encode((pki / name).read_bytes()).decode()

    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "volperf-testbed",
        "clusters": [
            {
                "name": "volperf-testbed",
                "cluster": {"server": server, "certificate-authority-data": b64("ca.crt")},
            }
        ],
        "users": [
            {
                "name": client,
                "user": {
                    "client-certificate-data": b64(f"{client}.crt"),
                    "client-key-data": b64(f"{client}.key"),
                },
            }
        ],
        "contexts": [
            {"name": "volperf-testbed", "context": {"cluster": "volperf-testbed", "user": client}}
        ],
    }
    path.touch(mode=0o600)
    path.write_text(yaml.safe_dump(config, sort_keys=False))


def make_node_pki(pki: Path, node_pki: Path, node: str, node_ip: str) -> None:
    """Another node's kubelet certificates, signed by the testbed's CA (pki/), in its own
    folder with the CA's certificate: its serving certificate for ``node_ip`` and its
    client certificate as system:node:``node`` (once: existing files are kept)."""
    if (node_pki / "kubelet.crt").exists():
        return
    node_pki.mkdir(parents=True, exist_ok=True)
    node_pki.chmod(0o700)
    ca_key = serialization.load_pem_private_key((pki / "ca.key").read_bytes(), None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    ca_cert = x509.load_pem_x509_certificate((pki / "ca.crt").read_bytes())
    (node_pki / "ca.crt").write_bytes((pki / "ca.crt").read_bytes())
    issued = (
        ("kubelet-serving", _name("kubelet-serving"), ExtendedKeyUsageOID.SERVER_AUTH),
        ("kubelet", _name(f"system:node:{node}", "system:nodes"), ExtendedKeyUsageOID.CLIENT_AUTH),
    )
    for stem, subject, usage in issued:
        key = ec.generate_private_key(ec.SECP256R1())
        _write_key(node_pki / f"{stem}.key", key)
        names = ["127.0.0.1", "localhost", node, node_ip] if stem == "kubelet-serving" else None
        cert = _sign(subject, key, ca_cert.subject, ca_key, usages=[usage], names=names)
        _write_cert(node_pki / f"{stem}.crt", cert)
