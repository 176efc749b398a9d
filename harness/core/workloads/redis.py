"""redis: a redis-server per consumer under go-ycsb's load and run."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from harness.core.workloads.base import Name, ProjectPace, Tool, _Strict


class RedisWorkload(_Strict):
    """Redis under a YCSB load: every consumer runs its own redis-server with its data and
    append-only file on the storage under test (``appendfsync`` as the spec says), loads
    ``records`` records with go-ycsb's core workload and runs ``operations`` operations of
    the YCSB workload named (a: 50 % reads, 50 % updates; b: 95/5; c: reads only; f: 50 %
    reads, 50 % read-modify-writes), each phase timed, its throughput and latencies as
    go-ycsb measured them; ``iterations`` times, each load emptying the database first.
    On Kubernetes the server has a pod of its own on the PVC and the client the second."""

    tool: Literal["redis"] = Field(description="redis")
    name: Name = Field(
        description="the workload's name: it names the workload's steps; unique in the campaign"
    )
    records: int = Field(10_000, ge=1, le=100_000_000, description="records loaded")
    operations: int = Field(10_000, ge=1, le=1_000_000_000, description="operations run")
    workload: Literal["a", "b", "c", "f"] = Field("a", description="the YCSB core workload")
    field_length: int = Field(
        100, ge=1, le=1_000_000, description="bytes of each of a record's 10 fields"
    )
    client_threads: int = Field(8, ge=1, le=1024, description="YCSB client threads per consumer")
    appendfsync: Literal["always", "everysec", "no"] = Field(
        "everysec",
        description="when Redis fsyncs its append-only file: every write, once a second "
        "(Redis's default) or when the kernel does",
    )
    iterations: int = Field(1, ge=1, le=1000, description="load and run rounds")
    pace: ProjectPace = Field(
        default_factory=ProjectPace,
        description="k8s target: how fast projects (namespaces) are created and deleted",
    )


TOOL = Tool("redis", RedisWorkload, "app", frozenset({"local", "k8s"}))
