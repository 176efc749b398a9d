"""openstacksdk's current API for what its ``find_*`` methods find: ``ignore_missing=False``
and the missing case caught (the default ``ignore_missing=True`` warns of its removal in
openstacksdk 6.0 on every call)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def found(find: Callable[..., T], name_or_id: str, **attrs: Any) -> T | None:
    """What ``find`` (a proxy's ``find_*``) finds by name or id, or None."""
    from openstack import exceptions

    try:
        return find(name_or_id, ignore_missing=False, **attrs)
    except exceptions.NotFoundException:
        return None
