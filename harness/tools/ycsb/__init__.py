"""YCSB: go-ycsb's core workload and measurements in a small client of volperf's own that
links only go-ycsb's Redis binding (go/main.go), built from the Go module proxy."""
