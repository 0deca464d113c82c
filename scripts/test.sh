#!/usr/bin/env bash
# The test command: first the static checks (`cargo fmt --check`, clippy
# on every target with warnings denied, and `cargo doc --no-deps --release`
# (the release profile, so that it reuses the dependencies clippy checked) with
# rustdoc warnings denied), then starts the one-node SLURM cluster the
# slurm_* tests need (scripts/slurm/local-cluster.sh; installs Debian's
# packages on first use, needs root), installs python-chess from PyPI if
# missing, runs `cargo test --release` with any arguments given, prints the
# cluster's jobs with their ids and states, and stops the cluster if it
# started it, also when a test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== cargo fmt --check"
cargo fmt --check
echo "== cargo clippy --release --all-targets -- -D warnings"
cargo clippy --release --all-targets -- -D warnings
echo "== RUSTDOCFLAGS=\"-D warnings\" cargo doc --no-deps --release"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --release
cluster=scripts/slurm/local-cluster.sh
started=0
stop() {
    echo "== SLURM jobs (id, name, state, reason), finished ones kept for MinJobAge:"
    squeue -h -t all -o '%i %j %T %r' 2>/dev/null | sort -n || true
    if [ $started -eq 1 ]; then
        "$cluster" stop
    fi
}
trap stop EXIT
if ! "$cluster" status >/dev/null 2>&1; then
    "$cluster" start
    started=1
fi
# python-chess, the independent Syzygy reader of tests/six_piece_files.rs.
if ! python3 -c 'import chess.syzygy' 2>/dev/null; then
    pip install --quiet --disable-pip-version-check chess
fi
cargo test --release "$@"
