#!/usr/bin/env bash
# Build the native OTLP reader with ASan/UBSan in a throwaway folder, run the decoding
# tests and SECONDS of random mutation of the recorded requests under it.
# Usage (from the repository root): tests/reliab/stress/native_asan.sh [SECONDS] [SEED]
set -euo pipefail
seconds=${1:-240}
seed=${2:-1}
root=$(pwd)
work=$(mktemp -d)
cp collector/decode/_otlp_* "$work"/
rm -f "$work"/*.so
include=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['include'])")
gcc -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined \
  -shared -fPIC -I"$include" "$work"/_otlp_wire.c "$work"/_otlp_values.c "$work"/_otlp_check.c \
  -o "$work"/_otlp_wire_asan.so
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TRACESIM_ASAN_READER="$work"/_otlp_wire_asan.so
export PYTHONPATH="$root"
.venv/bin/python -m pytest -x -q -p no:cacheprovider -p tests.reliab.stress.asan_plugin \
  tests/collector/test_otlp_wire.py tests/collector/test_decoder_equivalence.py \
  tests/collector/test_decode_properties.py tests/collector/test_decode.py \
  tests/collector/test_hostile_values.py tests/reliab/test_huge_spans.py \
  tests/reliab/test_hostile_indexes.py
.venv/bin/python -m tests.reliab.stress.mutate_native "$seconds" "$seed"
rm -rf "$work"
