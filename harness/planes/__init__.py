"""Planes: where a campaign's consumers run, one folder each (local, ceph, rally, heat,
k8s), with what they share: the target contract (base), fio on this host (fio_step),
OpenStack cloud access (cloud) and the `openstack` target that splits between Rally and
Heat; registry.py names every plane's targets, record builders and cleanups."""
