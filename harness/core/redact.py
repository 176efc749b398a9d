"""Remove secrets before anything reaches results, logs or docs: by the name of the
field that holds them, by what they look like, and by value (harness.core.secrets)."""

from __future__ import annotations

import re
from typing import Any

from harness.core.secrets import REDACTED, replace_known

_SECRET_WORDS = {"pass", "key", "token", "auth", "private", "apikey", "cert"}
_SECRET_PARTS = ("password", "passwd", "secret", "credential", "keyring")
# a name ending so names a thing, not its material: key_name (a Nova key pair's name, as
# Heat takes it), secret_name (a Kubernetes Secret's); never a secret by its field's name
_NAME_WORDS = {"name", "names"}
# Ceph keys are 40 base64 characters ending in '=='; also bearer tokens and URL passwords.
_SECRET_VALUE = [
    (re.compile(r"\bAQ[A-Za-z0-9+/]{34,40}==(?![A-Za-z0-9+/=])"), REDACTED),
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/-]+=*"), r"\1" + REDACTED),
    (re.compile(r"(://[^:/@\s]+:)[^@\s]+(@)"), r"\1" + REDACTED + r"\2"),
]


def redact_text(text: str) -> str:
    """Registered secrets (harness.core.secrets) and secret-looking values replaced."""
    text = replace_known(text)
    for pattern, replacement in _SECRET_VALUE:
        text = pattern.sub(replacement, text)
    return text


def is_secret_key(key: str) -> bool:
    """Names such as password, os_password, key, auth_token, api_key, keyring; not those
    that end in name (key_name, secret_name: what a thing is called, not its material)."""
    lowered = key.lower()
    parts = [w for w in re.split(r"[^a-z0-9]+", lowered) if w]
    if parts and parts[-1] in _NAME_WORDS:
        return False
    words = set(parts)
    return bool(words & _SECRET_WORDS) or any(part in lowered for part in _SECRET_PARTS)


def redact(value: Any) -> Any:
    """A copy of ``value`` with secret-named keys and secret-looking strings replaced."""
    if isinstance(value, dict):
        return {
            redact(k): (REDACTED if isinstance(k, str) and is_secret_key(k) else redact(v))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value
