"""Files volperf ships inside its packages (Heat templates, Rally tasks, testbed
templates, the default documentation site), found with importlib.resources so they are
where an installed wheel put them as well as in a checkout."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def package_path(package: str, *parts: str) -> Path:
    """A file or folder of ``package`` as a path (packages are installed unzipped)."""
    return Path(str(resources.files(package).joinpath(*parts)))
