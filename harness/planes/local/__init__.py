"""The local plane: fio jobs and database servers on a directory of this machine."""
