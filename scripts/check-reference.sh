#!/usr/bin/env bash
# Scans every 3- and 4-piece table with the probe engine and compares every
# count and every histogram bin with the Syzygy generator's published
# statistics (tests/reference/generator-stats-3-4-piece.txt). Takes tens of
# minutes on two cores; CI runs a representative subset instead.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --test scan_probe_engine -- --ignored --nocapture "$@"
