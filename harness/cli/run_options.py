"""`volperf run`'s options on the spec it runs: every option given either applies (it
overrides the spec's field, which campaign.yaml then keeps) or is refused with a click
error naming the option and why; none is dropped."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from harness.core.spec import CampaignSpec

PROFILE_PLANES = ("local", "rbd", "k8s")  # `run PLANE`: a built-in profile on that plane
CLOUD_PLANES = ("rally", "heat")  # `run PLANE SPEC.yaml`: an openstack spec's workloads
DEFAULT_PROFILE = "quick"


@dataclass(frozen=True)
class TargetOption:
    """An option that sets a target's field: which field on which target type, and what
    it sets (said when the spec's target has no such field)."""

    flag: str
    fields: dict[str, str]  # target type: the field it sets
    sets: str
    path: bool = False  # a file: kept absolute, so that a resumed campaign finds it again


TARGET_OPTIONS: dict[str, TargetOption] = {
    "directory": TargetOption("--dir", {"local": "dir"}, "the directory under test", path=True),
    "allow_device": TargetOption(
        "--allow-device", {"local": "allow_device"}, "whether dir may be a block device"
    ),
    "allow_existing": TargetOption(
        "--allow-existing",
        {"local": "allow_existing", "hosts": "allow_existing"},
        "whether fio may overwrite files volperf did not create",
    ),
    "ceph_conf": TargetOption(
        "--ceph-conf",
        {"rbd": "ceph_conf", "openstack": "ceph_conf"},
        "the Ceph cluster's ceph.conf",
        path=True,
    ),
    "ceph_user": TargetOption(
        "--ceph-user", {"rbd": "user", "openstack": "ceph_user"}, "the cephx user"
    ),
    "pool": TargetOption("--pool", {"rbd": "pool"}, "the Ceph pool of the RBD images"),
    "storage_class": TargetOption(
        "--storage-class", {"k8s": "storage_class"}, "the StorageClass of the PVCs"
    ),
    "kubeconfig": TargetOption(
        "--kubeconfig", {"k8s": "kubeconfig"}, "the Kubernetes cluster's kubeconfig", path=True
    ),
    "cloud": TargetOption("--cloud", {"openstack": "cloud"}, "the cloud's name in clouds.yaml"),
    "clouds_yaml": TargetOption(
        "--clouds-yaml", {"openstack": "clouds_yaml"}, "the clouds.yaml to read", path=True
    ),
}


@dataclass(frozen=True)
class RunOptions:
    """What `volperf run` was given; None, False or () is an option not given."""

    what: str
    cloud_spec: Path | None = None
    profile: str | None = None
    name: str | None = None
    runtime: int | None = None
    size: str | None = None
    sweep: str | None = None
    settings: tuple[str, ...] = ()
    prefill: bool | None = None
    target: dict[str, Any] = field(default_factory=dict)  # TARGET_OPTIONS' names: values

    def given(self) -> dict[str, Any]:
        """The target options given, by name."""
        return {k: v for k, v in self.target.items() if v not in (None, False, ())}

    def workload_overrides(self) -> dict[str, Any]:
        prefill = (f"prefill={str(self.prefill).lower()}",) if self.prefill is not None else ()
        return {
            "runtime": self.runtime,
            "size": self.size,
            "sweep": self.sweep,
            "settings": self.settings + prefill,
        }


def refused(flag: str, why: str) -> click.BadParameter:
    return click.BadParameter(why, param_hint=f"'{flag}'")


def _value(option: TargetOption, value: Any) -> Any:
    return str(Path(value).expanduser().resolve()) if option.path else value


def apply_target_options(target: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The target with every option given set, or BadParameter naming the first option
    whose field the target's type does not have."""
    kind = target.get("type", "local")
    target = dict(target)
    for name, value in given.items():
        option = TARGET_OPTIONS[name]
        if kind not in option.fields:
            owners = " or ".join(option.fields)
            raise refused(
                option.flag,
                f"it sets {option.sets} of the {owners} target; the campaign's target is "
                f"{kind}, which has none",
            )
        target[option.fields[kind]] = _value(option, value)
    return target


def _profile_target(options: RunOptions) -> dict[str, Any]:
    """The target of `run local|rbd|k8s`: the plane's, with what it needs refused when
    missing."""
    given = options.given()
    if options.what == "local" and "directory" not in given:
        raise click.UsageError("run local needs --dir DIR (the storage under test)")
    if options.what == "k8s" and "storage_class" not in given:
        raise click.UsageError("run k8s needs --storage-class CLASS (the class under test)")
    return apply_target_options({"type": options.what}, given)


def spec_of(options: RunOptions) -> CampaignSpec:
    """The spec `volperf run` runs, every option given applied (SpecError if a value is
    not valid in the spec, click's errors for an option that does not apply)."""
    from harness.campaign import profiles
    from harness.core import spec as spec_module

    if options.cloud_spec is not None and options.what not in CLOUD_PLANES:
        raise click.UsageError(
            f"a second argument ({options.cloud_spec}) is only for `run rally SPEC.yaml` "
            "and `run heat SPEC.yaml`"
        )
    if options.what in PROFILE_PLANES:
        profile = options.profile or DEFAULT_PROFILE
        name = options.name or f"{profile}-{time.strftime('%Y%m%d-%H%M%S')}"
        target = _profile_target(options)
        return profiles.profile_spec(profile, target, name, **options.workload_overrides())
    if options.profile is not None:
        raise refused(
            "--profile",
            "it chooses a built-in profile of `run local|rbd|k8s`; a spec file's workloads "
            "are its own (--runtime, --size, --sweep and --set change them)",
        )
    if options.what in CLOUD_PLANES:
        if options.cloud_spec is None:
            raise click.UsageError(f"run {options.what} needs SPEC.yaml (an openstack target)")
        path = options.cloud_spec
        spec = _cloud_checked(spec_module.load(path), options.what)
    else:
        path = Path(options.what)
        spec = spec_module.load(path)
    return override_spec(spec, options, str(path))


def override_spec(spec: CampaignSpec, options: RunOptions, source: str) -> CampaignSpec:
    """A spec file's spec with the options given in place of its fields (validated again:
    SpecError names a value the spec does not take)."""
    from harness.campaign import profiles
    from harness.core import spec as spec_module

    overrides = options.workload_overrides()
    given = options.given()
    if options.name is None and not given and all(v in (None, ()) for v in overrides.values()):
        return spec
    data = spec.to_dict()
    if options.name is not None:
        data["name"] = options.name
    data["target"] = apply_target_options(data["target"], given)
    profiles.override(data, source, **overrides)
    return spec_module.validate(data, f"{source} with the command line's options")


def _cloud_checked(spec: CampaignSpec, what: str) -> CampaignSpec:
    """`run rally|heat SPEC.yaml`: an openstack spec with workloads of that plane."""
    from harness.core.spec import SpecError

    if spec.target.type != "openstack":
        raise SpecError(
            f"run {what}",
            [
                f"target: the spec's target is {spec.target.type!r}; "
                f"{what} runs on an openstack target"
            ],
        )
    tool = "rally" if what == "rally" else "fio"
    if not any(w.tool == tool for w in spec.workloads):
        raise SpecError(f"run {what}", [f"workloads: none has tool: {tool}"])
    return spec
