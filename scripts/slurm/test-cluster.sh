#!/usr/bin/env bash
# A one-node Slurm on this machine, for testing the scripts of scripts/slurm/ against the real
# thing (tests/slurm/run.sh; docs/SCALE.md):
#   eval "$(scripts/slurm/test-cluster.sh start)"   # exports SLURM_CONF; waits for an idle node
#   scripts/slurm/test-cluster.sh status            # sinfo and squeue of the test cluster
#   scripts/slurm/test-cluster.sh stop              # cancels its jobs, stops it, removes its state
# `start` installs Debian's slurmctld, slurmd, slurm-client and munge where they are missing
# (apt-get), writes slurm.conf into the state folder ($SLURM_TEST_DIR, default
# /tmp/gpu-sudoku-slurm) and starts munged, slurmctld and slurmd there, on their own ports and
# munge socket: one node with this machine's CPUs (nproc), no GPU (no gres), no cgroups
# (proctrack/linuxproc, task/none), so that it runs in a container too.
# Needs root. Where Slurm cannot be had or started, it says why in one line and exits with 77.
# Written for and tested with Debian 12's Slurm 22.05.
set -euo pipefail
SKIP=77
D=${SLURM_TEST_DIR:-/tmp/gpu-sudoku-slurm}
CONF=$D/slurm.conf
CTLD_PORT=${SLURM_TEST_PORT:-16817}
SLURMD_PORT=$((CTLD_PORT + 1))

say() { echo "test-cluster: $*" >&2; }
skip() {
  say "$*"
  exit "$SKIP"
}

alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# The tail of a daemon's log, on one line.
last_log() { tail -n 3 "$1" 2>/dev/null | tr '\n' ' ' | cut -c1-400; }

install() {
  local missing=()
  command -v slurmctld >/dev/null || missing+=(slurmctld)
  command -v slurmd >/dev/null || missing+=(slurmd)
  command -v sbatch >/dev/null || missing+=(slurm-client)
  command -v munged >/dev/null || missing+=(munge)
  [ ${#missing[@]} = 0 ] && return 0
  command -v apt-get >/dev/null || skip "Slurm is not installed (${missing[*]}) and there is no apt-get to install it"
  say "installing ${missing[*]} (apt-get)"
  # RUNLEVEL=1: the packages' services are not started; this script starts its own.
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$D.apt.log" 2>&1; then
    skip "apt-get could not install ${missing[*]} (its output: $D.apt.log)"
  fi
  rm -f "$D.apt.log"
}

stop() {
  if [ -s "$CONF" ] && alive "$D/slurmctld.pid"; then
    # Jobs first: slurmd alone would leave their processes running.
    local jobs
    jobs=$(SLURM_CONF=$CONF squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')
    if [ -n "${jobs// /}" ]; then
      # shellcheck disable=SC2086 # one argument per job id
      SLURM_CONF=$CONF scancel $jobs 2>/dev/null || true
      for _ in $(seq 100); do
        [ -z "$(SLURM_CONF=$CONF squeue -h -o %A 2>/dev/null)" ] && break
        sleep 0.1
      done
    fi
  fi
  local f pids=()
  for f in slurmd slurmctld munged; do
    if alive "$D/$f.pid"; then
      pids+=("$(cat "$D/$f.pid")")
      kill "$(cat "$D/$f.pid")"
    fi
  done
  for _ in $(seq 100); do
    local running=0 p
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && running=1; done
    [ $running = 0 ] && break
    sleep 0.1
  done
  # Only a folder this script made (its mark inside) is removed.
  if [ -e "$D/.test-cluster" ]; then rm -rf "$D"; fi
}

start() {
  [ "$(id -u)" = 0 ] || skip "needs root (to install Slurm and to run slurmd), and this is uid $(id -u)"
  install
  stop
  if [ -e "$D" ]; then skip "$D is there and not a test cluster's state folder: set SLURM_TEST_DIR"; fi
  mkdir -p "$D/ctld" "$D/slurmd"
  touch "$D/.test-cluster"
  chmod 755 "$D"
  local host cpus
  host=$(hostname -s)
  cpus=$(nproc)
  head -c 1024 /dev/urandom >"$D/munge.key"
  chmod 600 "$D/munge.key"
  cat >"$CONF" <<EOF
# A one-node test cluster (scripts/slurm/test-cluster.sh); removed by its stop.
ClusterName=gpu-sudoku-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge.socket
StateSaveLocation=$D/ctld
SlurmdSpoolDir=$D/slurmd
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobRequeue=1
ReturnToService=2
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$CONF
  munged --key-file="$D/munge.key" --socket="$D/munge.socket" --pid-file="$D/munged.pid" \
    --log-file="$D/munged.log" --seed-file="$D/munged.seed" >/dev/null 2>&1 ||
    skip "munged did not start: $(last_log "$D/munged.log")"
  slurmctld >/dev/null 2>&1 || skip "slurmctld did not start: $(last_log "$D/slurmctld.log")"
  slurmd >/dev/null 2>&1 || skip "slurmd did not start: $(last_log "$D/slurmd.log")"
  local state=""
  for _ in $(seq 300); do
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    alive "$D/slurmctld.pid" || skip "slurmctld stopped: $(last_log "$D/slurmctld.log")"
    alive "$D/slurmd.pid" || skip "slurmd stopped: $(last_log "$D/slurmd.log")"
    sleep 0.1
  done
  [ "$state" = idle ] || skip "node $host is '${state:-unknown}' after 30 s, not idle: $(last_log "$D/slurmd.log")"
  say "one node ($host, $cpus CPUs, partition test) is idle; state and logs in $D"
  echo "export SLURM_CONF=$CONF"
}

status() {
  if ! { [ -s "$CONF" ] && alive "$D/slurmctld.pid"; }; then
    say "not running (no slurmctld of $CONF)"
    exit 1
  fi
  export SLURM_CONF=$CONF
  sinfo
  squeue
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *)
    echo "usage: $0 start|status|stop   (state folder: \$SLURM_TEST_DIR, now $D)" >&2
    exit 2
    ;;
esac
