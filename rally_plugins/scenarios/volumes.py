"""Cinder lifecycle operations rally-openstack has no scenario for: `VolPerf.multiattach_volume`
(one multiattach volume attached to several servers at once) and `VolPerf.retype_volume`
(a volume moved from one volume type to another, with its data, by Cinder's migration).

Both wait on what Cinder's API shows rather than on a volume status alone: a multiattach
volume stays ``in-use`` while a second server attaches or one of two detaches, and a
volume being retyped is ``available`` before the retype starts as well as after it ends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rally.common import cfg, validation
from rally.task import atomic, types, utils
from rally_openstack.common import consts
from rally_openstack.task import scenario
from rally_openstack.task.scenarios.cinder import utils as cinder_utils
from rally_openstack.task.scenarios.nova import utils as nova_utils

CONF = cfg.CONF
NOVA_MULTIATTACH_VERSION = "2.60"  # Nova refuses to attach a multiattach volume below it
FAILED_STATUSES = ("error", "error_extending")


class VolumeActionError(RuntimeError):
    """Cinder reports that a volume operation failed, or its outcome is not the one asked."""


def attached_servers(volume: Any) -> set[str]:
    """The servers a volume is attached to, as Cinder lists them."""
    return {attachment["server_id"] for attachment in volume.attachments}


class VolumeWaits(cinder_utils.CinderBasic):
    """A wait on a volume as Cinder's API shows it: any condition on its attributes."""

    def _volume(self, volume_id: str) -> Any:
        return self.clients("cinder").volumes.get(volume_id)

    def _wait_volume(
        self, volume_id: str, ready: Callable[[Any], bool], timeout: float, interval: float
    ) -> Any:
        def check(volume: Any) -> bool:
            migration = getattr(volume, "migration_status", None)
            if volume.status in FAILED_STATUSES or migration == "error":
                raise VolumeActionError(
                    f"volume {volume.id}: status {volume.status}, migration status {migration}"
                )
            return ready(volume)

        return utils.wait_for(
            self._volume(volume_id),
            is_ready=check,
            update_resource=lambda volume: self._volume(volume.id),
            timeout=timeout,
            check_interval=interval,
        )


@types.convert(image={"type": "glance_image"}, flavor={"type": "nova_flavor"})
@validation.add("image_valid_on_flavor", flavor_param="flavor", image_param="image")
@validation.add("required_services", services=[consts.Service.NOVA, consts.Service.CINDER])
@validation.add("number", param_name="servers", minval=2, integer_only=True)
@validation.add("volume_type_exists", param_name="volume_type")
@validation.add("required_platform", platform="openstack", users=True)
@scenario.configure(
    name="VolPerf.multiattach_volume",
    platform="openstack",
    context={"cleanup@openstack": ["cinder", "nova"]},
)
class MultiattachVolume(VolumeWaits, nova_utils.NovaScenario):
    def run(
        self,
        image: str,
        flavor: str,
        size: int = 1,
        servers: int = 2,
        volume_type: str = "multiattach",
        **kwargs: Any,
    ) -> None:
        """Boot ``servers`` servers, create one volume of a multiattach type, attach it to
        every server in turn, check that Cinder lists all of them at once, detach it from
        each, delete the volume and the servers.

        :param volume_type: a type with the extra spec multiattach="<is> True" (the volperf
            testbed's ``multiattach``)
        :param kwargs: more arguments for each server's boot
        """
        booted = [self._boot_server(image, flavor, **kwargs) for _ in range(servers)]
        volume = self.cinder.create_volume(size, volume_type=volume_type)
        for server in booted:
            self._attach_shared(server, volume)
        at_once = attached_servers(self._volume(volume.id))
        wanted = {server.id for server in booted}
        if at_once != wanted:
            raise VolumeActionError(
                f"volume {volume.id} is attached to {len(at_once)} of {servers} servers at "
                f"once: missing {sorted(wanted - at_once)}"
            )
        for server in booted:
            self._detach_shared(server, volume)
        self.cinder.delete_volume(volume)
        self._delete_servers(booted)

    @atomic.action_timer("nova.attach_volume")
    def _attach_shared(self, server: Any, volume: Any) -> None:
        nova = self.clients("nova", version=NOVA_MULTIATTACH_VERSION)
        nova.volumes.create_server_volume(server.id, volume.id)
        self._wait_volume(
            volume.id,
            lambda v: v.status == "in-use" and server.id in attached_servers(v),
            CONF.openstack.nova_server_resize_revert_timeout,
            CONF.openstack.nova_server_resize_revert_poll_interval,
        )

    @atomic.action_timer("nova.detach_volume")
    def _detach_shared(self, server: Any, volume: Any) -> None:
        self.clients("nova").volumes.delete_server_volume(server.id, volume.id)
        self._wait_volume(
            volume.id,
            lambda v: server.id not in attached_servers(v),
            CONF.openstack.nova_detach_volume_timeout,
            CONF.openstack.nova_detach_volume_poll_interval,
        )


@validation.add("required_services", services=[consts.Service.CINDER])
@validation.add("volume_type_exists", param_name="from_type")
@validation.add("volume_type_exists", param_name="to_type")
@validation.add("enum", param_name="migration_policy", values=["on-demand", "never"], missed=True)
@validation.add("required_platform", platform="openstack", users=True)
@scenario.configure(
    name="VolPerf.retype_volume",
    platform="openstack",
    context={"cleanup@openstack": ["cinder"]},
)
class RetypeVolume(VolumeWaits):
    def run(
        self,
        size: int = 1,
        from_type: str = "ceph",
        to_type: str = "ceph2",
        migration_policy: str = "on-demand",
        do_delete: bool = True,
    ) -> None:
        """Create a volume of ``from_type``, retype it to ``to_type`` and wait until Cinder
        shows it available with the new type; then delete it.

        :param migration_policy: ``on-demand`` lets Cinder move the data when the types'
            backends differ (the volperf testbed's ceph and ceph2: pools volumes and
            volumes2); with ``never`` such a retype fails
        """
        volume = self.cinder.create_volume(size, volume_type=from_type)
        self._retype(volume, to_type, migration_policy)
        if do_delete:
            self.cinder.delete_volume(volume)

    @atomic.action_timer("volperf.retype_volume")
    def _retype(self, volume: Any, to_type: str, migration_policy: str) -> None:
        self.clients("cinder").volumes.retype(volume.id, to_type, migration_policy)
        self._wait_volume(
            volume.id,
            lambda v: v.status == "available" and v.volume_type == to_type,
            CONF.openstack.cinder_volume_create_timeout,
            CONF.openstack.cinder_volume_create_poll_interval,
        )
