"""Where a fleet's consumers run, and what fio's client said of a host that did not
answer (its real stderr: tools/fio/fixtures/client/capture.sh)."""

from __future__ import annotations

from pathlib import Path

from harness.core.plan import assign_consumers
from harness.core.spec import FioHost, FioWorkload
from harness.planes.hosts.fleet import by_host, hosts_of, place, reported_name, server, unanswered

CLIENT = Path(__file__).parents[2] / "tools" / "fio" / "fixtures" / "client"


def test_consumers_go_over_the_hosts_in_turn_each_on_its_own_file():
    hosts = [FioHost(address=a, dir="/mnt/v/") for a in ("h1", "h2")]
    consumers = assign_consumers(FioWorkload(name="w", rw=["randread", "randwrite"]), 5)
    placed = place(consumers, hosts, "camp")
    assert [(p.consumer.name, p.host.address, p.position) for p in placed] == [
        ("c01", "h1", 0),
        ("c02", "h2", 1),
        ("c03", "h1", 2),
        ("c04", "h2", 3),
        ("c05", "h1", 4),
    ]
    assert placed[2].filename == "/mnt/v/volperf-camp-c03.dat"
    assert placed[2].key == "h1,8765:/mnt/v/volperf-camp-c03.dat"
    assert [[p.consumer.name for p in g] for g in by_host(placed).values()] == [
        ["c01", "c03", "c05"],
        ["c02", "c04"],
    ]
    assert hosts_of(placed) == {"h1,8765": "h1", "h2,8765": "h2"}


def test_fios_client_names_a_server_by_its_address_without_the_protocol():
    assert reported_name(FioHost(address="ip:10.1.1.1", dir="/d")) == "10.1.1.1"
    assert reported_name(FioHost(address="ip6:fd00::1", dir="/d")) == "fd00::1"
    assert server(FioHost(address="ip6:fd00::1", port=9000, dir="/d")) == "ip6:fd00::1,9000"


def test_a_server_that_did_not_answer_is_named_with_the_clients_reason():
    hosts = {"127.0.0.2,8765": "127.0.0.2", "127.0.0.9,8765": "127.0.0.9"}
    out = CLIENT / "fio-3.33-client-absent.json"
    missing = unanswered(out, [CLIENT / "fio-3.33-client-absent.err"], hosts)
    assert missing == {
        "127.0.0.9,8765": "its fio server at 127.0.0.9,8765 did not answer (fio: connect: "
        "Connection refused; fio: failed to connect to 127.0.0.9:8765)"
    }
    # no stderr at all: still named, with the client's silence said
    missing = unanswered(out, [CLIENT / "no-such.err"], hosts)
    assert "printed nothing" in missing["127.0.0.9,8765"]
