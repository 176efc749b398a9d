"""fio: job rendering, running and parsing of its json+ output."""
