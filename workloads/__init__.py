"""Real components: replay against databases (SQLAlchemy), calibration of disks (sysbench, fio)."""
