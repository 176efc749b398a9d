from __future__ import annotations

from harness.report import tables

STEP = {
    "step": "001-w-c002-r1",
    "concurrency": 2,
    "state": "done",
    "read": {
        "iops_avg": 1000.4,
        "iops_sum": 1000.4,
        "bandwidth_avg": 4001.6,
        "bandwidth_sum": 4001.6,
        "clat_mean_avg": 0.51234,
        "p95_consumer_mean": 0.9,
        "p95_merged": 0.9,
        "p99_merged": 1.2,
        "p99_consumer_mean": 1.2,
        "clat_max": 5.0,
        "ceilings": {},
    },
    "write": {
        "iops_avg": None,
        "iops_sum": None,
        "p95_consumer_mean": None,
        "ceilings": {
            "iops_avg": "rate cap",
            "iops_sum": "rate cap",
            "p95_consumer_mean": "top bucket",
        },
    },
    "overlap": 0.85,
    "overlap_estimated": True,
    "device": {"device_iops": 990.0, "fio_iops": 1000.0, "iops_gap": 0.01},
    "host": {"cpu_busy": 0.25},
    "warnings": [{"code": "low-overlap", "message": "consumers ran together for only 85%"}],
}


def test_cell():
    assert tables.cell(1.23456, 3) == "1.235"
    assert tables.cell(None) == "–"
    assert tables.cell(None, ceiling="why") == "≥ ceiling"


def test_figure_marks_ceilings_and_scales():
    assert tables.figure(STEP, "read", "bandwidth_sum", 1, 1 / 1024) == "3.9"
    assert tables.figure(STEP, "write", "iops_sum") == "≥ ceiling"
    assert tables.figure({"read": None}, "read", "iops_sum") == "–"


def test_average_and_sum_rows():
    assert tables.average_rows([STEP]) == [
        ["2", "1000", "≥ ceiling", "3.9", "–", "0.512", "–", "0.900", "≥ ceiling"]
    ]
    assert tables.sum_rows([STEP]) == [["2", "1000", "≥ ceiling", "3.9", "–"]]


def test_tail_rows_one_per_direction_that_ran():
    rows = tables.tail_rows([STEP])
    assert rows[0] == ["2", "read", "0.900", "0.900", "1.200", "1.200", "5.000"]
    assert len(rows) == 2


def test_run_rows():
    assert tables.run_rows([STEP]) == [
        ["001-w-c002-r1", "2", "done", "85% (est.)", "990", "1000", "1.0%", "25%", "–"]
    ]
    stalled = {"count": 2, "longest_s": 3.04, "total_s": 4.5}
    assert tables.run_rows([{**STEP, "stalls": stalled}])[0][-1] == (
        "2: longest 3.0 s, 4.5 s in all"
    )
    assert tables.stall_cell({"count": 0}) == "0"


def test_warning_items_include_failed_steps():
    failed = {"step": "002", "state": "failed", "error": "fio exited 1", "warnings": []}
    assert tables.warning_items([STEP, failed]) == [
        "001-w-c002-r1: consumers ran together for only 85%",
        "002: step failed: fio exited 1",
    ]


def test_node_rows_give_mean_and_peak_of_each_nodes_busiest_disk_and_interface():
    disk = {
        "device": "vda",
        "iops_mean": 78307.5,
        "iops_peak": 80145.1,
        "kib_s_mean": 313230.0,
        "kib_s_peak": 320580.4,
        "util_mean": 0.869,
        "util_peak": 0.895,
        "await_ms": 0.1449,
    }
    net = {
        "interface": "eth0",
        "rx_kib_s_mean": 512.0,
        "rx_kib_s_peak": 1024.0,
        "tx_kib_s_mean": 0.0,
        "tx_kib_s_peak": 0.0,
    }
    node = {
        "node": "n1",
        "seconds": 4.02,
        "cpu_busy_mean": 0.2568,
        "cpu_busy_peak": 0.31,
        "mem_used_mean_kib": 1024**2,
        "mem_used_peak_kib": 1.5 * 1024**2,
        "disks": [disk, {**disk, "device": "loop0"}],
        "nets": [net],
    }
    idle = {**node, "node": "n2", "disks": [], "nets": []}
    steps = [{"step": "001", "nodes": [node, idle]}, {"step": "002", "nodes": None}]
    assert tables.node_rows(steps) == [
        [
            "001",
            "n1",
            "4.0",
            "26 / 31",
            "1.00 / 1.50",
            "vda",
            "78308 / 80145",
            "305.9 / 313.1",
            "87 / 90",
            "0.14",
            "eth0",
            "0.50 / 1.00",
            "0.00 / 0.00",
        ],
        ["001", "n2", "4.0", "26 / 31", "1.00 / 1.50", "–", "–", "–", "–", "–", "–", "–", "–"],
    ]


def test_osd_rows_give_each_osds_operations_bytes_and_latency():
    osd = {
        "osd": "osd.0",
        "seconds": 3.98,
        "reads_s_mean": 1500.4,
        "reads_s_peak": 2100.0,
        "writes_s_mean": 800.0,
        "writes_s_peak": 950.2,
        "read_kib_s_mean": 6001.6,
        "write_kib_s_mean": 3200.0,
        "read_ms": 0.4567,
        "write_ms": None,
    }
    steps = [{"step": "001", "ceph_osds": [osd]}, {"step": "002"}]
    assert tables.osd_rows(steps) == [
        ["001", "osd.0", "4.0", "1500 / 2100", "800 / 950", "5.9", "3.1", "0.46", "–"]
    ]


def test_qos_rows_give_each_vms_limits_beside_its_measured_rates():
    qos = {
        "c02": {
            "volume_type": "limited",
            "qos_consumer": "front-end",
            "limits": {"total_iops_sec": 150.0, "write_bytes_sec": 1048576.0},
            "measured": {"total_iops_sec": 180.4, "write_bytes_sec": 738918.4},
            "exceeded": ["total_iops_sec"],
        },
        "c01": {
            "volume_type": "__DEFAULT__",
            "qos_consumer": "",
            "limits": {},
            "measured": {},
            "exceeded": [],
        },
    }
    steps = [{"concurrency": 2, "heat": {"qos": qos}}, {"concurrency": 4, "heat": {}}, {}]
    assert tables.qos_rows(steps) == [
        ["2", "c01", "__DEFAULT__", "none", "–", "–", "–"],
        [
            "2",
            "c02",
            "limited",
            "front-end",
            "total_iops_sec 150; write_bytes_sec 1,048,576",
            "180; 738,918",
            "exceeded: total_iops_sec",
        ],
    ]


def _rally_step(faults, healed):
    phase = {
        "state": "degraded",
        "start_s": 3.0,
        "seconds": 7.0,
        "iterations": 26,
        "failed": 1,
        "median_s": 0.5,
        "max_s": None,
    }
    workload = {
        "scenario": "Dummy.dummy",
        "phases": {"phases": [phase], "faults": faults, "fault_to_healed_s": healed},
    }
    return {"step": "001-task", "rally": {"workloads": [workload, {"scenario": "Other"}]}}


def test_rally_phase_rows_and_fault_lines_of_the_workloads_given_faults_only():
    given = {"fault": "stop-osd osd.0", "action": "stop-osd", "at_s": 2.0, "commands": ["kill"]}
    failed = {"fault": "out osd.9", "action": "out", "at_s": None, "commands": [], "error": "no"}
    steps = [_rally_step([given | {"error": None}, failed], 12.5), {"step": "002-fio"}]
    assert tables.rally_phase_rows(steps) == [
        ["001-task", "Dummy.dummy", "degraded", "3.0", "7.0", "26", "1", "0.50", ""]
    ]
    assert tables.rally_fault_lines(steps) == [
        "001-task, Dummy.dummy: stop-osd osd.0 (stop-osd): given at +2.0 s: kill",
        "001-task, Dummy.dummy: out osd.9 (out): NOT given as asked: no",
        "001-task, Dummy.dummy: healed 12.5 s after the first fault",
    ]
    assert tables.rally_fault_lines([_rally_step([], None)])[-1].endswith(
        "not healed by the workload's end"
    )


def test_the_rally_phases_say_how_their_backend_said_its_states():
    from harness.planes.ceph.phases import WORDS as CEPH
    from harness.planes.rally.service_states import WORDS as CINDER

    kept = _rally_step([], None)  # a workload kept before its phases named their source
    cinder = _rally_step([], None)
    cinder["rally"]["workloads"][0]["phases"]["states_from"] = CINDER
    assert tables.rally_phase_sources([kept]) == [CEPH]
    assert tables.rally_phase_sources([kept, cinder, {"step": "002-fio"}]) == sorted([CEPH, CINDER])
