from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "fio"


def fixture_path(name: str) -> Path:
    return FIXTURES / name


@pytest.fixture
def fio_fixture():
    return fixture_path
