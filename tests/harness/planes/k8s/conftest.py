"""The Kubernetes plane's tests' fixtures."""

from __future__ import annotations

import pytest

from tests.harness.helpers import k8s_up


@pytest.fixture(scope="module")
def two_nodes(k8s_testbed_alone):
    """A second node added, once nothing else runs on the cluster (its pods could land
    there), removed at the end of the module."""
    k8s_up(k8s_testbed_alone, "--nodes", "2")
    yield k8s_testbed_alone
    k8s_up(k8s_testbed_alone, "--nodes", "1")
