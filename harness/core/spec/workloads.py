"""The workload models, re-exported where they were before the tools' modules: each tool's
model is in its own module of harness/core/workloads, and registry.py lists them
(``WORKLOAD_MODELS``, the ``Workload`` union the spec's ``workloads`` are checked by, the
tools' declarations ``TOOLS``, ``tool`` and ``running_on``)."""

from __future__ import annotations

from harness.core.workloads.base import Name, ProjectPace, Size, tagged_union
from harness.core.workloads.broker import BrokerWorkload
from harness.core.workloads.build import BuildSource, BuildWorkload
from harness.core.workloads.database import DatasetSize, ThreadCounts, dataset_factor
from harness.core.workloads.fio import (
    MIXED_MODES,
    READ_MODES,
    RW_MODES,
    WRITE_MODES,
    FioWorkload,
    SteadyStateOption,
)
from harness.core.workloads.git import GitRepo, GitWorkload
from harness.core.workloads.io_pause import IoPauseWorkload
from harness.core.workloads.migration import MigrationWorkload
from harness.core.workloads.pgbench import PgbenchWorkload
from harness.core.workloads.pvc_provision import PvcProvisionWorkload
from harness.core.workloads.rally import RallyWorkload
from harness.core.workloads.redis import RedisWorkload
from harness.core.workloads.registry import (
    TOOLS,
    WORKLOAD_MODELS,
    AppWorkload,
    Workload,
    running_on,
    tool,
)
from harness.core.workloads.sysbench_fileio import FileioWorkload
from harness.core.workloads.sysbench_oltp import OltpWorkload

# what the spec exposes of the tools' modules
__all__ = [
    "MIXED_MODES",
    "READ_MODES",
    "RW_MODES",
    "TOOLS",
    "WORKLOAD_MODELS",
    "WRITE_MODES",
    "AppWorkload",
    "BrokerWorkload",
    "BuildSource",
    "BuildWorkload",
    "DatasetSize",
    "FileioWorkload",
    "FioWorkload",
    "GitRepo",
    "GitWorkload",
    "IoPauseWorkload",
    "MigrationWorkload",
    "Name",
    "OltpWorkload",
    "PgbenchWorkload",
    "ProjectPace",
    "PvcProvisionWorkload",
    "RallyWorkload",
    "RedisWorkload",
    "Size",
    "SteadyStateOption",
    "ThreadCounts",
    "Workload",
    "dataset_factor",
    "running_on",
    "tagged_union",
    "tool",
]
