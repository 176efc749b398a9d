"""Kubernetes for volperf: the cluster's client, names, events, and pods running fio."""
