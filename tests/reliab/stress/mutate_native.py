"""Random mutations of every recorded trace request through the native OTLP reader: each
tree it returns must equal upb's and it never accepts bytes upb refuses (run under ASan by
`native_asan.sh`); `--rss` instead prints RSS over 200k decodes of hostile requests.
Usage: python -m tests.reliab.stress.mutate_native SECONDS SEED [--rss]"""

from __future__ import annotations

import random
import sys
import time

from tracesim.collector.decode import spans_tree

from tests.collector.test_otlp_wire import _agrees_or_defers, _hostile, _recorded
from tests.reliab.stress import asan_plugin  # noqa: F401 - first: the reader under test


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        low = number & 0x7F
        number >>= 7
        out.append(low | 0x80 if number else low)
        if not number:
            return bytes(out)


_HUGE = [_varint(2**31), _varint(2**63), b"\xff" * 10, _varint(2**64 - 1), b"\x80" * 11]


def mutate(rng: random.Random, seeds: list[bytes]) -> bytes:
    """A recorded request with 1-6 damages: byte and bit flips, truncation, insertion,
    huge varints and lengths, splices, duplicated stretches, changed wire types."""
    payload = bytearray(rng.choice(seeds))
    for _ in range(rng.randint(1, 6)):
        if not payload:
            payload = bytearray(b"\x0a")
        at = rng.randrange(len(payload))
        pick = rng.random()
        if pick < 0.25:
            payload[at] = rng.randrange(256)
        elif pick < 0.35:
            payload[at] ^= 1 << rng.randrange(8)
        elif pick < 0.5:
            del payload[at:]
        elif pick < 0.6:
            payload[at:at] = rng.randbytes(rng.randint(1, 8))
        elif pick < 0.7:
            payload[at : at + 1] = rng.choice(_HUGE)
        elif pick < 0.8:
            other = rng.choice(seeds)
            payload[at:] = other[rng.randrange(len(other)) :] if other else b""
        elif pick < 0.9:
            payload[at:at] = payload[at : min(len(payload), at + rng.randint(1, 64))]
        else:
            payload[at] = (payload[at] & ~7) | rng.randrange(8)
    return bytes(payload)


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    return 0


def main() -> None:
    seconds, seed = float(sys.argv[1]), int(sys.argv[2])
    native = spans_tree._native
    assert native is not None, "the native reader is not built"
    rng = random.Random(seed)
    seeds = [*_recorded(), _hostile()]
    if "--rss" in sys.argv:
        payloads = seeds + [mutate(rng, seeds) for _ in range(400)]
        marks = {}
        for done in range(1, 200_001):
            payload = payloads[done % len(payloads)]
            for read in (native.decode_traces, native.check_traces):
                try:
                    read(payload)
                except native.Unsupported:
                    pass
            if done in (20_000, 100_000, 200_000):
                marks[done] = _rss_kb()
        print(f"RSS kB after N decodes: {marks}; growth {marks[200_000] - marks[20_000]} kB")
        return
    end = time.monotonic() + seconds
    count = 0
    while time.monotonic() < end:
        payload = mutate(rng, seeds)
        _agrees_or_defers(payload)
        try:
            native.check_traces(payload)
        except native.Unsupported:
            pass
        count += 1
    print(f"seed {seed}: {count} mutated requests of {len(seeds)} recorded, no fault")


if __name__ == "__main__":
    main()
