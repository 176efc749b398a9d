"""Remove what a campaign created, from its created.json, even after a crash.

Servers go first (a process is only killed if its command line still names the data
directory it was started on, so a recycled pid is left alone), then files and
directories volperf made, then RBD images: those noted, and any other image in a noted
pool that carries the campaign's tag; then what Rally tasks left in their cloud. A user's
file or a device region stays; only the note goes. What cannot be removed now (a cluster
that does not answer) stays noted, and the returned list says so in a line starting with
"NOT removed".
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
from pathlib import Path
from typing import Any

from harness.core.store import CampaignStore
from harness.host.process import command_line

DELETE_WAIT_S = 600


def _kill_server(pid: int, marker: str) -> bool:
    if marker and marker in command_line(pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        return True
    return False


def remove_created(store: CampaignStore) -> list[str]:
    removed: list[str] = []
    created = store.created()
    processes = {k: v for k, v in created.items() if v.get("kind") == "process"}
    for resource, details in processes.items():
        if _kill_server(int(details["pid"]), str(details.get("marker", ""))):
            removed.append(f"{resource} ({details.get('marker')})")
        store.forget_created(resource)
    rbd = {k: v for k, v in created.items() if str(v.get("kind", "")).startswith("rbd-")}
    rally = {k: v for k, v in created.items() if v.get("kind") == "rally-task"}
    heat = {k: v for k, v in created.items() if str(v.get("kind", "")).startswith("heat-")}
    k8s = {k: v for k, v in created.items() if v.get("kind") == "k8s-namespace"}
    for resource, details in created.items():
        kind = details.get("kind")
        if (
            kind == "process"
            or resource in rbd
            or resource in rally
            or resource in heat
            or (resource in k8s)
        ):
            continue
        if details.get("ours", False):
            if kind == "file":
                Path(resource).unlink(missing_ok=True)
                removed.append(resource)
            elif kind == "directory":
                shutil.rmtree(resource, ignore_errors=True)
                removed.append(resource)
        store.forget_created(resource)
    # stacks before images: Heat deletes their Cinder volumes (RBD images) itself
    removed += _remove_heat_stacks(store, heat) + _remove_k8s_namespaces(store, k8s)
    return removed + _remove_rbd_images(store, rbd) + _remove_rally_leftovers(store, rally)


def _openstack_connection(note: dict) -> Any:
    from openstack import connection

    from harness.core.spec import OpenStackTarget
    from harness.planes.cloud import cloud_region

    target = OpenStackTarget(
        type="openstack",
        cloud=note["cloud"],
        clouds_yaml=Path(note["clouds_yaml"]) if note["clouds_yaml"] else None,
    )
    return connection.Connection(config=cloud_region(target))


def _remove_heat_stacks(store: CampaignStore, notes: dict[str, dict]) -> list[str]:
    from harness.planes.heat.cleanup import delete_and_wait, find

    removed: list[str] = []
    for cloud in sorted({(n["cloud"], n["clouds_yaml"]) for n in notes.values()}):
        here = {k: n for k, n in notes.items() if (n["cloud"], n["clouds_yaml"]) == cloud}
        names = [n["name"] for n in here.values() if n["kind"] == "heat-stack"]
        tags = [n["tag"] for n in here.values() if n["kind"] == "heat-tag"]
        try:
            conn = _openstack_connection(next(iter(here.values())))
            gone, left = delete_and_wait(conn, find(conn, names, tags), DELETE_WAIT_S)
        except Exception as exc:
            why = f"{type(exc).__name__}: {exc}"
            removed.append(
                f"NOT removed: the Heat stacks of cloud {cloud[0]} ({why}); run "
                "`volperf cleanup` again"
            )
            continue
        removed += [f"stack {path.split('/')[1]} (cloud {cloud[0]})" for path in gone]
        removed += [f"NOT removed: {line}; run `volperf cleanup` again" for line in left]
        if not left:
            for key in here:
                store.forget_created(key)
    return removed


def _remove_k8s_namespaces(store: CampaignStore, notes: dict[str, dict]) -> list[str]:
    """Namespaces noted, and any other labelled with the campaign (their pods and PVCs
    go with them)."""
    from harness.planes.k8s.cluster import LABEL, api_client, delete_namespace, k8s_name

    removed: list[str] = []
    for kubeconfig in sorted({n["kubeconfig"] for n in notes.values()}):
        here = {k: n for k, n in notes.items() if n["kubeconfig"] == kubeconfig}
        try:
            from kubernetes import client

            core = client.CoreV1Api(api_client(Path(kubeconfig)))
            names = {n["namespace"] for n in here.values()}
            for campaign in {n["campaign"] for n in here.values()}:
                listed = core.list_namespace(label_selector=f"{LABEL}={k8s_name(campaign)}")
                names |= {ns.metadata.name for ns in listed.items}
            left = [ns for ns in sorted(names) if not delete_namespace(core, ns, DELETE_WAIT_S)]
        except Exception as exc:
            removed.append(
                f"NOT removed: namespaces of {kubeconfig} ({type(exc).__name__}: "
                f"{exc}); run `volperf cleanup` again"
            )
            continue
        removed += [f"namespace {ns}" for ns in sorted(names) if ns not in left]
        removed += [f"NOT removed: namespace {ns} still deleting" for ns in left]
        if not left:
            for key in here:
                store.forget_created(key)
    return removed


def _remove_rally_leftovers(store: CampaignStore, notes: dict[str, dict]) -> list[str]:
    if not notes:
        return []
    from harness.planes.rally.cleanup import owner_ids, remove_task_leftovers

    removed: list[str] = []
    for key, note in sorted(notes.items()):
        try:
            owners = owner_ids(Path(note["rally_dir"]), note["uuid"])
            conn = _openstack_connection(note)
            removed += [
                f"{line} (Rally task {note['uuid']})"
                for line in remove_task_leftovers(conn, owners)
            ]
        except Exception as exc:
            removed.append(
                f"NOT removed: what Rally task {note['uuid']} left in cloud "
                f"{note['cloud']} ({type(exc).__name__}: {exc}); run `volperf "
                "cleanup` again"
            )
            continue
        store.forget_created(key)
    return removed


def _remove_rbd_images(store: CampaignStore, notes: dict[str, dict]) -> list[str]:
    from harness.planes.ceph import images  # Ceph's bindings only when a campaign used Ceph
    from harness.planes.ceph.access import CephAccess, CephError

    removed: list[str] = []
    places = {(n["conf"], n["user"], n["pool"]) for n in notes.values()}
    for conf, user, pool in sorted(places):
        here = {
            k: n
            for k, n in notes.items()
            if (n["conf"], n["user"], n["pool"]) == (conf, user, pool)
        }
        names = {n["image"]: k for k, n in here.items() if n["kind"] == "rbd-image"}
        scans = [n["campaign"] for n in here.values() if n["kind"] == "rbd-pool"]
        try:
            with CephAccess(Path(conf), user, pool).pool_io() as ioctx:
                for campaign in scans:
                    names.update(
                        {name: "" for name in images.tagged(ioctx, campaign) if name not in names}
                    )
                for name, key in sorted(names.items()):
                    if images.remove(ioctx, name):
                        removed.append(f"rbd {pool}/{name}")
                    if key:
                        store.forget_created(key)
        except CephError as exc:
            removed.append(
                f"NOT removed: RBD images of {pool} ({exc}); run `volperf cleanup` again"
            )
            continue
        for key in here:
            store.forget_created(key)
    return removed
