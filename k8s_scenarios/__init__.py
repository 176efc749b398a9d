"""volperf's Kubernetes PVC scenarios, a pytest suite run against any cluster:
`pytest --pyargs k8s_scenarios --volperf-kubeconfig FILE --volperf-storage-class A
[--volperf-storage-class B] ...` (every option of its plugin is in pytest's volperf
group, named --volperf-*)."""
