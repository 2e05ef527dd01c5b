"""Files beside the database: the write-ahead spool and the dead-letter file."""

from tracesim.collector.spool.deadletter import DeadLetter
from tracesim.collector.spool.spool import Spool, SpoolRecord, write_all

__all__ = [
    "DeadLetter",
    "Spool",
    "SpoolRecord",
    "write_all",
]
