"""What the commands of volperf share: the campaign directories they take, JSON on
stdout, exit statuses and the options several take."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from harness.core.store import CampaignStore

EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130


def campaign_store(path: Path) -> CampaignStore:
    from harness.core.store import CampaignStore

    store = CampaignStore(path)
    if not store.exists():
        raise click.ClickException(f"{path}: not a campaign directory (no campaign.yaml)")
    return store


def measured_store(path: Path) -> CampaignStore:
    store = campaign_store(path)
    if store.read_campaign().get("reference"):
        raise click.ClickException(
            f"{path} is a reference campaign (published figures, no raw output): "
            "nothing to run, reparse or clean; use it with `volperf report` or `compare`"
        )
    return store


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2))


cloud_option = click.option(
    "--cloud", help="openstack target: the cloud's name in clouds.yaml (instead of the spec's)"
)
clouds_yaml_option = click.option(
    "--clouds-yaml",
    type=click.Path(path_type=Path, dir_okay=False),
    help="openstack target: clouds.yaml to read (default $OS_CLIENT_CONFIG_FILE, the usual places, "
    "the OpenStack testbed's)",
)
results_option = click.option(
    "--results",
    type=click.Path(path_type=Path),
    default=Path("results"),
    show_default=True,
    help="where campaigns are stored",
)
