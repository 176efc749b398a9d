"""A container's own block I/O counters (its cgroup's): the shell line that prints them
from inside the container, and the parser of what it printed."""
