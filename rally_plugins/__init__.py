"""volperf's Rally plugins, found by Rally through the ``rally_plugins`` entry point
(``path = rally_plugins``): hooks that sample Ceph health during a task, give its OSDs
faults and stop and start the OpenStack testbed's Cinder services, SLAs on per-action
percentiles, on regression against a baseline campaign and on volperf's warnings in the
data-plane scenario's iterations, and the ``volperf`` exporter that writes a task into a
volperf campaign. Task files are in tasks/."""
