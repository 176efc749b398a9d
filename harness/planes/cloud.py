"""An OpenStack cloud by its name in clouds.yaml: where that file is, the cloud's
settings, and a logged-in openstacksdk connection (TargetError naming what is wrong)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from harness.core import secrets
from harness.core.spec import OpenStackTarget
from harness.host.owncost import count_api_call
from harness.planes.base import TargetError
from harness.testbeds import default_state_dir


def clouds_yaml(options: OpenStackTarget) -> Path | None:
    """The clouds.yaml to read: the target's, $OS_CLIENT_CONFIG_FILE, else the testbed's
    if there is one (None: openstacksdk's usual places)."""
    if options.clouds_yaml:
        return options.clouds_yaml.expanduser()
    if os.environ.get("OS_CLIENT_CONFIG_FILE"):
        return Path(os.environ["OS_CLIENT_CONFIG_FILE"])
    testbed = default_state_dir("openstack") / "clouds.yaml"
    return testbed if testbed.exists() else None


def cloud_region(options: OpenStackTarget) -> Any:
    """openstacksdk's CloudRegion for the target's cloud; TargetError naming what is wrong."""
    try:
        from openstack import config, exceptions
    except ImportError as exc:
        raise TargetError("openstacksdk is missing: pip install 'volperf[rally]'") from exc
    path = clouds_yaml(options)
    if path is not None and not path.exists():
        raise TargetError(f"{path}: no such clouds.yaml")
    try:
        loader = config.OpenStackConfig(config_files=[str(path)] if path else None)
        region = loader.get_one(cloud=options.cloud)
    except exceptions.ConfigException as exc:
        where = path or "clouds.yaml in the usual places"
        raise TargetError(f"cloud {options.cloud!r} not found in {where}: {exc}") from None
    secrets.register_named(region.config)  # password, application credential secret, token
    return region


def counted(conn: Any) -> Any:
    """The connection, every HTTP request its session sends counted as volperf's own
    (host/owncost.py), by a response hook of the requests session under keystoneauth."""
    hooks = conn.session.session.hooks["response"]
    hooks.append(lambda response, *args, **kwargs: count_api_call("openstack"))
    return conn


def connect(options: OpenStackTarget, region: Any = None) -> Any:
    """A connection that has logged in (TargetError if the cloud refuses or is away)."""
    from openstack import connection

    try:
        conn = counted(connection.Connection(config=region or cloud_region(options)))
        conn.authorize()
    except TargetError:
        raise
    except Exception as exc:
        raise TargetError(
            f"cloud {options.cloud!r} did not let volperf log in: {type(exc).__name__}: {exc}"
        ) from None
    return conn


def connection_for(note: dict[str, Any]) -> Any:
    """A connection to the cloud a created.json note names (its cloud and clouds.yaml)."""
    from openstack import connection

    target = OpenStackTarget(
        type="openstack",
        cloud=note["cloud"],
        clouds_yaml=Path(note["clouds_yaml"]) if note["clouds_yaml"] else None,
    )
    return counted(connection.Connection(config=cloud_region(target)))
