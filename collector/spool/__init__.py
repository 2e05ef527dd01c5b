"""Files beside the database: the write-ahead spool and the dead-letter file."""

from collector.spool.deadletter import DeadLetter
from collector.spool.spool import Spool, SpoolRecord, write_all

__all__ = [
    "DeadLetter",
    "Spool",
    "SpoolRecord",
    "write_all",
]
