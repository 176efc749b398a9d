"""Heat templates volperf creates stacks of (cinder-fio: N VMs, each with its own Cinder
volume, running fio and returning the results through Heat), shipped as package data so
`volperf run heat` finds them in an installed package as in a checkout."""
