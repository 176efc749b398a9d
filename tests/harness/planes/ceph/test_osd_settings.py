"""The OSDs' settings a campaign keeps: librados' answers as a real testbed gave them
(fixtures/capture_osd_settings.py), played back by a cluster that answers as it did, with
OSDs that disagree, are down or refuse."""

from __future__ import annotations

import errno
import json
from pathlib import Path

from harness.planes.ceph.osd_settings import OSD_SETTINGS, agreed, osd_settings, up_osds

FIXTURES = Path(__file__).parent / "fixtures" / "osd-settings"


def answer(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


class AnsweringCluster:
    """Answers `osd dump` and `config get` as the captured testbed did; ``osds`` the OSDs
    in its map (up or not), ``values`` any OSD's own value of a setting, ``refusing`` the
    OSDs that answer EACCES. Every OSD asked is noted."""

    def __init__(self, osds: dict[int, bool], values=None, refusing=()):
        dump = json.loads(answer("osd-dump.json"))
        [model] = dump["osds"]
        dump["osds"] = [{**model, "osd": n, "up": int(up)} for n, up in osds.items()]
        self.dump = json.dumps(dump).encode()
        self.values = values or {}
        self.refusing = set(refusing)
        self.asked: list[tuple[int, str]] = []

    def mon_command(self, command: str, _input: bytes, timeout: int):
        assert json.loads(command)["prefix"] == "osd dump"
        return 0, self.dump, ""

    def osd_command(self, osd: int, command: str, _input: bytes, timeout: int):
        asked = json.loads(command)
        assert asked["prefix"] == "config get" and asked["format"] == "json"
        self.asked.append((osd, asked["var"]))
        if osd in self.refusing:
            return -errno.EACCES, b"", "access denied"
        if (osd, asked["var"]) in self.values:
            return 0, json.dumps({asked["var"]: self.values[osd, asked["var"]]}).encode(), ""
        return 0, answer(f"config-get-{asked['var']}.json"), ""


def captured(name: str) -> str:
    return json.loads(answer(f"config-get-{name}.json"))[name]


def test_the_testbeds_osd_says_its_scheduler_and_profile():
    # what a pacific OSD runs with by default, as the testbed's said it
    assert captured("osd_op_queue") == "wpq"
    assert captured("osd_mclock_profile") == "high_client_ops"
    assert osd_settings(AnsweringCluster({0: True, 1: True, 2: True})) == {
        "osd_op_queue": "wpq",
        "osd_mclock_profile": "high_client_ops",
    }


def test_only_the_up_osds_are_asked():
    cluster = AnsweringCluster({0: True, 1: False, 2: True})
    assert up_osds(cluster) == [0, 2]
    osd_settings(cluster)
    assert cluster.asked == [(o, n) for n in OSD_SETTINGS for o in (0, 2)]


def test_osds_that_disagree_are_each_named():
    values = {(2, "osd_op_queue"): "mclock_scheduler"}
    found = osd_settings(AnsweringCluster({0: True, 1: True, 2: True}, values))
    assert found["osd_op_queue"] == "wpq (osd.0, osd.1); mclock_scheduler (osd.2)"
    assert found["osd_mclock_profile"] == "high_client_ops"


def test_an_osd_that_refuses_is_left_out_and_none_answering_states_nothing():
    found = osd_settings(AnsweringCluster({0: True, 1: True}, refusing={1}))
    assert found == {"osd_op_queue": "wpq", "osd_mclock_profile": "high_client_ops"}
    assert osd_settings(AnsweringCluster({0: True}, refusing={0})) == {}
    assert osd_settings(AnsweringCluster({0: False})) == {}


def test_one_value_or_each_with_its_osds():
    assert agreed({}) is None
    assert agreed({3: "a", 1: "a"}) == "a"
    assert agreed({3: "a", 1: "b", 2: "a"}) == "b (osd.1); a (osd.2, osd.3)"
