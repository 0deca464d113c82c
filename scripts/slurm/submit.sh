#!/usr/bin/env bash
# Submit fiftymove work to SLURM: a sharded scan as an array job with a merge
# held on it, or a whole-closure solve as one job per material with
# dependencies in capture/promotion order. Run it again with the same
# arguments to resume: only what is missing is scheduled.
#
#   scripts/slurm/submit.sh [OPTIONS] scan MATERIAL --shards N --out DIR
#   scripts/slurm/submit.sh [OPTIONS] solve MATERIAL... --cache-dir DIR --out DIR
#   scripts/slurm/submit.sh [OPTIONS] census [MATERIAL...] --shards N --cache-dir DIR --out DIR
#
# Options (before the command):
#   --bin PATH            fiftymove binary (default: target/release/fiftymove of this checkout)
#   --tables DIR          table directory, passed to every task (repeatable)
#   --threads T           CPUs per task (sbatch --cpus-per-task, fiftymove --threads; default 1)
#   --memory-limit SIZE   refuse tasks whose memory bound is over SIZE (as fiftymove takes it)
#   --partition P         sbatch --partition
#   --hold                submit held (release with `scontrol release JOBID`), e.g. for tests
#   --wait                wait for the jobs; report each job's state and each failed task's
#                         shard or material and exit code; exit 1 if any failed
# Options of solve: --rule N|none, --metric dtz|dtm|dtr (passed through).
#
# Each task asks sbatch for its memory bound (from `scan --plan` / `solve --plan`)
# plus 512 MiB for the program itself, and runs with that as its --memory-limit.
# Shard K of N is array task K (`--array` lists the missing K, 1-based, as
# `--shard K/N` takes them), so SLURM's task-id base does not matter.
# Results are written atomically (fiftymove --out), so a killed task leaves
# no file and is scheduled again by the next submission. A result file counts
# as done only when every document in it names the build of --bin: after a
# rebuild, a resubmission computes again what another build made, instead of
# mixing builds (merge would refuse the mixture).
# Outputs in DIR: MATERIAL.shard-K-of-N.json and MATERIAL.json (scan);
# MATERIAL.json for every material of the closure (solve); census.shard-K-of-N.json
# and census/ (census.json, census.csv, census.md, census.html: census, which with no
# material covers every material up to five pieces, shard K taking every N-th in
# census order and sharing the solve cache); logs/ per task, with an .rc file holding
# each task's exit code.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
BIN="$here/../../target/release/fiftymove"
TABLES=() THREADS=1 LIMIT="" PARTITION=() HOLD=() WAIT=0
die() { echo "error: submit.sh: $*" >&2; exit 2; }
say() { echo "submit.sh: $*" >&2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --bin) BIN=$2; shift 2 ;;
        --tables) TABLES+=(--tables "$2"); shift 2 ;;
        --threads) THREADS=$2; shift 2 ;;
        --memory-limit) LIMIT=$2; shift 2 ;;
        --partition) PARTITION=(--partition "$2"); shift 2 ;;
        --hold) HOLD=(--hold); shift ;;
        --wait) WAIT=1; shift ;;
        scan|solve|census) break ;;
        *) die "unknown option $1 (see the comment at the top of $0)" ;;
    esac
done
[ $# -gt 0 ] || die "name a command: scan, solve or census"
KIND=$1; shift
[ -x "$BIN" ] || die "no fiftymove binary at $BIN (cargo build --release, or --bin PATH)"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
BUILD=$("$BIN" --version | sed -n 's/.*(build \([0-9a-f]\{16\}\)).*/\1/p')
[ -n "$BUILD" ] || die "$BIN --version names no build id"
# Whether result file $1 is done: there, and every document of it made by this build.
done_file() { [ -s "$1" ] && ! grep -qv "\"build\":\"$BUILD\"" "$1"; }
# Says why an existing result file $1 is computed again.
note_other_build() { [ -s "$1" ] && say "$1 was made by another build than $BUILD: computed again"; return 0; }
[[ "$THREADS" =~ ^[1-9][0-9]*$ ]] || die "--threads needs a positive number, not '$THREADS'"
command -v sbatch >/dev/null || die "sbatch not found: no SLURM client here (scripts/slurm/local-cluster.sh start makes a one-node cluster)"

MATERIALS=() SHARDS="" OUT="" CACHE="" SOLVE_ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --shards) SHARDS=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --cache-dir) CACHE=$2; shift 2 ;;
        --rule|--metric) SOLVE_ARGS+=("$1" "$2"); shift 2 ;;
        -*) die "unknown option $1 of $KIND" ;;
        *) MATERIALS+=("$1"); shift ;;
    esac
done
[ ${#MATERIALS[@]} -gt 0 ] || [ "$KIND" = census ] || die "$KIND needs a material"
[ -n "$OUT" ] || die "$KIND needs --out DIR"
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
GLOBAL=(--quiet "${TABLES[@]}" --threads "$THREADS")

# The sbatch memory request (MiB) and the task's --memory-limit for a bound.
mem_mib() { echo $(( ($1 + 1048575) / 1048576 + 512 )); }
check_limit() {
    [ -z "$LIMIT" ] && return 0
    local limit_bytes
    case "$LIMIT" in
        *[Kk]) limit_bytes=$(( ${LIMIT%?} * 1024 )) ;;
        *[Mm]) limit_bytes=$(( ${LIMIT%?} * 1048576 )) ;;
        *[Gg]) limit_bytes=$(( ${LIMIT%?} * 1073741824 )) ;;
        *[Tt]) limit_bytes=$(( ${LIMIT%?} * 1099511627776 )) ;;
        *) limit_bytes=$LIMIT ;;
    esac
    [ "$1" -le "$limit_bytes" ] || die "$2 needs $1 bytes of memory, over --memory-limit $LIMIT"
}

# A task's body: run fiftymove, record its exit code next to its log.
task_script() { # name, command...
    local name=$1; shift
    printf '#!/bin/bash\n'
    printf '%q ' "$@"
    printf '\nrc=$?\necho "$rc" > %q.rc.tmp && mv %q.rc.tmp %q.rc\nexit "$rc"\n' \
        "$OUT/logs/$name" "$OUT/logs/$name" "$OUT/logs/$name"
}

# Work still queued for this output directory would be scheduled twice.
BUSY=$(squeue -h -o '%i %k' 2>/dev/null | awk -v c="fiftymove:$OUT" '$2 == c {print $1}' | paste -sd' ' -)
[ -z "$BUSY" ] || die "jobs for $OUT are still queued or running ($BUSY): wait for them to end, or scancel them, then submit again"

JOBS=()   # "jobid<TAB>what" for --wait
LAST_ID=""
submit() { # what, sbatch args...; sets LAST_ID (no subshell, so JOBS is kept)
    local what=$1; shift
    local id
    id=$(sbatch --parsable --comment "fiftymove:$OUT" "${PARTITION[@]}" "${HOLD[@]}" "$@") \
        || die "sbatch refused $what"
    id=${id%%;*}
    JOBS+=("$id	$what")
    LAST_ID=$id
    say "submitted $what as job $id"
}

case "$KIND" in
scan)
    [ ${#MATERIALS[@]} -eq 1 ] || die "scan takes one material per submission"
    [[ "$SHARDS" =~ ^[1-9][0-9]*$ ]] || die "scan needs --shards N (a positive number)"
    M=${MATERIALS[0]}
    N=$SHARDS
    MERGED="$OUT/$M.json"
    if done_file "$MERGED"; then
        say "$MERGED exists: nothing to do"
    else
        note_other_build "$MERGED"
        BOUND=$("$BIN" "${TABLES[@]}" --quiet scan --plan "$M" | cut -f2)
        check_limit "$BOUND" "scan $M"
        MIB=$(mem_mib "$BOUND")
        TODO=()
        for k in $(seq 1 "$N"); do
            SHARD="$OUT/$M.shard-$k-of-$N.json"
            done_file "$SHARD" || { note_other_build "$SHARD"; TODO+=("$k"); }
        done
        DEP=()
        if [ ${#TODO[@]} -gt 0 ]; then
            LIST=$(IFS=,; echo "${TODO[*]}")
            # @K@ stands for the array task id (%q would quote a "$").
            task_script "$M.shard-@K@-of-$N" \
                "$BIN" "${GLOBAL[@]}" --memory-limit "${MIB}M" scan "$M" \
                --shard "@K@/$N" --out "$OUT/$M.shard-@K@-of-$N.json" \
                | sed 's/@K@/${SLURM_ARRAY_TASK_ID}/g' > "$OUT/logs/$M.scan.sh"
            for k in "${TODO[@]}"; do rm -f "$OUT/logs/$M.shard-$k-of-$N.rc"; done
            submit "scan $M shards $LIST of $N" --job-name "fm-scan-$M" --array "$LIST" \
                --ntasks 1 --cpus-per-task "$THREADS" --mem "${MIB}M" \
                --output "$OUT/logs/$M.shard-%a-of-$N.log" "$OUT/logs/$M.scan.sh"
            DEP=(--dependency "afterok:$LAST_ID" --kill-on-invalid-dep yes)
        fi
        SHARD_FILES=()
        for k in $(seq 1 "$N"); do SHARD_FILES+=("$OUT/$M.shard-$k-of-$N.json"); done
        task_script "$M.merge" "$BIN" --quiet merge "${SHARD_FILES[@]}" --out "$MERGED" \
            > "$OUT/logs/$M.merge.sh"
        submit "merge $M ($N shards)" "${DEP[@]}" --job-name "fm-merge-$M" --ntasks 1 \
            --cpus-per-task 1 --mem 512M --output "$OUT/logs/$M.merge.log" \
            "$OUT/logs/$M.merge.sh"
    fi
    ;;
solve)
    [ -n "$CACHE" ] || die "solve needs --cache-dir DIR (shared by the jobs)"
    mkdir -p "$CACHE"
    CACHE=$(cd "$CACHE" && pwd)
    declare -A JOB_OF=()
    PLAN=$("$BIN" --quiet --cache-dir "$CACHE" solve --plan "${SOLVE_ARGS[@]}" "${MATERIALS[@]}")
    # The targets' table names: the last line of each one's plan.
    TARGETS=" "
    for t in "${MATERIALS[@]}"; do
        TARGETS+="$("$BIN" --quiet --cache-dir "$CACHE" solve --plan "${SOLVE_ARGS[@]}" "$t" | tail -1 | cut -f1) "
    done
    while IFS=$'\t' read -r m bound state needs; do
        # A closure material is done once cached; a target once its document
        # is written too.
        if [ "$state" = cached ] && { [[ "$TARGETS" != *" $m "* ]] || done_file "$OUT/$m.json"; }; then
            continue
        fi
        [[ "$TARGETS" != *" $m "* ]] || note_other_build "$OUT/$m.json"
        rm -f "$OUT/logs/$m.solve.rc"
        check_limit "$bound" "solve $m"
        MIB=$(mem_mib "$bound")
        DEPS=()
        if [ "$needs" != "-" ]; then
            IFS=, read -ra parts <<< "$needs"
            for p in "${parts[@]}"; do
                [ -n "${JOB_OF[$p]:-}" ] && DEPS+=("${JOB_OF[$p]}")
            done
        fi
        DEP=()
        if [ ${#DEPS[@]} -gt 0 ]; then
            DEP=(--dependency "afterok:$(IFS=:; echo "${DEPS[*]}")" --kill-on-invalid-dep yes)
        fi
        task_script "$m.solve" "$BIN" "${GLOBAL[@]}" --memory-limit "${MIB}M" --cache-dir "$CACHE" \
            solve "${SOLVE_ARGS[@]}" "$m" --out "$OUT/$m.json" > "$OUT/logs/$m.solve.sh"
        submit "solve $m" "${DEP[@]}" --job-name "fm-solve-$m" --ntasks 1 \
            --cpus-per-task "$THREADS" --mem "${MIB}M" --output "$OUT/logs/$m.solve.log" \
            "$OUT/logs/$m.solve.sh"
        JOB_OF[$m]=$LAST_ID
    done <<< "$PLAN"
    [ ${#JOB_OF[@]} -gt 0 ] || say "every material is solved and written: nothing to do"
    ;;
census)
    [[ "$SHARDS" =~ ^[1-9][0-9]*$ ]] || die "census needs --shards N (a positive number)"
    [ -n "$CACHE" ] || die "census needs --cache-dir DIR (shared by the tasks)"
    mkdir -p "$CACHE"
    CACHE=$(cd "$CACHE" && pwd)
    N=$SHARDS
    REPORT="$OUT/census"
    if [ -s "$REPORT/census.json" ] && grep -q "\"build\": \"$BUILD\"" "$REPORT/census.json"; then
        say "$REPORT/census.json exists: nothing to do"
    else
        [ -s "$REPORT/census.json" ] && say "$REPORT/census.json was made by another build than $BUILD: computed again"
        # Every task asks for the largest bound of the census's materials.
        BOUND=$("$BIN" --quiet --cache-dir "$CACHE" census --plan "${MATERIALS[@]}" | cut -f2 | sort -n | tail -1)
        check_limit "$BOUND" "census"
        MIB=$(mem_mib "$BOUND")
        TODO=()
        for k in $(seq 1 "$N"); do
            SHARD="$OUT/census.shard-$k-of-$N.json"
            done_file "$SHARD" || { note_other_build "$SHARD"; TODO+=("$k"); }
        done
        DEP=()
        if [ ${#TODO[@]} -gt 0 ]; then
            LIST=$(IFS=,; echo "${TODO[*]}")
            task_script "census.shard-@K@-of-$N" \
                "$BIN" "${GLOBAL[@]}" --memory-limit "${MIB}M" --cache-dir "$CACHE" census \
                --shard "@K@/$N" --out "$OUT" "${MATERIALS[@]}" \
                | sed 's/@K@/${SLURM_ARRAY_TASK_ID}/g' > "$OUT/logs/census.sh"
            for k in "${TODO[@]}"; do rm -f "$OUT/logs/census.shard-$k-of-$N.rc"; done
            submit "census shards $LIST of $N" --job-name "fm-census" --array "$LIST" \
                --ntasks 1 --cpus-per-task "$THREADS" --mem "${MIB}M" \
                --output "$OUT/logs/census.shard-%a-of-$N.log" "$OUT/logs/census.sh"
            DEP=(--dependency "afterok:$LAST_ID" --kill-on-invalid-dep yes)
        fi
        SHARD_FILES=()
        for k in $(seq 1 "$N"); do SHARD_FILES+=("$OUT/census.shard-$k-of-$N.json"); done
        task_script "census.merge" "$BIN" --quiet census --from "${SHARD_FILES[@]}" --out "$REPORT" \
            > "$OUT/logs/census.merge.sh"
        submit "census merge ($N shards)" "${DEP[@]}" --job-name "fm-census-merge" --ntasks 1 \
            --cpus-per-task 1 --mem 512M --output "$OUT/logs/census.merge.log" \
            "$OUT/logs/census.merge.sh"
    fi
    ;;
esac

[ $WAIT -eq 1 ] || exit 0
[ ${#JOBS[@]} -gt 0 ] || exit 0
IDS=$(for j in "${JOBS[@]}"; do echo "${j%%	*}"; done | paste -sd, -)
# sbatch --wait polls at 2, 10, 42 s...; squeue every half second is faster.
while [ -n "$(squeue -h -j "$IDS" 2>/dev/null)" ]; do sleep 0.5; done
FAILED=0
for j in "${JOBS[@]}"; do
    id=${j%%	*}
    what=${j#*	}
    state=$(scontrol show job -o "$id" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort | uniq -c \
        | awk '{sub("JobState=","",$2); printf "%s%s x%s", sep, $2, $1; sep=", "}')
    echo "job $id ($what): ${state:-gone}"
done
# Failed tasks, from their exit codes (a cancelled or killed task leaves none).
case "$KIND" in
scan)
    if [ -n "${TODO+x}" ]; then
        for k in "${TODO[@]}"; do
            rcf="$OUT/logs/$M.shard-$k-of-$N.rc"
            rc=$(cat "$rcf" 2>/dev/null || echo "none (killed or cancelled)")
            if [ "$rc" != 0 ] || [ ! -s "$OUT/$M.shard-$k-of-$N.json" ]; then
                echo "failed: scan $M shard $k/$N, exit code $rc (log $OUT/logs/$M.shard-$k-of-$N.log)"
                FAILED=1
            fi
        done
    fi
    [ -s "$OUT/$M.json" ] || { echo "not merged: $OUT/$M.json is missing"; FAILED=1; }
    ;;
census)
    if [ -n "${TODO+x}" ]; then
        for k in "${TODO[@]}"; do
            rcf="$OUT/logs/census.shard-$k-of-$N.rc"
            rc=$(cat "$rcf" 2>/dev/null || echo "none (killed or cancelled)")
            if [ "$rc" != 0 ] || [ ! -s "$OUT/census.shard-$k-of-$N.json" ]; then
                echo "failed: census shard $k/$N, exit code $rc (log $OUT/logs/census.shard-$k-of-$N.log)"
                FAILED=1
            fi
        done
    fi
    [ -s "$OUT/census/census.json" ] || { echo "not merged: $OUT/census/census.json is missing"; FAILED=1; }
    ;;
solve)
    for m in "${!JOB_OF[@]}"; do
        rc=$(cat "$OUT/logs/$m.solve.rc" 2>/dev/null || echo "none (killed, cancelled, or a dependency failed)")
        if [ "$rc" != 0 ] || [ ! -s "$OUT/$m.json" ]; then
            echo "failed: solve $m, exit code $rc (log $OUT/logs/$m.solve.log)"
            FAILED=1
        fi
    done
    ;;
esac
exit $FAILED
