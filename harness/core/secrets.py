"""Secrets by value: every secret volperf reads (an environment variable such as
OS_PASSWORD, a clouds.yaml password, a Ceph key from a keyring, a kubeconfig token or
client key, a database password it makes) is registered here when read, and from then
on redaction replaces its value wherever it appears, whatever the field's name.

The registry lives in this process only and is never written anywhere. Values shorter
than MIN_LENGTH are not registered: replacing "1234" in every figure would corrupt the
results; such a password is still removed where it sits under a secret-named key.
"""

from __future__ import annotations

import base64
import os
import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

MIN_LENGTH = 6
REDACTED = "<redacted>"
# The last word of a name that holds a secret's value (OS_PASSWORD, OS_TOKEN,
# OS_APPLICATION_CREDENTIAL_SECRET, AWS_SECRET_ACCESS_KEY, MYSQL_PWD), not of one that
# only mentions it (OS_AUTH_URL, OS_AUTH_TYPE, KEY_NAME, PWD: the working directory).
_VALUE_WORDS = {"password", "passwd", "secret", "token", "key", "apikey", "passphrase"}

_lock = threading.Lock()
_values: set[str] = set()
_pattern: re.Pattern[str] | None = None


def register(value: Any) -> None:
    """Redact this value wherever it appears from now on (in this process)."""
    global _pattern
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if not isinstance(value, str):
        return
    value = value.strip()
    if len(value) < MIN_LENGTH:
        return
    with _lock:
        if value in _values:
            return
        _values.add(value)
        ordered = sorted(_values, key=len, reverse=True)
        _pattern = re.compile("|".join(re.escape(v) for v in ordered))


def register_pem(data: str | bytes) -> None:
    """A PEM private key (or its base64 form, as kubeconfig's client-key-data holds it):
    the whole text and each of its body lines, which is how it shows up when quoted."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    if "-----BEGIN" not in text:
        register(text)
        try:
            text = base64.b64decode(text, validate=False).decode("utf-8", errors="replace")
        except ValueError:
            return
    register(text)
    for line in text.splitlines():
        if not line.startswith("-----"):
            register(line)


def new_password() -> str:
    """A random password for something volperf creates, registered as a secret."""
    from secrets import token_urlsafe  # it loads OpenSSL: a tenth of `volperf --help`

    password = token_urlsafe(18)
    register(password)
    return password


def is_value_name(name: str) -> bool:
    """True for names whose value is itself a secret: OS_PASSWORD, token, client_secret."""
    words = [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]
    if not words:
        return False
    return words[-1] in _VALUE_WORDS or (len(words) > 1 and words[-1] == "pwd")


def register_named(mapping: Mapping[str, Any]) -> None:
    """Register the values of a mapping's secret-named keys, at any depth."""
    for key, value in mapping.items():
        if isinstance(value, Mapping):
            register_named(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, Mapping):
                    register_named(item)
        elif isinstance(key, str) and is_value_name(key):
            register(value)


def register_environment(environ: Mapping[str, str] | None = None) -> None:
    """Every environment variable named like a secret (OS_PASSWORD, OS_TOKEN, ...)."""
    register_named(dict(os.environ if environ is None else environ))


def _longest_first() -> list[str]:
    with _lock:
        return sorted(_values, key=len, reverse=True)


def replace_known(text: str) -> str:
    pattern = _pattern
    return pattern.sub(REDACTED, text) if pattern is not None else text


def scrub_files(paths: Iterable[Path]) -> list[Path]:
    """Replace every registered value in these files (volperf's own results, raw tool
    output included); the files changed, each rewritten atomically."""
    values = [v.encode() for v in _longest_first()]
    if not values:
        return []
    changed = []
    for path in sorted(p for p in paths if p.is_file() and not p.is_symlink()):
        data = path.read_bytes()
        if not any(v in data for v in values):
            continue
        for value in values:
            data = data.replace(value, REDACTED.encode())
        temporary = path.with_name(f".{path.name}.scrub")
        temporary.write_bytes(data)
        os.replace(temporary, path)
        changed.append(path)
    return changed


def scrub_tree(root: Path) -> list[Path]:
    """scrub_files of everything under ``root``."""
    return scrub_files(root.rglob("*")) if root.exists() else []


class RedactingStream:
    """A text stream that writes through to ``target`` with registered secrets replaced
    (the CLI's stdout and stderr: progress, tables, errors)."""

    def __init__(self, target: Any):
        self._target = target

    def write(self, text: str) -> int:
        self._target.write(replace_known(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)
