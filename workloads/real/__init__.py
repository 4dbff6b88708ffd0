"""Real components: databases, sysbench, fio, files and the clock (pure models: one level up)."""
