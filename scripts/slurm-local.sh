#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A one-node Slurm of its own for the tests (tests/e2e/test_slurm.sh), from
# Debian's packages (slurm-wlm, munge), without systemd:
#   scripts/slurm-local.sh start DIR   munged, slurmctld and slurmd with their
#       config, sockets, spool and logs in DIR (made fresh; its parent must
#       exist); then DIR/env sets SLURM_CONF for srun, sbatch and salloc
#   scripts/slurm-local.sh stop DIR    the daemons ended by their pids, DIR removed
#   scripts/slurm-local.sh check       exit 0 if the packages are installed,
#       else say which are missing (exit 77, a test's skip)
# Each instance takes free ports and a cluster name of its own, so that
# several can run on one machine at once. The node declares SLOTS (default
# 8) CPUs whatever the machine has (SlurmdParameters=config_overrides):
# enough tasks for the tests on a 2-CPU machine.
set -euo pipefail

need() {
	local missing=() c
	for c in munged slurmctld slurmd srun sbatch salloc scancel squeue sacct; do
		command -v "$c" >/dev/null 2>&1 || missing+=("$c")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "slurm-local: not installed: ${missing[*]} (apt-get install slurm-wlm munge)" >&2
		exit 77
	fi
	[ "$(id -u)" = 0 ] || {
		echo "slurm-local: needs root (munged runs as user munge, slurmd as root)" >&2
		exit 77
	}
	id munge >/dev/null 2>&1 || {
		echo "slurm-local: no user munge (the munge package makes it)" >&2
		exit 77
	}
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for WHAT CMD...: up to 30 s for CMD to succeed.
wait_for() {
	local what=$1 _
	shift
	for _ in $(seq 300); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "slurm-local: $what did not come up" >&2
	return 1
}

start() {
	local dir=$1 slots=${SLOTS:-8}
	need
	mkdir -m 0755 "$dir"
	dir=$(cd "$dir" && pwd)
	mkdir -m 0755 "$dir/munge"
	mkdir -m 0755 "$dir/ctl" "$dir/d" "$dir/log" "$dir/tmp" "$dir/pmix"
	dd if=/dev/urandom of="$dir/munge/key" bs=1024 count=1 status=none
	chmod 0400 "$dir/munge/key"
	chown -R munge:munge "$dir/munge"
	# munged as its own user, as the package runs it; it checks that no
	# one else can write where its socket and key are.
	setpriv --reuid=munge --regid=munge --clear-groups munged \
		--key-file="$dir/munge/key" --socket="$dir/munge/socket" \
		--pid-file="$dir/munge/pid" --log-file="$dir/munge/log" \
		--seed-file="$dir/munge/seed"
	wait_for munged test -S "$dir/munge/socket"
	local name node=adaptrm-node ctl_port d_port
	name=adaptrm$$
	ctl_port=$(free_port)
	d_port=$(free_port)
	# Job ids of its own, and the job's and PMIx's temporary files in DIR:
	# two instances' job 1 would otherwise meet in /tmp.
	cat >"$dir/slurm.conf" <<EOF
ClusterName=$name
FirstJobId=$((RANDOM * 1000 + 1))
TmpFS=$dir/tmp
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
StateSaveLocation=$dir/ctl
SlurmdSpoolDir=$dir/d
SlurmctldPidFile=$dir/ctl.pid
SlurmdPidFile=$dir/d.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=5
OverTimeLimit=0
InactiveLimit=0
MinJobAge=300
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$slots State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
	echo "PMIxCliTmpDirBase=$dir/pmix" >"$dir/mpi.conf"
	echo "export SLURM_CONF=$dir/slurm.conf" >"$dir/env"
	SLURM_CONF=$dir/slurm.conf slurmctld -i
	SLURM_CONF=$dir/slurm.conf slurmd -N "$node"
	wait_for "slurmctld and slurmd" env SLURM_CONF="$dir/slurm.conf" \
		sh -c "sinfo -h -N -o %t | grep -qx idle"
}

# stop_pid FILE: end the daemon whose pid FILE holds, and wait for it.
stop_pid() {
	local pid _
	[ -s "$1" ] || return 0
	pid=$(cat "$1")
	kill "$pid" 2>/dev/null || return 0
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
}

stop() {
	local dir=$1
	[ -d "$dir" ] || return 0
	# Its jobs first (a test that failed mid-job leaves one): slurmstepd
	# and the ranks outlive slurmd, so they are ended through Slurm, and
	# given up to 15 s to go.
	local _
	if [ -s "$dir/ctl.pid" ] && kill -0 "$(cat "$dir/ctl.pid")" 2>/dev/null; then
		SLURM_CONF=$dir/slurm.conf scancel --full --user="$(id -un)" 2>/dev/null || true
		for _ in $(seq 150); do
			[ -z "$(SLURM_CONF=$dir/slurm.conf squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.1
		done
	fi
	stop_pid "$dir/d.pid"
	stop_pid "$dir/ctl.pid"
	stop_pid "$dir/munge/pid"
	# What is left of this instance's jobs and only of them (a job
	# cancelled as it was being launched): its slurmstepd processes and
	# its jobs' tasks, whose environments name its config (inherited from
	# slurmd, or passed on by sbatch and srun); a task also has a job id,
	# which the shell that runs this script has not.
	local p env
	for p in /proc/[0-9]*; do
		env=$({ tr '\0' '\n' <"$p/environ"; } 2>/dev/null) || continue
		grep -qxF "SLURM_CONF=$dir/slurm.conf" <<<"$env" || continue
		if [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] || grep -q '^SLURM_JOB_ID=' <<<"$env"; then
			kill -9 "${p#/proc/}" 2>/dev/null || true
		fi
	done
	rm -rf "$dir"
}

case ${1:-} in
start) start "${2:?start needs a directory}" ;;
stop) stop "${2:?stop needs a directory}" ;;
check) need ;;
*)
	echo "usage: $0 start|stop DIR, or $0 check" >&2
	exit 2
	;;
esac
