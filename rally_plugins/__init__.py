"""volperf's Rally plugins, found by Rally through the ``rally_plugins`` entry point
(``path = rally_plugins``): a hook that samples Ceph health during a task, SLAs on
per-action percentiles, on regression against a baseline campaign and on volperf's
warnings in the data-plane scenario's iterations, and the ``volperf``
exporter that writes a task into a volperf campaign. Task files are in tasks/."""
