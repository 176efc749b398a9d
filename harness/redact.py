"""Remove secrets before anything reaches results, logs or docs."""

from __future__ import annotations

import re
from typing import Any

REDACTED = "<redacted>"
_SECRET_KEY = re.compile(
    r"pass(word|wd)?|secret|token|keyring|credential|auth|private|(^|_)key$|api_?key", re.I
)
# Ceph keys are 40 base64 characters ending in '=='; also bearer tokens and URL passwords.
_SECRET_VALUE = [
    (re.compile(r"\bAQ[A-Za-z0-9+/]{34,40}==(?![A-Za-z0-9+/=])"), REDACTED),
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/-]+=*"), r"\1" + REDACTED),
    (re.compile(r"(://[^:/@\s]+:)[^@\s]+(@)"), r"\1" + REDACTED + r"\2"),
]


def redact_text(text: str) -> str:
    for pattern, replacement in _SECRET_VALUE:
        text = pattern.sub(replacement, text)
    return text


def redact(value: Any) -> Any:
    """A copy of ``value`` with secret-named keys and secret-looking strings replaced."""
    if isinstance(value, dict):
        return {
            k: (REDACTED if isinstance(k, str) and _SECRET_KEY.search(k) else redact(v))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value
