"""Hosts that run fio --server, reached through fio's client."""
