"""Talking to a Ceph cluster: access settings, RBD images, health samples and events."""
