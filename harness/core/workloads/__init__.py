"""The workload tools as the spec knows them, one module each: its model (the spec's
``workloads`` entry), its family and the target types it runs on (``Tool``, base.py);
registry.py lists them. The spec (harness/core/spec/) validates workloads through the
registry and re-exports the models (harness/core/spec/workloads.py)."""

from __future__ import annotations
