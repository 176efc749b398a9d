from __future__ import annotations

from pathlib import Path

import pytest

from harness.campaign import profiles
from harness.core.spec import SpecError, dataset_factor, load, validate

GOOD = {
    "name": "demo",
    "target": {"type": "local", "dir": "/srv/test"},
    "workloads": [{"name": "rw", "rw": ["randread", "randwrite"], "bs": "4k", "iodepth": 64}],
    "sweep": [2, 4, 10, 20, 40],
}


def test_good_spec_gets_defaults():
    spec = validate(GOOD)
    assert spec.workloads[0].mode == "time" and spec.workloads[0].runtime == 60
    assert spec.repeats == 1 and spec.sweep == [2, 4, 10, 20, 40]


def test_single_rw_becomes_a_list():
    data = {**GOOD, "workloads": [{"name": "r", "rw": "randread"}]}
    assert validate(data).workloads[0].rw == ["randread"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"workloads": [{"name": "w", "rw": "randfoo"}]}, "workloads[0].rw: unknown rw 'randfoo'"),
        (
            {"workloads": [{"name": "w", "rw": "read", "iodepth": 0}]},
            "workloads[0].iodepth: Input should be greater than or equal to 1 (got 0)",
        ),
        (
            {"workloads": [{"name": "w", "rw": "read", "bs": "4 kilo"}]},
            "workloads[0].bs: expected a size such as 4k, 1M, 512, 10G (got '4 kilo')",
        ),
        (
            {"workloads": [{"name": "w", "rw": "read", "mode": "time", "runtime": None}]},
            "workloads[0]: mode 'time' needs runtime",
        ),
        (
            {"workloads": [{"name": "w", "rw": "read", "steadystate": {"criterion": "iops"}}]},
            "workloads[0].steadystate.criterion: String should match pattern",
        ),
        (
            {
                "workloads": [
                    {
                        "name": "w",
                        "rw": "read",
                        "mode": "size",
                        "steadystate": {"criterion": "iops:20%", "duration": 5},
                    }
                ]
            },
            "steadystate needs mode 'time'",
        ),
        (
            {"workloads": [{"name": "w", "rw": "read", "start_stagger": -1}]},
            "workloads[0].start_stagger: Input should be greater than or equal to 0",
        ),
        ({"sweep": [2, 0]}, "sweep: consumer count 0 must be at least 1 (got [2, 0])"),
        ({"sweep": [2, 2]}, "sweep: consumer counts repeat"),
        (
            {"target": {"type": "nfs"}},
            "target: unknown target type; one of local, rbd, openstack, k8s, hosts (got "
            "{'type': 'nfs'})",
        ),
        (
            {"target": {"type": "rbd", "health_interval": 0.1}},
            "target.health_interval: Input should be greater than or equal to 0.5 (got 0.1)",
        ),
        ({"name": "a b"}, "name: use letters, digits"),
        ({"runtime": 5}, "runtime: Extra inputs are not permitted (got 5)"),
        (
            {"workloads": [{"name": "w", "rw": "read"}, {"name": "w", "rw": "write"}]},
            "workload names repeat: w",
        ),
    ],
)
def test_errors_name_the_field_and_the_value(change, expected):
    with pytest.raises(SpecError) as info:
        validate({**GOOD, **change}, "spec.yaml")
    assert any(expected in problem for problem in info.value.problems), info.value.problems
    assert str(info.value).startswith("spec.yaml: invalid campaign spec")


def test_missing_field_is_named():
    data = dict(GOOD)
    del data["sweep"]
    with pytest.raises(SpecError, match="sweep: Field required"):
        validate(data)


def test_yaml_errors(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: [unclosed\n")
    with pytest.raises(SpecError, match="broken.yaml: invalid campaign spec:\n  not valid YAML"):
        load(broken)
    with pytest.raises(SpecError, match="cannot read"):
        load(tmp_path / "missing.yaml")
    scalar = tmp_path / "scalar.yaml"
    scalar.write_text("42\n")
    with pytest.raises(SpecError, match="expected a mapping"):
        load(scalar)


@pytest.mark.parametrize("name", profiles.names())
def test_every_profile_makes_a_valid_spec(name, tmp_path):
    spec = profiles.local_spec(name, tmp_path, f"{name}-test")
    assert spec.target.dir == tmp_path.resolve()


def test_profiles_are_the_promised_ones():
    assert profiles.names() == ["bare-host", "matrix", "multi-tenant-oltp", "quick", "reference"]
    bare = profiles.local_spec("bare-host", Path("."), "b")
    assert [(w.tool, getattr(w, "test", "")) for w in bare.workloads] == [
        ("sysbench-fileio", "rndrw"),
        ("sysbench-fileio", "seqrd"),
        ("sysbench-fileio", "seqwr"),
        ("pgbench", ""),
    ]
    tenants = profiles.local_spec("multi-tenant-oltp", Path("."), "m")
    assert tenants.sweep == [1, 2, 4] and tenants.workloads[0].threads == [1, 2, 4, 8]
    reference = profiles.local_spec("reference", Path("."), "r")
    w = reference.workloads[0]
    assert (w.rw, w.bs, w.iodepth, w.runtime) == (["randread", "randwrite"], "4k", 64, 600)
    assert reference.sweep == [2, 4, 10, 20, 40]
    matrix = profiles.load("matrix")
    combos = {(w["rw"], w["bs"], w["iodepth"]) for w in matrix["workloads"]}
    assert len(combos) == 4 * 3 * 2


def test_profile_overrides_and_unknown_profile(tmp_path):
    spec = profiles.local_spec("quick", tmp_path, "q", runtime=1, size="8M")
    assert {(w.runtime, w.size) for w in spec.workloads} == {(1, "8M")}
    # --set dataset sizes the data instead of the profile's scale or table size
    bare = profiles.local_spec("bare-host", tmp_path, "b", settings=["dataset=2x-memory"])
    assert [w.dataset for w in bare.workloads if w.tool == "pgbench"] == ["2x-memory"]
    with pytest.raises(
        SpecError, match="unknown; one of bare-host, matrix, multi-tenant-oltp, quick, reference"
    ):
        profiles.load("nope")


def test_database_workload_errors_name_the_workload_and_field():
    data = {
        "name": "db",
        "target": {"dir": "."},
        "sweep": [1],
        "workloads": [
            {"name": "a", "tool": "pgbenchx"},
            {"name": "b", "tool": "sysbench-fileio", "test": "rnd", "threads": [2, 2]},
            {"name": "c", "tool": "io-pause", "kills": 0},
        ],
    }
    with pytest.raises(SpecError) as caught:
        validate(data)
    assert caught.value.problems == [
        "workloads[0]: unknown tool; one of fio, sysbench-fileio, sysbench-oltp, pgbench, "
        "io-pause, migration, pvc-provision, rally, git, build, redis, broker, or a tool of "
        "your own named in VOLPERF_TOOLS (got {'name': 'a', 'tool': 'pgbenchx'})",
        "workloads[1].test: Input should be 'rndrd', 'rndwr', 'rndrw', 'seqrd' or 'seqwr' "
        "(got 'rnd')",
        "workloads[1].threads: thread counts repeat (got [2, 2])",
        "workloads[2].kills: Input should be greater than or equal to 1 (got 0)",
    ]


def test_a_spec_without_tool_is_fio_as_before():
    spec = validate(
        {
            "name": "f",
            "target": {"dir": "."},
            "sweep": [1],
            "workloads": [{"name": "w", "rw": "read"}],
        }
    )
    assert spec.workloads[0].tool == "fio"
    assert spec.databases.mariadb.options == {"innodb_buffer_pool_size": "128M"}


def test_rbd_target_takes_the_user_with_or_without_client_and_runs_fio_only():
    base = {"name": "r", "workloads": [{"name": "w", "rw": "randread"}], "sweep": [1]}
    spec = validate({**base, "target": {"type": "rbd", "user": "client.cinder"}})
    assert (spec.target.type, spec.target.user, spec.target.pool) == ("rbd", "cinder", "volumes")
    assert spec.target.ceph_conf is None  # resolved when a run starts (harness.planes.ceph.access)
    db = {**base, "target": {"type": "rbd"}, "workloads": [{"name": "pg", "tool": "pgbench"}]}
    with pytest.raises(SpecError) as caught:
        validate(db)
    assert caught.value.problems == [
        "(spec): workloads pg: the rbd target runs fio only (database workloads need a file "
        "system: use a local target on a mounted RBD device)"
    ]


def test_hosts_target_names_its_fio_servers_and_runs_fio_only():
    base = {"name": "f", "workloads": [{"name": "w", "rw": "randread"}], "sweep": [2]}
    hosts = [{"address": "10.0.0.1", "dir": "/mnt/v"}, {"address": "h2", "port": 9000, "dir": "/d"}]
    spec = validate({**base, "target": {"type": "hosts", "hosts": hosts}})
    assert [(h.address, h.port) for h in spec.target.hosts] == [("10.0.0.1", 8765), ("h2", 9000)]
    assert spec.target.allow_existing is False
    bad = [
        ({"hosts": []}, "target.hosts: List should have at least 1 item"),
        ({"hosts": [{"address": "h", "dir": "relative"}]}, "target.hosts[0].dir: String should"),
        ({"hosts": [hosts[0], hosts[0]]}, "hosts repeat: 10.0.0.1,8765"),
    ]
    for target, says in bad:
        with pytest.raises(SpecError) as caught:
            validate({**base, "target": {"type": "hosts", **target}})
        assert any(says in problem for problem in caught.value.problems), caught.value.problems
    db = {**base, "target": {"type": "hosts", "hosts": hosts}}
    with pytest.raises(SpecError) as caught:
        validate({**db, "workloads": [{"name": "pg", "tool": "pgbench"}]})
    assert "workloads pg: the hosts target runs fio only" in caught.value.problems[0]


def test_rally_workloads_and_the_openstack_target_go_together():
    rally = {"name": "cp", "tool": "rally", "times_per_user": 3}
    spec = validate(
        {
            "name": "r",
            "target": {"type": "openstack", "cloud": "c1"},
            "workloads": [rally],
            "sweep": [2, 10],
        }
    )
    assert [spec.workloads[0].times_at(c) for c in (2, 10)] == [6, 30]
    fixed = validate(
        {
            "name": "r",
            "target": {"type": "openstack"},
            "sweep": [2, 10],
            "workloads": [dict(rally, times=5)],
        }
    )
    assert fixed.workloads[0].times_at(10) == 5
    with pytest.raises(SpecError, match="Rally workloads need the openstack target"):
        validate(
            {
                "name": "r",
                "workloads": [rally],
                "sweep": [2],
                "target": {"type": "local", "dir": "/tmp"},
            }
        )
    fio = {"name": "fio4k", "rw": "randread", "runtime": 1}
    with pytest.raises(
        SpecError,
        match="workloads fio4k: fio on an openstack target runs in "
        "VMs that Heat creates: give target.heat",
    ):
        validate(
            {"name": "r", "target": {"type": "openstack"}, "sweep": [2], "workloads": [rally, fio]}
        )
    both = validate(
        {
            "name": "r",
            "sweep": [2],
            "workloads": [rally, fio],
            "target": {"type": "openstack", "heat": {"image": "tiny", "flavor": "tiny"}},
        }
    )
    assert [w.tool for w in both.workloads] == ["rally", "fio"]
    with pytest.raises(SpecError, match=r"times_per_user: Input should be greater than or equal"):
        validate(
            {
                "name": "r",
                "target": {"type": "openstack"},
                "sweep": [2],
                "workloads": [dict(rally, times_per_user=0)],
            }
        )


def test_k8s_target_takes_database_and_provisioning_workloads_but_not_fileio():
    target = {"type": "k8s", "storage_class": "fast"}
    ok = validate(
        {
            "name": "k",
            "target": target,
            "sweep": [2],
            "workloads": [
                {"name": "p", "tool": "pvc-provision", "pvcs": 3},
                {"name": "o", "tool": "sysbench-oltp"},
                {"name": "g", "tool": "pgbench"},
                {"name": "i", "tool": "io-pause"},
            ],
        }
    )
    assert ok.workloads[0].pvcs == 3 and ok.target.mariadb_image.startswith("registry.local/")
    assert ok.target.start_together  # pods start fio together unless told otherwise
    with pytest.raises(SpecError, match=r"workloads h: histogram_logs is for the local and rbd"):
        validate(
            {
                "name": "k",
                "target": target,
                "sweep": [2],
                "workloads": [{"name": "h", "rw": "randread", "histogram_logs": True}],
            }
        )
    fileio = {"name": "f", "tool": "sysbench-fileio", "test": "rndrd"}
    ok = validate({"name": "k", "target": target, "sweep": [1], "workloads": [fileio]})
    assert ok.workloads[0].tool == "sysbench-fileio"  # in a pod, on its PVC
    # the tools the registry says run on k8s, named
    runs = "fio, sysbench-fileio, sysbench-oltp, pgbench, io-pause, migration, pvc-provision, "
    with pytest.raises(SpecError, match=rf"workloads r: the k8s target runs {runs}git, build, "):
        validate(
            {
                "name": "k",
                "target": target,
                "sweep": [1],
                "workloads": [{"name": "r", "tool": "rally", "times_per_user": 1}],
            }
        )
    with pytest.raises(SpecError, match=r"workloads p: pvc-provision needs the k8s target"):
        validate(
            {
                "name": "k",
                "target": {"type": "local", "dir": "."},
                "sweep": [1],
                "workloads": [{"name": "p", "tool": "pvc-provision"}],
            }
        )


def test_a_migration_needs_the_k8s_target_and_a_crash_its_commands():
    def spec(target: dict, **workload) -> dict:
        move = {"name": "m", "tool": "migration", "failure": "drain", **workload}
        return {"name": "m", "target": target, "sweep": [2], "workloads": [move]}

    k8s = {"type": "k8s", "storage_class": "ceph-fs"}
    drain = validate(spec(k8s)).workloads[0]
    assert (drain.node, drain.threads, drain.recovery_timeout) == (None, [4], 300)
    with pytest.raises(SpecError, match=r"workloads m: migration needs the k8s target"):
        validate(spec({"type": "local", "dir": "."}))
    with pytest.raises(SpecError, match=r"failure crash needs crash_command and restore_command"):
        validate(spec(k8s, failure="crash", crash_command=["stop", "{node}"]))
    with pytest.raises(SpecError, match=r"failure"):
        validate(spec(k8s, failure="reboot"))
    crash = ["volperf", "testbed", "crash-node", "k8s", "{node}"]
    ok = validate(spec(k8s, failure="crash", crash_command=crash, restore_command=["true"]))
    assert ok.workloads[0].crash_command == crash


def test_dataset_sizing_against_memory():
    def spec(workload: dict, target: dict | None = None) -> dict:
        return {
            "name": "d",
            "target": target or {"dir": "."},
            "sweep": [1],
            "workloads": [{"name": "o", "tool": "sysbench-oltp"} | workload],
        }

    sized = validate(spec({"dataset": "2x-memory"}))
    assert sized.workloads[0].dataset == "2x-memory"
    assert dataset_factor("1.5x-memory") == 1.5
    # a stored spec (defaults written out) validates again
    assert validate(sized.to_dict()).workloads[0].dataset == "2x-memory"
    problems = {
        "2xmemory": "workloads[0].dataset: expected N x the memory, written like 2x-memory",
        "0x-memory": "workloads[0].dataset: expected N x the memory",
    }
    for value, problem in problems.items():
        with pytest.raises(SpecError) as caught:
            validate(spec({"dataset": value}))
        assert caught.value.problems[0].startswith(problem)
    with pytest.raises(SpecError, match="give table_size or dataset, not both"):
        validate(spec({"dataset": "2x-memory", "table_size": 5}))
    with pytest.raises(SpecError, match="give scale or dataset, not both"):
        validate(spec({"tool": "pgbench", "dataset": "2x-memory", "scale": 5}))
    k8s = {"type": "k8s", "storage_class": "fast", "db_memory_limit": "2Gi"}
    assert validate(spec({"dataset": "2x-memory"}, k8s)).target.db_memory_limit == "2Gi"
    with pytest.raises(SpecError, match="target.db_memory_limit"):
        validate(spec({}, {**k8s, "db_memory_limit": "2 GB"}))


def test_an_open_ended_sweep_grows_by_its_factor_up_to_max():
    spec = validate({**GOOD, "sweep": {"start": 1, "factor": 2, "max": 250}})
    assert spec.counts == [1, 2, 4, 8, 16, 32, 64, 128, 250]
    assert spec.stop_when is None and spec.space_count == 250
    seed = validate({**GOOD, "sweep": {"counts": [1, 10, 50, 100, 250]}})
    assert seed.counts == [1, 10, 50, 100, 250]
    assert validate({**GOOD, "sweep": {"start": 3, "factor": 1.2, "max": 6}}).counts == [3, 4, 5, 6]


def test_a_sweep_that_stops_where_space_runs_out_needs_room_for_its_first_step_only():
    rules = {"no_space": True, "failures_above_pct": 10}
    spec = validate({**GOOD, "sweep": {"counts": [2, 4, 8], "stop_when": rules}})
    assert spec.stop_when is not None and spec.stop_when.failures_above_pct == 10
    assert spec.space_count == 2
    other = validate({**GOOD, "sweep": {"counts": [2, 4], "stop_when": {"failures_above_pct": 5}}})
    assert other.space_count == 4


@pytest.mark.parametrize(
    ("sweep", "expected"),
    [
        ({"start": 4}, "sweep: give counts, or start and max (got {'start': 4})"),
        ({"counts": [4, 2]}, "sweep: counts must grow"),
        ({"counts": [1], "start": 1, "max": 2}, "sweep: give counts, or start and max, not both"),
        ({"start": 8, "max": 4}, "sweep: max 4 is below start 8"),
        ({"start": 1, "max": 4, "factor": 1}, "sweep.factor: Input should be greater than 1"),
        (
            {"counts": [1], "stop_when": {"no_room": True}},
            "sweep.stop_when.no_room: Extra inputs are not permitted",
        ),
    ],
)
def test_open_sweep_errors_name_the_field(sweep, expected):
    with pytest.raises(SpecError) as info:
        validate({**GOOD, "sweep": sweep})
    assert [p for p in info.value.problems if p.startswith(expected)], info.value.problems
    assert len(info.value.problems) == 1  # only the form given is reported


RATED = {"name": "r", "rw": "randread", "rate_iops": 200}
SEARCH = {"start": 3, "max": 64, "search": {"p99_ms": 20}}


def test_a_capacity_search_asks_its_workloads_for_a_rate_spaced_as_poisson():
    from harness.core.plan import plan_steps

    spec = validate({**GOOD, "workloads": [RATED], "sweep": SEARCH})
    assert spec.search is not None and spec.search.achieved_pct == 95
    assert spec.space_count == 64  # its files made room for the most it may try
    assert plan_steps(spec) == []  # it chooses its counts as it goes
    steps = plan_steps(spec, {"r": [3, 6, 4]})
    assert [(s.id, s.workload.rate_process) for s in steps] == [
        ("001-r-c003-r1", "poisson"),
        ("002-r-c006-r1", "poisson"),
        ("003-r-c004-r1", "poisson"),
    ]
    linear = validate({**GOOD, "workloads": [{**RATED, "rate_process": "linear"}], "sweep": SEARCH})
    assert plan_steps(linear, {"r": [3]})[0].workload.rate_process == "linear"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"workloads": [{"name": "r", "rw": "randread"}]}, "workloads r: a capacity search"),
        (
            {"workloads": [{**RATED, "rw": ["randrw"]}]},
            "workloads r: a capacity search asks each consumer for rate_iops of reads or of writes",
        ),
        ({"workloads": [RATED], "repeats": 3}, "a capacity search runs each count once"),
        (
            {"workloads": [RATED], "sweep": {"counts": [1, 2], "search": {"p99_ms": 1}}},
            "sweep: a search chooses its counts",
        ),
        (
            {"workloads": [RATED], "sweep": {**SEARCH, "stop_when": {"no_space": True}}},
            "sweep: a search ends by its objective",
        ),
        (
            {"workloads": [RATED], "sweep": {**SEARCH, "search": {"p99_ms": 0}}},
            "sweep.search.p99_ms: Input should be greater than 0",
        ),
        (
            {"workloads": [{"name": "r", "rw": "read", "rate_process": "poisson"}], "sweep": [1]},
            "workloads[0]: rate_process spaces a rate: give rate_iops too",
        ),
    ],
)
def test_capacity_search_errors_name_the_field(change, expected):
    with pytest.raises(SpecError) as info:
        validate({**GOOD, "sweep": SEARCH, **change})
    assert [p for p in info.value.problems if p.startswith(expected) or expected in p], (
        info.value.problems
    )


def test_a_relative_local_dir_is_under_the_current_directory_and_an_absolute_one_as_written(
    tmp_path, monkeypatch
):
    base = {"name": "d", "workloads": [{"name": "w", "rw": "randread"}], "sweep": [1]}
    monkeypatch.chdir(tmp_path)
    relative = validate({**base, "target": {"type": "local", "dir": "data/under-test"}})
    assert relative.target.dir == tmp_path / "data" / "under-test"
    (tmp_path / "link").symlink_to(tmp_path / "data", target_is_directory=True)
    written = validate({**base, "target": {"type": "local", "dir": str(tmp_path / "link")}})
    assert written.target.dir == tmp_path / "link"  # not resolved through the link
    assert validate({**base, "target": {"type": "local"}}).target.dir is None


def test_an_rbd_workload_takes_faults_timed_within_its_run_and_says_them():
    stop = {"action": "stop-osd", "osd": 1, "at": 10}
    pause = {"action": "pause-osd", "osd": 2, "at": 40, "seconds": 5}
    base = {
        "name": "r",
        "target": {"type": "rbd"},
        "workloads": [{"name": "w", "rw": "randwrite", "runtime": 60, "faults": [stop, pause]}],
        "sweep": [1],
    }
    spec = validate(base)
    assert [f.label for f in spec.workloads[0].faults] == [
        "stop-osd osd.1 at +10 s",
        "pause-osd osd.2 at +40 s for 5 s",
    ]
    assert spec.target.allow_faults is False
    from harness.core.workloads.fio import describe

    assert "faults injected in each step: stop-osd osd.1 at +10 s, pause-osd osd.2 at +40 s " in (
        describe(spec.workloads[0].model_dump())
    )


@pytest.mark.parametrize(
    "fault, target, expected",
    [
        (
            {"action": "stop-osd", "osd": 1, "at": 60},
            "rbd",
            "faults stop-osd osd.1 at +60 s: not within the measured run (60 s with its ramp)",
        ),
        (
            {"action": "pause-osd", "osd": 1, "at": 50, "seconds": 10},
            "rbd",
            "faults pause-osd osd.1 at +50 s for 10 s: not within the measured run",
        ),
        ({"action": "pause-osd", "osd": 1, "at": 5}, "rbd", "pause-osd needs seconds"),
        (
            {"action": "stop-osd", "osd": 1, "at": 5, "seconds": 3},
            "rbd",
            "stop-osd takes no seconds (pause-osd does)",
        ),
        (
            {"action": "crash-osd", "osd": 1, "at": 5},
            "rbd",
            "workloads[0].faults[0]: Input tag 'crash-osd' found using 'action' does not match "
            "any of the expected tags: 'stop-osd'",
        ),
        (
            {"action": "stop-osd", "osd": 1, "at": 5},
            "local",
            "workloads w: faults act on Ceph's OSDs: the rbd target only",
        ),
        (
            {"action": "crash-node", "node": "n2", "at": 5},
            "rbd",
            "workloads w: faults act on Kubernetes' nodes: the k8s target only",
        ),
        (
            {"action": "crash-node", "node": "n2", "at": 5, "seconds": 3},
            "k8s",
            "workloads[0].faults[0].crash-node.seconds: Extra inputs are not permitted",
        ),
        (
            {"action": "drain-node", "node": "", "at": 5},
            "k8s",
            "workloads[0].faults[0].drain-node.node: String should have at least 1 character",
        ),
        (  # a service's fault is a Rally workload's, not a fio step's
            {"action": "stop-service", "service": "cinder-volume", "at": 5},
            "rbd",
            "workloads[0].faults[0]: Input tag 'stop-service' found using 'action' does not "
            "match any of the expected tags",
        ),
    ],
)
def test_fault_errors_name_the_fault(fault, target, expected):
    options = {"local": {"dir": "/tmp"}, "k8s": {"storage_class": "sc"}}
    data = {
        "name": "r",
        "target": {"type": target, **options.get(target, {})},
        "workloads": [{"name": "w", "rw": "randwrite", "runtime": 60, "faults": [fault]}],
        "sweep": [1],
    }
    with pytest.raises(SpecError) as info:
        validate(data)
    assert any(expected in problem for problem in info.value.problems), info.value.problems


def test_a_rally_workloads_faults_need_the_cluster_the_target_samples(tmp_path):
    stop = {"action": "stop-osd", "osd": 0, "at": 10}
    base = {
        "name": "r",
        "sweep": [2],
        "workloads": [{"name": "cp", "tool": "rally", "faults": [stop]}],
    }
    with pytest.raises(SpecError) as info:
        validate({**base, "target": {"type": "openstack"}})
    assert any(
        "workloads cp: OSD faults act on Ceph's OSDs: the openstack target needs ceph_conf"
        in problem
        for problem in info.value.problems
    ), info.value.problems
    conf = str(tmp_path / "ceph.conf")
    spec = validate({**base, "target": {"type": "openstack", "ceph_conf": conf}})
    assert [f.label for f in spec.workloads[0].faults] == ["stop-osd osd.0 at +10 s"]
    assert spec.target.allow_faults is False
    late = {**stop, "at": 2.5}
    target = {"type": "openstack", "ceph_conf": conf}
    with pytest.raises(SpecError) as info:
        validate(
            {**base, "target": target, "workloads": [{**base["workloads"][0], "faults": [late]}]}
        )
    assert any(
        "faults stop-osd osd.0 at +2.5 s: Rally's time trigger fires on whole seconds" in problem
        for problem in info.value.problems
    ), info.value.problems
    from harness.core.workloads.rally import describe

    assert "faults given in each of the task's workloads (seconds after it starts): stop-osd " in (
        describe(spec.workloads[0].model_dump())
    )


def test_a_rally_workload_takes_a_cinder_service_fault_without_ceph_conf():
    stop = {"action": "stop-service", "service": "cinder-volume", "at": 5}
    start = {"action": "start-service", "service": "cinder-volume", "at": 80}
    spec = validate(
        {
            "name": "r",
            "sweep": [2],
            "target": {"type": "openstack"},
            "workloads": [{"name": "cp", "tool": "rally", "faults": [stop, start]}],
        }
    )
    assert [f.label for f in spec.workloads[0].faults] == [
        "stop-service cinder-volume at +5 s",
        "start-service cinder-volume at +80 s",
    ]
    with pytest.raises(SpecError) as info:
        validate(
            {
                "name": "r",
                "sweep": [2],
                "target": {"type": "openstack"},
                "workloads": [
                    {"name": "cp", "tool": "rally", "faults": [{**stop, "service": "nova-api"}]}
                ],
            }
        )
    assert any(
        "workloads[0].faults[0].stop-service.service: Input should be 'cinder-volume'" in problem
        for problem in info.value.problems
    ), info.value.problems
