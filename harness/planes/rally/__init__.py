"""The control plane through Rally: its task results as records (rally.csv), the task
runner volperf drives through Rally's Python API, and cleanup of what a task left."""
