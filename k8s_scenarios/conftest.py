"""Options and fixtures come from k8s_scenarios.plugin (entry point volperf_k8s)."""
