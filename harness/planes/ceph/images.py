"""RBD images volperf makes for a campaign: named volperf-<campaign>-<consumer> and tagged
with the campaign in the image's metadata, so cleanup finds them even without our notes."""

from __future__ import annotations

from typing import Any

from harness.host.owncost import count_api_call
from harness.planes.ceph.access import CephError, bindings

TAG = "volperf.campaign"


def _rbd() -> Any:
    """Python's rbd module, for one operation on the cluster (counted as volperf's own)."""
    count_api_call("ceph")
    return bindings()[1]


def image_name(campaign: str, consumer: str) -> str:
    return f"volperf-{campaign}-{consumer}"


def existing(ioctx: Any) -> set[str]:
    rbd = _rbd()
    return set(rbd.RBD().list(ioctx))


def create(ioctx: Any, name: str, size: int, campaign: str) -> None:
    """A new image of ``size`` bytes (thin: unwritten blocks take no space) with our tag."""
    rbd = _rbd()
    try:
        rbd.RBD().create(ioctx, name, size, old_format=False)
        with rbd.Image(ioctx, name) as image:
            image.metadata_set(TAG, campaign)
    except rbd.Error as exc:
        raise CephError(f"cannot create RBD image {name} ({size} bytes): {exc}") from None


def tag_of(ioctx: Any, name: str) -> str | None:
    rbd = _rbd()
    try:
        with rbd.Image(ioctx, name, read_only=True) as image:
            return dict(image.metadata_list()).get(TAG)
    except (rbd.ImageNotFound, KeyError):
        return None


def grow(ioctx: Any, name: str, size: int) -> None:
    rbd = _rbd()
    with rbd.Image(ioctx, name) as image:
        if image.size() < size:
            image.resize(size)


def remove(ioctx: Any, name: str) -> bool:
    """Remove an image; False if it was not there."""
    rbd = _rbd()
    try:
        rbd.RBD().remove(ioctx, name)
    except rbd.ImageNotFound:
        return False
    except rbd.Error as exc:
        raise CephError(f"cannot remove RBD image {name}: {exc}") from None
    return True


def tagged(ioctx: Any, campaign: str) -> list[str]:
    """The campaign's images: our name prefix and our tag (a name alone is not proof)."""
    prefix = image_name(campaign, "")
    return sorted(
        n for n in existing(ioctx) if n.startswith(prefix) and tag_of(ioctx, n) == campaign
    )
