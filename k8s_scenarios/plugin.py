"""The pytest plugin of k8s_scenarios (entry point `volperf_k8s`): its options and the
fixtures every scenario uses. Scenarios write campaigns that `volperf report` renders."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.k8s.cluster import kubeconfig_path

SCALES = {  # consumers per step, by --scale
    "small": {"fio_sweep": [1, 2], "fio_size": "64M", "fio_runtime": 5},
    "reference": {"fio_sweep": [2, 4, 10, 20, 40], "fio_size": "4G", "fio_runtime": 600},
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("volperf k8s_scenarios")
    group.addoption("--kubeconfig", type=Path, default=None,
                    help="cluster to run on (default $KUBECONFIG, the k8s testbed's, "
                    "~/.kube/config)")  # fmt: skip
    group.addoption("--storage-class", action="append", default=[],
                    help="StorageClass under test; give it twice or more to compare")  # fmt: skip
    group.addoption("--scale", choices=sorted(SCALES), default="small")
    group.addoption("--campaign", default=None,
                    help="campaign name prefix (default k8s-YYYYmmdd-HHMMSS)")  # fmt: skip
    group.addoption("--results", type=Path, default=Path("results"),
                    help="where campaigns are stored")  # fmt: skip
    group.addoption("--fio-image", default="registry.local/fio:3.33")
    group.addoption("--image-pull-policy", default="IfNotPresent",
                    choices=["Never", "IfNotPresent", "Always"])  # fmt: skip


@dataclass(frozen=True)
class ScenarioOptions:
    kubeconfig: Path
    storage_classes: list[str]
    scale: dict[str, Any]
    campaign: str
    results: Path
    fio_image: str
    image_pull_policy: str

    def target(self, storage_class: str) -> dict[str, Any]:
        return {"type": "k8s", "kubeconfig": str(self.kubeconfig),
                "storage_class": storage_class, "fio_image": self.fio_image,
                "image_pull_policy": self.image_pull_policy}  # fmt: skip


@pytest.fixture(scope="session")
def scenario_options(request: pytest.FixtureRequest) -> ScenarioOptions:
    config = request.config
    classes = config.getoption("storage_class")
    if not classes:
        pytest.fail("k8s_scenarios need --storage-class NAME (one or more)", pytrace=False)
    kubeconfig = kubeconfig_path(config.getoption("kubeconfig"))
    if not kubeconfig.exists():
        pytest.fail(f"{kubeconfig}: no such kubeconfig (--kubeconfig, $KUBECONFIG, or "
                    "`volperf testbed up k8s`)", pytrace=False)  # fmt: skip
    return ScenarioOptions(
        kubeconfig=kubeconfig, storage_classes=classes,
        scale=SCALES[config.getoption("scale")],
        campaign=config.getoption("campaign") or time.strftime("k8s-%Y%m%d-%H%M%S"),
        results=config.getoption("results"), fio_image=config.getoption("fio_image"),
        image_pull_policy=config.getoption("image_pull_policy"),
    )  # fmt: skip


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A scenario taking ``storage_class`` runs once per --storage-class (only the
    scenarios here: the plugin is loaded in every pytest run of the environment)."""
    here = Path(__file__).parent
    if "storage_class" in metafunc.fixturenames and Path(metafunc.definition.path).parent == here:
        classes = metafunc.config.getoption("storage_class") or ["(none given)"]
        metafunc.parametrize("storage_class", classes)
