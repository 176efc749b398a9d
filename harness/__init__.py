"""volperf: storage-performance test kit for cloud block storage."""

__version__ = "0.1.0"
