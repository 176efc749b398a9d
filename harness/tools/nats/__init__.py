"""NATS (nats-server with JetStream, and natscli's `nats bench`): the broker workload."""
