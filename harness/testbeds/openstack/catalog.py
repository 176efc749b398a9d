"""Keystone's side of the testbed, through openstacksdk as the bootstrap admin: the
service project and users, the catalog, Heat's stack domain; then what a user needs to
boot anything: a tiny image and flavors; and Cinder's volume types."""

from __future__ import annotations

from typing import Any

from harness.host.openstack_sdk import found

SERVICES = (  # name, type, port key, path
    ("glance", "image", "glance", ""),
    ("placement", "placement", "placement", ""),
    ("nova", "compute", "nova", "/v2.1"),
    ("neutron", "network", "neutron", ""),
    ("cinderv3", "volumev3", "cinder", "/v3/%(project_id)s"),
    ("cinder", "block-storage", "cinder", "/v3/%(project_id)s"),
    ("heat", "orchestration", "heat", "/v1/%(project_id)s"),
)
SERVICE_USERS = ("glance", "placement", "nova", "neutron", "cinder", "heat")
IMAGE_NAME = "tiny"
FLAVORS = {"tiny": (64, 1), "tiny2": (128, 1)}  # ram MiB, disk GiB
DEFAULT_TYPE = "__DEFAULT__"  # Cinder's type of a volume created without one
MULTIATTACH_TYPE = "multiattach"


def register(conn: Any, ports: dict[str, int], passwords: dict[str, str]) -> None:
    identity = conn.identity
    service_project = found(identity.find_project, "service") or identity.create_project(
        name="service", domain_id="default", description="OpenStack services"
    )
    admin_role = found(identity.find_role, "admin")
    service_role = found(identity.find_role, "service") or identity.create_role(name="service")
    for name in SERVICE_USERS:
        user = found(identity.find_user, name, domain_id="default") or identity.create_user(
            name=name, password=passwords[name], domain_id="default"
        )
        identity.assign_project_role_to_user(service_project, user, admin_role)
        identity.assign_project_role_to_user(service_project, user, service_role)
    for name, kind, port_key, path in SERVICES:
        service = found(identity.find_service, name) or identity.create_service(
            name=name, type=kind
        )
        existing = {e.interface for e in identity.endpoints(service_id=service.id)}
        for interface in ("public", "internal"):
            if interface not in existing:
                identity.create_endpoint(
                    service_id=service.id,
                    interface=interface,
                    region_id="RegionOne",
                    url=f"http://127.0.0.1:{ports[port_key]}{path}",
                )
    _heat_domain(identity, passwords["heat_domain_admin"], admin_role)
    for role in ("heat_stack_owner", "heat_stack_user", "member"):
        found(identity.find_role, role) or identity.create_role(name=role)


def _heat_domain(identity: Any, password: str, admin_role: Any) -> None:
    domain = found(identity.find_domain, "heat") or identity.create_domain(
        name="heat", description="Stack projects and users of Heat"
    )
    user = found(
        identity.find_user, "heat_domain_admin", domain_id=domain.id
    ) or identity.create_user(name="heat_domain_admin", password=password, domain_id=domain.id)
    identity.assign_domain_role_to_user(domain, user, admin_role)


def image_and_flavors(conn: Any) -> None:
    if found(conn.image.find_image, IMAGE_NAME) is None:
        conn.create_image(
            IMAGE_NAME,
            data=b"\0" * (1 << 20),
            disk_format="raw",
            container_format="bare",
            visibility="public",
            wait=True,
        )
    for name, (ram, disk) in FLAVORS.items():
        if found(conn.compute.find_flavor, name) is None:
            conn.compute.create_flavor(name=name, ram=ram, vcpus=1, disk=disk)


def volume_types(conn: Any, backends: dict[str, str]) -> None:
    """A type per backend (named as the backend, bound to it), a multiattach type on the
    first backend, and Cinder's default type bound to the first backend too: with two
    backends an untyped volume could otherwise land in either pool."""
    storage = conn.block_storage
    first = next(iter(backends))
    specs = {name: {"volume_backend_name": name} for name in backends}
    specs[MULTIATTACH_TYPE] = {"volume_backend_name": first, "multiattach": "<is> True"}
    for name, extra_specs in specs.items():
        if found(storage.find_type, name) is None:
            storage.create_type(name=name, extra_specs=extra_specs)
    default = storage.find_type(DEFAULT_TYPE, ignore_missing=False)
    storage.update_type_extra_specs(default, volume_backend_name=first)
