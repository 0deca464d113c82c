#!/usr/bin/env bash
# A one-node SLURM cluster on this host, for tests and small runs:
#
#   scripts/slurm/local-cluster.sh start    install (if missing), configure, start
#   scripts/slurm/local-cluster.sh stop     stop the daemons, leave no pid files
#   scripts/slurm/local-cluster.sh status   print the node's state (exit 1 if down)
#
# Needs root (package install, daemons). Follows docs/slurm-single-node.md:
# Debian's slurmctld, slurmd, slurm-client and munge without Recommends; a
# slurm.conf made from this host's name, CPUs and memory, on loopback only;
# munged run as user munge with /run/munge made first (no systemd here);
# daemons stopped by pid, never by name; the root-owned slurmctld pid file,
# which slurmctld (running as slurm) cannot remove, removed by hand.
set -euo pipefail

PIDS=(/run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid)
CONF=/etc/slurm/slurm.conf

say() { echo "local-cluster: $*" >&2; }
die() { echo "error: local-cluster: $*" >&2; exit 1; }

node_state() { sinfo -h -n "$(hostname -s)" -o %t 2>/dev/null || true; }

install_packages() {
    local missing=()
    for cmd in slurmctld slurmd sbatch munged; do
        command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || missing+=("$cmd")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing slurmctld slurmd slurm-client munge (missing: ${missing[*]})"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        slurmctld slurmd slurm-client munge >/dev/null
}

write_config() {
    local node mem cpus
    node=$(hostname -s)
    mem=$(free -m | awk '/^Mem:/{print $2}')
    cpus=$(nproc)
    mkdir -p /etc/slurm
    local tmp
    tmp=$(mktemp /etc/slurm/.slurm.conf.XXXXXX)
    cat > "$tmp" <<CONF
# Written by fiftymove's scripts/slurm/local-cluster.sh for this host.
ClusterName=fiftymove
SlurmctldHost=${node}(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
SlurmUser=slurm
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=${node} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${mem} State=UNKNOWN
PartitionName=debug Nodes=${node} Default=YES MaxTime=INFINITE State=UP
CONF
    chmod 0644 "$tmp"
    mv "$tmp" "$CONF"
}

stop_daemons() {
    local f p
    for f in "${PIDS[@]}"; do
        [ -s "$f" ] || continue
        p=$(cat "$f")
        if kill -0 "$p" 2>/dev/null; then
            kill "$p" 2>/dev/null || true
            for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
            kill -0 "$p" 2>/dev/null && die "process $p (from $f) did not stop"
        fi
        rm -f "$f"
    done
    # slurmctld runs as slurm and cannot unlink its root-owned pid file.
    rm -f /run/slurmctld.pid
}

start() {
    [ "$(id -u)" -eq 0 ] || die "start needs root (packages and daemons)"
    if [ "$(node_state)" = idle ] || [ "$(node_state)" = mix ] || [ "$(node_state)" = alloc ]; then
        say "already running"; sinfo; return 0
    fi
    install_packages
    write_config
    stop_daemons   # stale pid files of an earlier run
    install -d -o munge -g munge -m 0755 /run/munge
    runuser -u munge -- /usr/sbin/munged
    munge -n | unmunge >/dev/null || die "munge does not work"
    /usr/sbin/slurmctld -c
    /usr/sbin/slurmd
    for _ in $(seq 1 60); do
        [ "$(node_state)" = idle ] && break
        sleep 0.5
    done
    if [ "$(node_state)" != idle ]; then
        sinfo -R || true
        tail -20 /var/log/slurm/slurmd.log /var/log/slurm/slurmctld.log >&2 || true
        stop_daemons
        die "the node did not become idle"
    fi
    sinfo
}

case "${1:-}" in
    start) start ;;
    stop) stop_daemons; say "stopped" ;;
    status)
        s=$(node_state)
        echo "${s:-down}"
        [ -n "$s" ] && [ "$s" != down ] ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
