"""fio in VMs through Heat: stacks of heat_templates/cinder-fio, their parameters, the
raw answers volperf keeps of them, and the records derived from those."""
