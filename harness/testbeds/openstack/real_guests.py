"""The OpenStack testbed's real guests (``volperf testbed up openstack --guests real``):
Nova's libvirt driver boots the guest image (guest_image.py) on the accelerator a probe
boot chose (accel.py), libvirtd runs from the testbed's state (libvirt_daemons.py), and
Cinder's RBD volumes are attached by QEMU through librbd with a libvirt secret.

The guests' network is one Neutron flat provider network on a veth pair made here: the
macvtap agent puts each guest's macvtap on its lower end, the host's end holds the
gateway address, and nothing is forwarded or routed (ip_forward untouched, no NAT), so a
guest reaches only this host, where heat-api listens for its signal on that address too.
No DHCP or metadata agent: Nova writes user_data and the static address on a config drive.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from typing import Any

from harness.host.openstack_sdk import found
from harness.testbeds import TestbedError
from harness.testbeds.openstack.guest_image import GuestImage

MODES = ("stand-in", "real")  # how the data plane's VMs run; stand-in: guest_runner.py
NETWORK = "volperf-guests"
PHYSNET = "physnet1"
IMAGE = "volperf-guest"  # the root disk's image; -kernel and -ramdisk beside it
FLAVOR = "guest"
FLAVOR_RAM_MIB = 256
FLAVOR_DISK_GIB = 1
RESERVED_HOST_MEMORY_MIB = 4096  # the testbed's own services and Ceph


@dataclass(frozen=True)
class GuestNetwork:
    """A testbed's veth pair and subnet, derived from its base port, so that two testbeds
    on one machine do not share them."""

    lower: str  # the macvtaps' lower device (no address)
    host: str  # the host's end: the gateway
    prefix: str  # the /24's first three octets

    @classmethod
    def for_base_port(cls, base_port: int) -> GuestNetwork:
        tag = base_port % 10000
        return cls(f"vpg{tag}l", f"vpg{tag}h", f"10.250.{base_port // 10 % 250}")

    @property
    def gateway(self) -> str:
        return f"{self.prefix}.1"

    @property
    def cidr(self) -> str:
        return f"{self.prefix}.0/24"


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=False)


def ensure_link(network: GuestNetwork) -> None:
    """The veth pair, up, the gateway address on the host's end (made once)."""
    if _ip("link", "show", network.lower).returncode != 0:
        made = _ip("link", "add", network.lower, "type", "veth", "peer", "name", network.host)
        if made.returncode != 0:
            raise TestbedError(f"cannot make the guests' veth pair: {made.stderr.strip()}")
    addresses = _ip("-4", "-o", "addr", "show", "dev", network.host).stdout
    if f" {network.gateway}/24 " not in addresses:
        _ip("addr", "add", f"{network.gateway}/24", "dev", network.host)
    for device in (network.lower, network.host):
        _ip("link", "set", device, "up")


def remove_link(network: GuestNetwork) -> bool:
    """The veth pair removed (with its macvtaps); True if it was there."""
    return _ip("link", "del", network.lower).returncode == 0


def template_values(
    network: GuestNetwork, virt_type: str, accel_words: str, libvirt_uri: str, secret: str
) -> dict[str, Any]:
    return {
        "real": True,
        "virt_type": virt_type,
        "accel_words": accel_words,
        "libvirt_uri": libvirt_uri,
        "secret_uuid": secret,
        "physnet": PHYSNET,
        "lower": network.lower,
        "reserved_host_memory_mb": RESERVED_HOST_MEMORY_MIB,
    }


def register(conn: Any, image: GuestImage, network: GuestNetwork, command_line: str) -> None:
    """The guest image (kernel, ramdisk, root disk) booted with ``command_line``, the
    flavor and the shared network."""
    if found(conn.image.find_image, IMAGE) is None:
        made = {
            part: conn.create_image(
                f"{IMAGE}-{part}",
                filename=str(path),
                disk_format=kind,
                container_format=kind,
                visibility="public",
                wait=True,
            )
            for part, path, kind in (
                ("kernel", image.kernel, "aki"),
                ("ramdisk", image.ramdisk, "ari"),
            )
        }
        conn.create_image(
            IMAGE,
            filename=str(image.root),
            disk_format="qcow2",
            container_format="bare",
            visibility="public",
            wait=True,
            meta={
                "kernel_id": made["kernel"].id,
                "ramdisk_id": made["ramdisk"].id,
                "os_command_line": command_line,
                "hw_disk_bus": "virtio",
            },
        )
    if found(conn.compute.find_flavor, FLAVOR) is None:
        conn.compute.create_flavor(name=FLAVOR, ram=FLAVOR_RAM_MIB, vcpus=1, disk=FLAVOR_DISK_GIB)
    shared = found(conn.network.find_network, NETWORK)
    if shared is None:
        shared = conn.network.create_network(
            name=NETWORK,
            shared=True,
            provider_network_type="flat",
            provider_physical_network=PHYSNET,
        )
    if not list(conn.network.subnets(network_id=shared.id)):
        conn.network.create_subnet(
            name=NETWORK,
            network_id=shared.id,
            ip_version=4,
            cidr=network.cidr,
            gateway_ip=network.gateway,
            enable_dhcp=False,
            allocation_pools=[{"start": f"{network.prefix}.10", "end": f"{network.prefix}.250"}],
        )
