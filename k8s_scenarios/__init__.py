"""volperf's Kubernetes PVC scenarios, a pytest suite run against any cluster:
`pytest k8s_scenarios --kubeconfig FILE --storage-class A [--storage-class B] ...`."""
