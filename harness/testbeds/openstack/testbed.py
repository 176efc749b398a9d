"""A real OpenStack control plane on one machine: Keystone, Glance, Placement, Nova (fake
virt driver: no guest boots), Neutron (API only), Cinder on RBD (the Ceph testbed) and
Heat, pinned from PyPI, with their own MariaDB and RabbitMQ, all on 127.0.0.1 and every
file under one state dir. Follows the trial bring-up in ../shared/testbeds/openstack.notes.txt.

`up` is idempotent: on an existing state dir it starts only what is not running; the
one-off setup (databases, catalog, image, flavors) is done once and recorded. `down` stops
only the processes whose pid files are here and whose command lines name this state dir.
"""

from __future__ import annotations

import concurrent.futures
import datetime
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import jinja2
import yaml

from harness.core.resources import package_path
from harness.host.process import log_tail
from harness.testbeds import TestbedError, default_state_dir
from harness.testbeds.base import Progress, Testbed, TestbedOptions
from harness.testbeds.ceph import BACKUP_POOL, CINDER_USER, POOL, SECOND_POOL, CephTestbed
from harness.testbeds.daemons import Daemon, running, stop_started
from harness.testbeds.openstack import (
    accel,
    catalog,
    infra,
    libvirt_daemons,
    real_guests,
    schemas,
)
from harness.testbeds.openstack.guest_image import (
    GuestImage,
    ensure_guest_image,
    kernel_command_line,
)
from harness.testbeds.openstack.guest_image import cache_folder as guest_cache
from harness.testbeds.openstack.infra import COMMAND_TIMEOUT_S
from harness.testbeds.openstack.services import (
    API_PORT,
    APIS,
    CONFIG_DIRS,
    DAEMONS,
    DEFAULT_BASE_PORT,
    ETC_CEPH,
    REAL_GUEST_DAEMONS,
    daemon_command,
    ports_from_base,
)
from harness.testbeds.openstack.venv import ensure_venv

MARKER = "testbed.json"
GUEST_RUNNER = "guest-runner"
READY_TIMEOUT_S = 600
CLOUD = "volperf-testbed"
DATABASES = (
    "keystone",
    "glance",
    "placement",
    "nova_api",
    "nova",
    "nova_cell0",
    "neutron",
    "cinder",
    "heat",
)
PASSWORD_NAMES = (
    "admin",
    "rabbit",
    "glance",
    "placement",
    "nova",
    "neutron",
    "cinder",
    "heat",
    "heat_domain_admin",
)
CONFIG_FILES = {  # template -> file under etc/
    "keystone.conf.j2": "keystone/keystone.conf",
    "glance-api.conf.j2": "glance/glance-api.conf",
    "placement.conf.j2": "placement/placement.conf",
    "nova.conf.j2": "nova/nova.conf",
    "neutron.conf.j2": "neutron/neutron.conf",
    "ml2_conf.ini.j2": "neutron/ml2_conf.ini",
    "cinder.conf.j2": "cinder/cinder.conf",
    "heat.conf.j2": "heat/heat.conf",
}
PASTE_FILES = (
    "nova/api-paste.ini",
    "neutron/api-paste.ini",
    "glance/glance-api-paste.ini",
    "heat/api-paste.ini",
    "cinder/api-paste.ini",
)
# services whose registration with their peers `up` waits for: (binary, listing)
COMPUTE_SERVICES = ("nova-conductor", "nova-scheduler", "nova-compute")
VOLUME_SERVICES = ("cinder-scheduler", "cinder-volume", "cinder-backup")
# Cinder's RBD backends (volume_backend_name -> pool), each a volume type of that name
BACKENDS = {"ceph": POOL, "ceph2": SECOND_POOL}


class OpenStackTestbed(Testbed):
    def __init__(
        self,
        state: Path,
        ceph_state: Path | None = None,
        base_port: int | None = None,
        guests: str | None = None,
    ):
        self.state = state
        self.marker = state / MARKER
        self._record = self._load()
        kept = self._record.get("guests", "stand-in" if self._record else None)
        if guests and kept and guests != kept:
            raise TestbedError(
                f"{state} was made with --guests {kept}: `volperf testbed down openstack "
                f"--purge` first to make it with --guests {guests}"
            )
        self.guests: str = kept or guests or "stand-in"
        self._guest_image: GuestImage | None = None
        self._accel: accel.Accel | None = None
        self._since: dict[str, str] = {}  # when (UTC, ISO) this `up` started each
        self.ceph_state = Path(
            self._record.get("ceph_state") or ceph_state or default_state_dir("ceph")
        )
        self.ports: dict[str, int] = self._record.get("ports") or ports_from_base(
            base_port or DEFAULT_BASE_PORT
        )
        self.guest_network = real_guests.GuestNetwork.for_base_port(self.ports["keystone"])

    @property
    def real_guests(self) -> bool:
        return self.guests == "real"

    # paths
    @property
    def etc(self) -> Path:
        return self.state / "etc"

    @property
    def clouds_yaml(self) -> Path:
        return self.state / "clouds.yaml"

    @property
    def openrc(self) -> Path:
        return self.state / "openrc"

    @property
    def keystone_url(self) -> str:
        return f"http://127.0.0.1:{self.ports['keystone']}"

    def _load(self) -> dict[str, Any]:
        try:
            return json.loads(self.marker.read_text())
        except (OSError, ValueError):
            return {}

    def _save(self) -> None:
        self.marker.write_text(json.dumps(self._record, indent=2) + "\n")
        self.marker.chmod(0o600)

    # processes
    def daemons(self) -> list[Daemon]:
        run = self.state / "run"
        marker = str(self.state)
        found = [
            Daemon("mariadb", run / "mariadb.pid", marker, group=True),
            Daemon("rabbitmq", run / "rabbitmq.pid", marker),
        ]
        found += [Daemon(api.name, run / f"{api.name}.pid", marker, group=True) for api in APIS]
        if self.real_guests:
            found.append(libvirt_daemons.daemon(self.state))
            names = [*DAEMONS, *REAL_GUEST_DAEMONS]
            return found + [Daemon(name, run / f"{name}.pid", marker, group=True) for name in names]
        found += [Daemon(name, run / f"{name}.pid", marker, group=True) for name in DAEMONS]
        return found + [Daemon(GUEST_RUNNER, run / f"{GUEST_RUNNER}.pid", marker, group=True)]

    def _daemon(self, name: str) -> Daemon:
        return next(d for d in self.daemons() if d.name == name)

    def _start(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        log = self.state / "log" / f"{name}.out"
        with log.open("ab") as out:
            process = subprocess.Popen(
                argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=self.state,
                start_new_session=True,
            )
        (self.state / "run" / f"{name}.pid").write_text(f"{process.pid}\n")
        self._since[name] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S")

    def _environment(self, venv: Path) -> dict[str, str]:
        # bin/ first: a sudo that runs the command itself (we are root; see _write_sudo)
        path = f"{self.state / 'bin'}:{venv / 'bin'}:{os.environ.get('PATH', '')}"
        return {**os.environ, "PATH": path, "CEPH_CONF": str(self._ceph_conf())}

    # up
    @classmethod
    def from_options(cls, state: Path, options: TestbedOptions) -> OpenStackTestbed:
        return cls(state, options.ceph_state, options.base_port, options.guests)

    @staticmethod
    def build(say: Progress) -> None:
        """The services' virtualenv, built into volperf's cache if missing."""
        ensure_venv(say)

    def up(self, say: Progress, timeout_s: float = READY_TIMEOUT_S) -> None:
        """Start what is not running (the Ceph testbed first, the services' venv built if
        missing, with its own limit) and wait until ready, each wait for at most
        ``timeout_s`` s from when it starts. On failure, what this call started (the Ceph
        testbed included) is stopped again; the state dir and its logs are kept."""
        started = time.monotonic()
        if os.geteuid() != 0:
            raise TestbedError("the OpenStack testbed runs its services as root: run as root")
        ceph = CephTestbed(self.ceph_state)
        ceph_before = running(ceph.daemons())
        before = running(self.daemons())
        try:
            if not ceph.status()["ready"]:
                say(f"bringing up the Ceph testbed in {self.ceph_state} (Cinder's RBD backend)")
                ceph.up(say)
            self._start_all(say, timeout_s)
        except BaseException:
            stopped = stop_started(self.daemons(), before)
            if "rabbitmq" in stopped:
                infra.stop_epmd(self.state, self.ports)
            stopped += stop_started(ceph.daemons(), ceph_before)  # a Ceph that ran stays
            if stopped:
                say(
                    f"bring-up failed: stopped what it started ({', '.join(stopped)}); kept "
                    f"for diagnosis: logs in {self.state / 'log'}"
                )
            raise
        say(f"OpenStack ready in {time.monotonic() - started:.0f} s")

    def stop_service(self, name: str, say: Progress) -> None:
        """Stop one of Cinder's services as `systemctl stop` would (SIGTERM, then SIGKILL
        after 30 s), for a fault during a step; `up` starts it again. Cinder says it is
        down only once its last report is older than its service_down_time."""
        if name not in VOLUME_SERVICES:
            raise TestbedError(
                f"no service {name} to stop: the testbed stops {', '.join(VOLUME_SERVICES)}"
            )
        if not self._daemon(name).stop():
            raise TestbedError(f"{name} is not running in the testbed in {self.state}")
        say(f"stopped {name}")

    def _start_all(self, say: Progress, timeout: float) -> None:
        venv = ensure_venv(say)
        _link_ceph_bindings(venv)
        if self.real_guests:
            self._prepare_real_guests(say)
        self._prepare(venv)
        env = self._environment(venv)
        self._start_infrastructure(say)
        if self.real_guests:
            self._start_libvirt(say)
        if not self._record.get("databases_synced"):
            self._sync_databases(venv, env, say)
        self._start_apis(venv, env, ("keystone",), say)
        self._wait_http("keystone", f"{self.keystone_url}/v3", timeout)
        if not self._record.get("catalog_registered"):
            say("registering users, services and endpoints in Keystone")
            catalog.register(self.connection(), self.ports, self._record["passwords"])
            self._record["catalog_registered"] = True
            self._save()
        self._start_apis(venv, env, tuple(api.name for api in APIS[1:]), say)
        for name in [*DAEMONS, *(REAL_GUEST_DAEMONS if self.real_guests else ())]:
            if self._daemon(name).pid() is None:
                self._start(name, daemon_command(name, venv, self.state), env)
        self._wait_ready(venv, env, say, timeout)
        if not self._record.get("image_and_flavors"):
            catalog.image_and_flavors(self.connection())
            self._record["image_and_flavors"] = True
            self._save()
        if not self._record.get("volume_types"):
            catalog.volume_types(self.connection(), BACKENDS)
            self._record["volume_types"] = True
            self._save()
        if self.real_guests and not self._record.get("guest_catalog"):
            say("registering the guest image, its flavor and the guests' network")
            assert self._guest_image is not None and self._accel is not None
            real_guests.register(
                self.connection(),
                self._guest_image,
                self.guest_network,
                kernel_command_line(self._accel.virt_type),
            )
            self._record["guest_catalog"] = True
            self._save()
        self._write_client_files()
        if not self.real_guests:
            self.start_guest_runner(say)

    def _prepare_real_guests(self, say: Progress) -> None:
        """The guest image, the accelerator a probe boot chose and the guests' veth pair."""
        self._guest_image = ensure_guest_image(say)
        self._accel = accel.choose(self._guest_image, guest_cache() / "accel.json", say)
        real_guests.ensure_link(self.guest_network)

    def _start_libvirt(self, say: Progress) -> None:
        if libvirt_daemons.daemon(self.state).pid() is None:
            say("starting libvirtd and virtlogd")
            libvirt_daemons.start(self.state, self.state / "log" / "libvirtd.out")
        key = (self.ceph_state / f"ceph.client.{CINDER_USER}.keyring").read_text()
        libvirt_daemons.define_ceph_secret(
            self.state,
            self._record["secret_uuid"],
            CINDER_USER,
            key.split("key = ", 1)[1].split()[0],
        )

    def start_guest_runner(self, say: Progress) -> None:
        """The stand-in for the VMs' agents (the fake virt driver boots none), as a daemon."""
        if self._daemon(GUEST_RUNNER).pid() is not None:
            return
        self._start(GUEST_RUNNER, guest_runner_command(self.state), dict(os.environ))
        say(
            f"started the local guest runner, a TEST STAND-IN for the VMs' fio agents (log "
            f"{self.state / 'log' / (GUEST_RUNNER + '.out')})"
        )

    def stop_guest_runner(self) -> bool:
        return self._daemon(GUEST_RUNNER).stop()

    def _prepare(self, venv: Path) -> None:
        if not self.marker.exists():
            self.state.mkdir(parents=True, exist_ok=True)
            self._record = {
                "kind": "openstack",
                "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "ports": self.ports,
                "ceph_state": str(self.ceph_state),
                "passwords": {name: secrets.token_hex(12) for name in PASSWORD_NAMES},
                "guests": self.guests,
                "secret_uuid": str(uuid.uuid4()),
            }
            self._save()
        self._record["venv"] = str(venv)
        self._save()
        for sub in (
            "etc",
            "run",
            "log",
            "bin",
            "data/glance/images",
            "data/nova/instances",
            "data/cinder/conversion",
            "log/rabbitmq",
            "etc/keystone/fernet-keys",
            "etc/keystone/credential-keys",
        ):
            (self.state / sub).mkdir(parents=True, exist_ok=True)
        self._write_configs(venv)
        self._link_keyring()
        _write_sudo(self.state / "bin" / "sudo")
        # nova-compute's node identity, written before its first start: a restart without
        # it refuses to start ("not our first startup on this host")
        compute_id = self.state / "data" / "nova" / "compute_id"
        if not compute_id.exists():
            compute_id.write_text(f"{uuid.uuid4()}\n")

    def _ceph_conf(self) -> Path:
        return self.ceph_state / "ceph.conf"

    def _link_keyring(self) -> None:
        """etc/ceph: what cinder-volume and cinder-backup see as /etc/ceph
        (services.OWN_ETC_CEPH), the Cinder user's keyring linked from the Ceph testbed's
        state."""
        if not ETC_CEPH.is_dir():
            raise TestbedError(
                f"{ETC_CEPH} is missing: cinder-volume and cinder-backup mount the testbed's "
                "keys there in their own mount namespace (install ceph-common)"
            )
        keys = self.etc / "ceph"
        keys.mkdir(parents=True, exist_ok=True)
        name = f"ceph.client.{CINDER_USER}.keyring"
        (keys / name).unlink(missing_ok=True)
        (keys / name).symlink_to(self.ceph_state / name)

    def _write_configs(self, venv: Path) -> None:
        templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(package_path("harness.testbeds.openstack", "templates")),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
        )
        socket_path = infra.mariadb(self.state).socket
        passwords = self._record["passwords"]
        values = {
            "etc": self.etc,
            "log": self.state / "log",
            "data": self.state / "data",
            "venv": venv,
            "keystone_url": self.keystone_url,
            "passwords": passwords,
            "db": lambda name: infra.database_url(socket_path, name),
            "transport_url": f"rabbit://{infra.RABBIT_USER}:{passwords['rabbit']}"
            f"@127.0.0.1:{self.ports['amqp']}/",
            "ceph": {
                "conf": self._ceph_conf(),
                "user": CINDER_USER,
                "backends": BACKENDS,
                "backup_pool": BACKUP_POOL,
            },
            "guests": {"real": False},
        }
        if self.real_guests:
            assert self._accel is not None
            self._record["guests_words"] = self._accel.words
            self._save()
            values["guests"] = {
                **real_guests.template_values(
                    self.guest_network,
                    self._accel.virt_type,
                    self._accel.words,
                    libvirt_daemons.uri(self.state),
                    self._record["secret_uuid"],
                ),
                "heat_url": f"http://{self.guest_network.gateway}:{self.ports['heat']}"
                "/v1/%(tenant_id)s",
            }
        for template, target in CONFIG_FILES.items():
            path = self.etc / target
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(templates.get_template(template).render(values))
            path.chmod(0o600)
        for paste in PASTE_FILES:
            shutil.copyfile(venv / "etc" / paste, self.etc / paste)

    def _start_infrastructure(self, say: Progress) -> None:
        if self._daemon("mariadb").pid() is None:
            say("starting MariaDB")
            server = infra.mariadb(self.state)
            infra.start_mariadb(server, self.state / "run" / "mariadb.pid")
            server.create(list(DATABASES))
        if self._daemon("rabbitmq").pid() is None:
            say("starting RabbitMQ")
            infra.start_rabbitmq(
                self.state,
                self.ports,
                self._record["passwords"]["rabbit"],
                self.state / "log" / "rabbitmq.out",
            )

    def _sync_databases(self, venv: Path, env: dict[str, str], say: Progress) -> None:
        """The schemas (the services' migrations, or their dumps: schemas.py), then what is
        this testbed's own: Keystone's keys, admin and endpoints, Nova's cell mappings."""
        etc, bin_ = self.etc, venv / "bin"
        server = infra.mariadb(self.state)
        keystone = ["--config-file", str(etc / "keystone/keystone.conf")]
        nova = ["--config-file", str(etc / "nova/nova.conf")]
        env = {**env, "OS_BOOTSTRAP_PASSWORD": self._record["passwords"]["admin"]}
        migrations = {
            "keystone": [[bin_ / "keystone-manage", *keystone, "db_sync"]],
            "glance": [
                [
                    bin_ / "glance-manage",
                    "--config-file",
                    str(etc / "glance/glance-api.conf"),
                    "db_sync",
                ]
            ],
            "placement": [
                [
                    bin_ / "placement-manage",
                    "--config-file",
                    str(etc / "placement/placement.conf"),
                    "db",
                    "sync",
                ]
            ],
            # the cell database only: cell0's is loaded from its dump (schemas.LOADED_FROM)
            "nova": [
                [bin_ / "nova-manage", *nova, "api_db", "sync"],
                [bin_ / "nova-manage", *nova, "db", "sync", "--local_cell"],
            ],
            "neutron": [
                [
                    bin_ / "neutron-db-manage",
                    "--config-file",
                    str(etc / "neutron/neutron.conf"),
                    "--config-file",
                    str(etc / "neutron/ml2_conf.ini"),
                    "upgrade",
                    "heads",
                ]
            ],
            "cinder": [
                [
                    bin_ / "cinder-manage",
                    "--config-file",
                    str(etc / "cinder/cinder.conf"),
                    "db",
                    "sync",
                ]
            ],
            "heat": [
                [bin_ / "heat-manage", "--config-file", str(etc / "heat/heat.conf"), "db_sync"]
            ],
        }
        own = {
            "keystone": [
                [
                    bin_ / "keystone-manage",
                    *keystone,
                    "fernet_setup",
                    "--keystone-user",
                    "root",
                    "--keystone-group",
                    "root",
                ],
                [
                    bin_ / "keystone-manage",
                    *keystone,
                    "credential_setup",
                    "--keystone-user",
                    "root",
                    "--keystone-group",
                    "root",
                ],
                [
                    bin_ / "keystone-manage",
                    *keystone,
                    "bootstrap",  # password from env
                    "--bootstrap-region-id",
                    "RegionOne",
                    "--bootstrap-admin-url",
                    f"{self.keystone_url}/v3/",
                    "--bootstrap-internal-url",
                    f"{self.keystone_url}/v3/",
                    "--bootstrap-public-url",
                    f"{self.keystone_url}/v3/",
                ],
            ],
            "nova": [
                [
                    bin_ / "nova-manage",
                    *nova,
                    "cell_v2",
                    "map_cell0",
                    "--database_connection",
                    infra.database_url(server.socket, "nova_cell0"),
                ],
                [bin_ / "nova-manage", *nova, "cell_v2", "create_cell", "--name", "cell1"],
            ],
        }
        schemas.ensure_schemas(
            venv,
            server,
            lambda: self._run_chains(migrations, env),
            self.state / "log" / "setup-schemas.log",
            say,
        )
        self._run_chains(own, env)
        self._record["databases_synced"] = True
        self._save()

    def _run_chains(self, chains: dict[str, list[list[Any]]], env: dict[str, str]) -> None:
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            futures = [
                pool.submit(self._run_chain, name, chain, env) for name, chain in chains.items()
            ]
            for future in futures:
                future.result()

    def _run_chain(self, name: str, chain: list[list[Any]], env: dict[str, str]) -> None:
        log = self.state / "log" / f"setup-{name}.log"
        for argv in chain:
            step = " ".join([Path(argv[0]).name, *map(str, argv[-2:])])
            with log.open("ab") as out:
                try:
                    done = subprocess.run(
                        [str(a) for a in argv],
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        env=env,
                        cwd=self.state,
                        timeout=COMMAND_TIMEOUT_S,
                        check=False,
                    )
                except subprocess.TimeoutExpired:
                    raise TestbedError(
                        f"{name} setup `{step}` still running after {COMMAND_TIMEOUT_S} s, "
                        f"stopped: is the machine short of CPU or its disk slow? Its last "
                        f"lines: {log_tail(log)} (log {log})"
                    ) from None
            if done.returncode != 0:
                tail = log_tail(log)
                raise TestbedError(
                    f"{name} setup `{step}` failed (exit {done.returncode}): {tail} (log {log})"
                )

    def _start_apis(
        self, venv: Path, env: dict[str, str], names: tuple[str, ...], say: Progress
    ) -> None:
        for api in APIS:
            if api.name not in names or self._daemon(api.name).pid() is not None:
                continue
            api_env = dict(env)
            if api.config_env:
                api_env[api.config_env] = str(self.etc / CONFIG_DIRS[api.name])
            if api.name == "neutron-api":
                api_env["OS_NEUTRON_CONFIG_FILES"] = "neutron.conf;ml2_conf.ini"
            port = self.ports[API_PORT[api.name]]
            # the real guests signal heat-api on their network's gateway address
            more = (
                (self.guest_network.gateway,) if self.real_guests and api.name == "heat-api" else ()
            )
            say(f"starting {api.name} on {', '.join(('127.0.0.1', *more))}:{port}")
            self._start(api.name, api.command(venv, self.state, port, more), api_env)

    def _wait_http(self, name: str, url: str, timeout: float) -> None:
        """Until ``url`` answers, for at most ``timeout`` s from now."""
        deadline = time.monotonic() + timeout
        while True:
            if _answers(url):
                return
            if self._daemon(name).pid() is None:
                raise TestbedError(self._exited(name, "out"))
            if time.monotonic() > deadline:
                raise TestbedError(f"{name} did not answer at {url} within {timeout:.0f} s")
            time.sleep(0.5)

    def _exited(self, name: str, named: str) -> str:
        """Why a daemon that exited did, in its own words: its log's error lines, else those
        of its output (a traceback before its log was open), and where both are."""
        logs = [
            self.state / "log" / f"{name}.{kind}" for kind in dict.fromkeys((named, "log", "out"))
        ]
        said = next((tail for tail in map(log_tail, logs) if tail), "")
        where = " and ".join(str(log) for log in logs if log.exists()) or logs[0]
        return f"{name} exited: {said or 'nothing in its logs'} (see {where})"

    def _wait_ready(self, venv: Path, env: dict[str, str], say: Progress, timeout: float) -> None:
        say("waiting for every API to answer")
        for api in APIS:
            port = self.ports[API_PORT[api.name]]
            self._wait_http(api.name, f"http://127.0.0.1:{port}/", timeout)
        conn = self.connection()
        say("loading each API's policy rules, one request at a time")
        _load_policies(conn)
        say("waiting for nova-compute, cinder-volume, cinder-backup and heat-engine to report")
        deadline = time.monotonic() + timeout
        while True:
            missing = self._services_down(conn)
            if not missing:
                break
            for name in missing:
                if name in DAEMONS and self._daemon(name).pid() is None:
                    raise TestbedError(self._exited(name, "log"))
            if time.monotonic() > deadline:
                raise TestbedError(
                    f"not up within {timeout:.0f} s: {', '.join(missing)} (logs in "
                    f"{self.state / 'log'})"
                )
            time.sleep(2)
        nova_manage = [venv / "bin" / "nova-manage", "--config-file", self.etc / "nova/nova.conf"]
        self._run_chain("discover-hosts", [[*nova_manage, "cell_v2", "discover_hosts"]], env)

    def _services_down(self, conn: Any) -> list[str]:
        """Services that have not reported up yet; one this `up` started must have reported
        since (a record stays "up" for a minute after its process is gone)."""
        reported: dict[str, str] = {}  # binary -> last report (UTC, ISO), if "up"
        try:
            for service in [*conn.compute.services(), *conn.block_storage.services()]:
                if service.state == "up":
                    reported[service.binary] = service.updated_at or ""
            response = conn.orchestration.get("/services")
            for service in response.json().get("services", []):
                if service.get("status") == "up":
                    reported[service["binary"]] = max(
                        reported.get(service["binary"], ""), service.get("updated_at") or ""
                    )
        except Exception:
            pass
        if self.real_guests:
            try:  # the agent that binds the guests' ports
                for agent in conn.network.agents(binary="neutron-macvtap-agent"):
                    if agent.is_alive:  # its heartbeat as the services' reports read
                        beat = str(agent.last_heartbeat_at or "").replace(" ", "T")
                        reported["neutron-macvtap-agent"] = beat
            except Exception:
                pass
        wanted = (*COMPUTE_SERVICES, *VOLUME_SERVICES, "heat-engine")
        if self.real_guests:
            wanted += ("neutron-macvtap-agent",)
        down = [
            name
            for name in wanted
            if name not in reported or reported[name] < self._since.get(name, "")
        ]
        if "cinder-volume" not in down:
            # until cinder-volume's first capability report reaches the scheduler, every
            # volume create fails ("No valid backend"): seen on a fresh testbed
            down += [
                f"cinder-volume's RBD backend {name} (not reported to the scheduler yet)"
                for name in self._backends_unreported(conn)
            ]
        return down

    @staticmethod
    def _backends_unreported(conn: Any) -> list[str]:
        try:
            pools = [pool.name for pool in conn.block_storage.backend_pools()]
        except Exception:
            return list(BACKENDS)
        return [name for name in BACKENDS if not any(p.endswith(f"#{name}") for p in pools)]

    # clients
    def cloud_config(self) -> dict[str, Any]:
        return {
            "auth": {
                "auth_url": f"{self.keystone_url}/v3",
                "username": "admin",
                "password": self._record["passwords"]["admin"],
                "project_name": "admin",
                "user_domain_name": "Default",
                "project_domain_name": "Default",
            },
            "region_name": "RegionOne",
            "identity_api_version": 3,
        }

    def connection(self) -> Any:
        try:
            import openstack
        except ImportError as exc:
            raise TestbedError("openstacksdk is missing: pip install 'volperf[rally]'") from exc
        return openstack.connect(**self.cloud_config(), api_timeout=60)

    def _write_client_files(self) -> None:
        self.clouds_yaml.write_text(yaml.safe_dump({"clouds": {CLOUD: self.cloud_config()}}))
        self.clouds_yaml.chmod(0o600)
        auth = self.cloud_config()["auth"]
        lines = [
            f"export OS_AUTH_URL={auth['auth_url']}",
            "export OS_USERNAME=admin",
            f"export OS_PASSWORD={auth['password']}",
            "export OS_PROJECT_NAME=admin",
            "export OS_USER_DOMAIN_NAME=Default",
            "export OS_PROJECT_DOMAIN_NAME=Default",
            "export OS_REGION_NAME=RegionOne",
            "export OS_IDENTITY_API_VERSION=3",
        ]
        self.openrc.write_text(
            "# written by `volperf testbed up openstack`\n" + "\n".join(lines) + "\n"
        )
        self.openrc.chmod(0o600)

    def usage(self) -> list[str]:
        venv = self._record.get("venv", "")
        return [
            f"OS_CLIENT_CONFIG_FILE={self.clouds_yaml} openstack --os-cloud {CLOUD} volume list"
            f"   (the CLI is in {venv}/bin)",
            f". {self.openrc}   (admin credentials; file mode 0600)",
            f"volperf run rally SPEC.yaml --cloud {CLOUD} --clouds-yaml {self.clouds_yaml}",
            self.guests_words(),
        ]

    def guests_words(self) -> str:
        """What the data plane's VMs are on this testbed, as every page says it."""
        if self.real_guests:
            words = self._accel.words if self._accel else self._record.get("guests_words", "")
            return (
                f"Nova's libvirt driver boots {words or 'real guests'}; volumes attached by "
                f"QEMU through librbd; image {real_guests.IMAGE}, flavor {real_guests.FLAVOR}, "
                f"network {real_guests.NETWORK}"
            )
        return (
            "Nova runs the fake virt driver: servers go ACTIVE but no guest boots; the local "
            "guest runner (a test stand-in) runs cinder-fio agents on this host instead"
        )

    # status / down
    def status(self) -> dict[str, Any]:
        daemons = [
            {"name": d.name, "pid": d.pid(), "rss_kib": d.group_rss_kib()} for d in self.daemons()
        ]
        report: dict[str, Any] = {
            "state": str(self.state),
            "exists": self.marker.exists(),
            "daemons": daemons,
            "ports": self.ports,
            "clouds_yaml": str(self.clouds_yaml),
            "ceph_state": str(self.ceph_state),
            "guests": self.guests,
            "guests_words": self.guests_words(),
            "ready": False,
        }
        if not report["exists"] or any(d["pid"] is None for d in daemons):
            return report
        try:
            report["services_down"] = self._services_down(self.connection())
        except Exception as exc:
            report["services_down"] = [f"keystone: {exc}"]
        report["ready"] = not report["services_down"]
        return report

    def down(self, purge: bool, say: Progress) -> list[str]:
        if purge and self.state.exists() and not self.marker.exists():
            raise TestbedError(
                f"{self.state} has no {MARKER}: not a volperf OpenStack testbed, not purged"
            )
        stopped = []
        daemons = self.daemons()  # services at once, then the broker, the database last
        for batch in (daemons[2:], daemons[1:2], daemons[:1]):
            with concurrent.futures.ThreadPoolExecutor(len(batch)) as pool:
                for daemon, was_running in zip(batch, pool.map(Daemon.stop, batch), strict=True):
                    if was_running:
                        say(f"stopped {daemon.name}")
                        stopped.append(daemon.name)
        if self.marker.exists():
            infra.stop_epmd(self.state, self.ports)
        killed = libvirt_daemons.kill_guests(self.state)
        if killed:
            say(f"killed {len(killed)} guest QEMU process(es) libvirtd left")
        if self.real_guests and real_guests.remove_link(self.guest_network):
            say(f"removed the guests' veth pair {self.guest_network.lower}")
        if purge and self.state.exists():
            shutil.rmtree(self.state)
            say(f"removed {self.state}")
        return stopped


def guest_runner_command(state: Path, once: bool = False) -> list[str]:
    argv = [sys.executable, "-m", "harness.testbeds.openstack.guest_runner", "--state", str(state)]
    return argv + (["--once"] if once else [])


def _load_policies(conn: Any) -> None:
    """One policy-checked request to each API that the services' reports do not reach (Nova
    and Cinder answer those), before any user's: an API loads its policy rules on its first
    checked request, and neutron's ``policy.init`` publishes its enforcer before it has
    registered the rules, so a second request meanwhile iterates them as they grow (CI, stop
    64: four campaigns' first requests at once, a Neutron 500 "dictionary changed size
    during iteration" in oslo.policy's load_rules, and a Rally project left behind).
    Neutron's request is another project's quota, which it checks against its policy
    whatever its extensions (the real guests' ML2 has no security groups) and objects."""
    service = conn.identity.find_project("service", ignore_missing=False)
    conn.network.get_quota(service.id)
    list(conn.image.images())
    list(conn.orchestration.stacks())


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5):
            return True
    except urllib.error.HTTPError:
        return True  # 401/300: the API is up
    except (urllib.error.URLError, OSError):
        return False


def _write_sudo(path: Path) -> None:
    """Cinder runs `sudo cinder-rootwrap CONF CMD...`; as root in a testbed, run CMD."""
    path.write_text(
        "#!/bin/sh\n# volperf testbed: services run as root, so run the command itself\n"
        'case "$1" in *-rootwrap) shift 2 ;; esac\nexec "$@"\n'
    )
    path.chmod(0o755)


def _link_ceph_bindings(venv: Path) -> None:
    from harness.testbeds.ceph_bindings import link

    try:
        link(venv)
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        raise TestbedError(f"Cinder's RBD driver needs rados/rbd: {exc}") from exc
