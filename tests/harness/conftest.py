from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "tools" / "fio" / "fixtures"


def fixture_path(name: str) -> Path:
    return FIXTURES / name


@pytest.fixture
def fio_fixture():
    return fixture_path
