from __future__ import annotations

from harness.core.plan import assign_consumers, plan_steps, role_of
from harness.core.spec import FioWorkload, validate


def test_half_read_half_write():
    workload = FioWorkload(name="w", rw=["randread", "randwrite"])
    consumers = assign_consumers(workload, 4)
    assert [c.rw for c in consumers] == ["randread", "randwrite"] * 2
    assert [c.name for c in consumers] == ["c01", "c02", "c03", "c04"]
    assert consumers[0].jobname == "c01-randread"
    assert [c.role for c in consumers] == ["reader", "writer"] * 2


def test_odd_count_and_wide_names():
    workload = FioWorkload(name="w", rw=["randread", "randwrite"])
    assert sum(c.role == "reader" for c in assign_consumers(workload, 5)) == 3
    assert assign_consumers(workload, 120)[-1].name == "c120"


def test_roles():
    assert (role_of("read"), role_of("write"), role_of("randrw")) == ("reader", "writer", "mixed")


def test_steps_sweep_each_workload_in_order():
    spec = validate(
        {
            "name": "s",
            "target": {"type": "local"},
            "sweep": [2, 4],
            "repeats": 2,
            "workloads": [{"name": "a", "rw": "read"}, {"name": "b", "rw": "write"}],
        }
    )
    ids = [s.id for s in plan_steps(spec)]
    assert ids[:3] == ["001-a-c002-r1", "002-a-c002-r2", "003-a-c004-r1"]
    assert ids[-1] == "008-b-c004-r2"


def test_database_workloads_sweep_threads_inside_each_consumer_count():
    spec = validate(
        {
            "name": "db",
            "target": {"dir": "."},
            "sweep": [1, 2],
            "workloads": [
                {"name": "oltp", "tool": "sysbench-oltp", "test": "read_only", "threads": [1, 8]}
            ],
        }
    )
    steps = plan_steps(spec)
    assert [s.id for s in steps] == [
        "001-oltp-c001-t001-r1",
        "002-oltp-c001-t008-r1",
        "003-oltp-c002-t001-r1",
        "004-oltp-c002-t008-r1",
    ]
    assert [(c.name, c.rw, c.role) for c in steps[3].consumers] == [
        ("c01", "read_only", "reader"),
        ("c02", "read_only", "reader"),
    ]
