#!/usr/bin/env bash
# fixtures.sh - start and stop feedrate's storage fixtures (all on loopback).
#
#   fixtures.sh start [--owner PID] [local] [blk] [s3] [nfs] [unfs]
#                             (none named: local blk s3)
#   fixtures.sh stop          undo everything the registry lists, then look
#                             for leftovers by name (mounts, loop devices on
#                             our image, our cgroup, our processes)
#   fixtures.sh env           KEY=VALUE lines for what is running
#   fixtures.sh check KIND    exit 0, or 77 with the missing facility on stderr
#   fixtures.sh leftovers     list anything of ours still on the machine
#                             (exit 1 when something is)
#   fixtures.sh throttled CMD...      run CMD inside the blkio throttle
#   fixtures.sh throttle BPS IOPS     change the throttle (0: unlimited)
#   fixtures.sh s3-stats      the S3 server's counters (JSON)
#   fixtures.sh s3-reset      zero them
#   fixtures.sh nfs-server-evict   drop the NFS server's own page cache of
#                             the export (what a client's eviction leaves)
#   fixtures.sh unfs-server-evict  the same for the unfs fixture's export
#
# The fixtures:
#   local  a folder on the machine's own disk (under the state folder)
#   blk    an ext4 image on a loop device (losetup --direct-io=on, so the
#          image file's own page cache cannot hide the throttle), mounted,
#          read through a blkio cgroup v1 throttle: by default gp3's
#          baseline, 125 MiB/s and 3000 IOPS (AWS EBS docs)
#   s3     s3rver (npm, installed by `npm ci` in this folder) on 127.0.0.1
#          and Debian's s3fs mounting its bucket through FUSE
#   nfs    a folder exported by the kernel NFS server on 127.0.0.1 (Debian
#          nfs-kernel-server: exportfs, rpc.nfsd, rpc.mountd, rpcbind) and
#          mounted with `mount -t nfs4`. The kernel's server is one per
#          machine (network namespace): one already running is used as it
#          is; one this script starts is stopped when the last fixture set
#          using it stops (NFS_SERVER_DIR counts them). Needs nfs and nfsd
#          in the kernel: where they are missing it exits 77 naming them.
#          Not started unless named.
#   unfs   NFS in user space, for kernels without NFS (this project's CI):
#          nfs-ganesha (FSAL VFS) serves a folder over NFSv4 on 127.0.0.1,
#          on a port of this fixture set's own (no rpcbind), and nfsfuse
#          (nfsfuse.c here, on libnfs and FUSE 2, built into the state
#          folder on start) mounts it read only: /proc/mounts shows
#          nfs://127.0.0.1/export, type fuse.nfsfuse. The dataset is copied
#          into the export before the server starts. Not started unless
#          named.
# Each gets a copy of one synthetic dataset, `feedrate gen --size SIZE`.
#
# Settings (environment):
#   FEEDRATE_FIXTURE_DIR   state folder (default /var/tmp/feedrate-fixtures);
#                          must be on a disk, not tmpfs
#   FEEDRATE_BIN           the feedrate binary (default: ./feedrate at the root)
#   FIXTURE_SIZE           dataset size (default 30M)
#   FIXTURE_THROTTLE_BPS   read bytes/s  (default 131072000 = 125 MiB/s)
#   FIXTURE_THROTTLE_IOPS  read IOPS     (default 3000)
#   FIXTURE_S3_FIRST_BYTE_MS  delay of each object GET (default 0)
#   FIXTURE_S3FS_OPTS      extra s3fs -o options (e.g. kernel_cache)
#   FIXTURE_BLK_COPIES     the ext4 image holds this many dataset sizes
#                          (default 2)
#   FIXTURE_NFS_OPTS       extra mount -o options for the nfs fixture
#   FEEDRATE_NFS_SERVER_DIR  the kernel NFS server's users and what this
#                          script started of it (default
#                          /var/tmp/feedrate-nfs-server)
#
# Cleanup: every resource is written to STATE/registry the moment it exists;
# `stop` undoes the registry in reverse order. `start --owner PID` also
# leaves a watcher that runs `stop` when PID exits, so a test runner that
# crashes or is killed leaves nothing behind; and `start` first removes
# what an earlier run left (registry of a dead owner, or anything found by
# name). `start` is idempotent: fixtures already up are reused.
# Exit status: 0 ok, 1 failure, 2 usage, 77 a facility is missing (skip).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
STATE=${FEEDRATE_FIXTURE_DIR:-/var/tmp/feedrate-fixtures}
STATE=${STATE%/}
LOCK="$STATE.lock"
REG="$STATE/registry"
TAG="feedrate-fixture-proc"
BUCKET="feedrate-fixture"
CGNAME="feedrate-fixture-$(echo -n "$STATE" | cksum | cut -d' ' -f1)"
SIZE=${FIXTURE_SIZE:-30M}
BPS=${FIXTURE_THROTTLE_BPS:-131072000}
IOPS=${FIXTURE_THROTTLE_IOPS:-3000}
FB_MS=${FIXTURE_S3_FIRST_BYTE_MS:-0}
NFS_SERVER_DIR=${FEEDRATE_NFS_SERVER_DIR:-/var/tmp/feedrate-nfs-server}
NFS_CLIENT=127.0.0.1
BIN=${FEEDRATE_BIN:-$ROOT/feedrate}
case "$BIN" in /*) ;; *) BIN="$ROOT/$BIN" ;; esac

say() { echo "fixtures: $*" >&2; }
die() { say "$*"; exit 1; }
skip() { say "skip: $*"; exit 77; }

# ---- registry ----
reg_add() { echo "$*" >>"$REG"; }
reg_has() { [ -f "$REG" ] && grep -qxF "$*" "$REG"; }

blkio_root() {
	awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' \
		/proc/mounts
}

pid_is_ours() {   # PID: a fixture process (server, s3fs, watcher) of STATE
	local pid=$1 cmd comm
	cmd=$( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null) || return 1
	comm=$( { cat "/proc/$pid/comm"; } 2>/dev/null) || return 1
	# the folder itself, or a path in it: not a sibling set's longer name
	case "$cmd" in *"$STATE/"*|*" $STATE "*) ;; *) return 1 ;; esac
	case "$cmd" in *"$TAG"*) return 0 ;; esac
	case "$comm" in s3fs|ganesha.nfsd|nfsfuse) return 0 ;; esac
	return 1
}

# The PIDs whose command line holds STATE: a superset of those pid_is_ours
# accepts (its every case needs STATE in the command line), found by one
# grep rather than two forks a process (tens of seconds a scan on a
# loaded machine, at every start and twice at every stop)
state_pids() {
	grep -lsaF -- "$STATE" /proc/[0-9]*/cmdline 2>/dev/null |
		sed -n 's|^/proc/\([0-9]*\)/cmdline$|\1|p'
}

kill_pid() {      # PID: TERM, wait up to 3 s, then KILL
	local pid=$1 i
	pid_is_ours "$pid" || return 0
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 30); do
		pid_is_ours "$pid" || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	sleep 0.1
}

undo_mount() {
	local mnt=$1 i
	grep -qF " $mnt " /proc/mounts || return 0
	for i in 1 2 3; do
		umount "$mnt" 2>/dev/null && return 0
		sleep 0.3
	done
	umount -l "$mnt" 2>/dev/null || say "cannot unmount $mnt"
}

undo_cgroup() {
	local cg=$1 parent t
	[ -d "$cg" ] || return 0
	parent=$(dirname "$cg")
	# move any task still inside to the parent, then remove it
	for t in $(cat "$cg/cgroup.procs" 2>/dev/null); do
		echo "$t" >"$parent/cgroup.procs" 2>/dev/null
	done
	rmdir "$cg" 2>/dev/null || say "cannot remove cgroup $cg"
}

undo_loop() {
	local dev=$1
	losetup "$dev" >/dev/null 2>&1 || return 0
	losetup -d "$dev" 2>/dev/null || say "cannot detach $dev"
}

# ---- the kernel NFS server, shared by every fixture set ----
state_id() { echo -n "$STATE" | cksum | cut -d' ' -f1; }

# "CLIENT:PATH" of each export of a folder in the state folder
our_exports() {
	[ -r /var/lib/nfs/etab ] || return 0
	awk -v s="$STATE/" 'index($1, s) == 1 {
		c = $2; sub(/\(.*/, "", c); print c ":" $1 }' /var/lib/nfs/etab
}

undo_export() {
	command -v exportfs >/dev/null || return 0
	exportfs -u "$1" 2>/dev/null || say "cannot unexport $1"
}

nfsd_running() {
	[ -r /proc/fs/nfsd/threads ] &&
		[ "$(cat /proc/fs/nfsd/threads 2>/dev/null)" -gt 0 ] 2>/dev/null
}

# Kill PID when it still is the daemon COMM this script started.
kill_daemon() {
	local pid=$1 comm=$2 i
	[ "$( { cat "/proc/$pid/comm"; } 2>/dev/null)" = "$comm" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 30); do
		[ -d "/proc/$pid" ] || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
}

# Make sure the kernel NFS server runs, and count this fixture set among
# its users. What is started here is written to NFS_SERVER_DIR/started,
# one "KIND ARG" a line, and undone by the last user's release.
nfs_server_acquire() {
	local d=$NFS_SERVER_DIR pid i
	mkdir -p "$d/users" || die "cannot create $d"
	exec 8>"$d.lock"
	flock 8
	echo "$STATE" >"$d/users/$(state_id)"
	reg_add nfs-user
	if ! nfsd_running; then
		if [ ! -e /proc/fs/nfsd/threads ]; then
			mount -t nfsd nfsd /proc/fs/nfsd ||
				die "cannot mount the nfsd filesystem on /proc/fs/nfsd"
			echo "mount /proc/fs/nfsd" >>"$d/started"
		fi
		# NFSv3 mounts and rpc.nfsd's registration go through rpcbind
		if ! rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
			mkdir -p /run/rpcbind
			setsid rpcbind -f -w </dev/null >"$d/rpcbind.log" 2>&1 \
				8>&- 9>&- &
			pid=$!
			echo "daemon $pid rpcbind" >>"$d/started"
			for i in $(seq 50); do
				rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && break
				sleep 0.1
			done
		fi
		# rpc.mountd answers the kernel's questions about exports
		# (NFSv4 too); -F keeps it in the foreground, so its pid is known
		setsid rpc.mountd -F </dev/null >"$d/mountd.log" 2>&1 8>&- 9>&- &
		pid=$!
		echo "daemon $pid rpc.mountd" >>"$d/started"
		# a 10 s grace period (the kernel's least) instead of 90 s: opens
		# wait out the grace period of a server that has just started
		rpc.nfsd --grace-time 10 --lease-time 10 4 ||
			die "rpc.nfsd failed"
		echo "nfsd" >>"$d/started"
		nfsd_running || die "rpc.nfsd started no threads"
	fi
	exec 8>&-
}

# This fixture set no longer uses the server; the last user stops what
# nfs_server_acquire started (never a server found running).
nfs_server_release() {
	local d=$NFS_SERVER_DIR u kind arg rest
	[ -d "$d/users" ] || return 0
	exec 8>"$d.lock"
	flock 8
	rm -f -- "$d/users/$(state_id)"
	# users whose state folder is gone left without releasing
	for u in "$d"/users/*; do
		[ -f "$u" ] && [ ! -d "$(cat "$u")" ] && rm -f -- "$u"
	done
	if [ -z "$(ls -A "$d/users")" ] && [ -f "$d/started" ]; then
		tac "$d/started" | while read -r kind arg rest; do
			case "$kind" in
			nfsd) rpc.nfsd 0 2>/dev/null || say "cannot stop nfsd" ;;
			daemon) kill_daemon "$arg" "$rest" ;;
			mount) umount "$arg" 2>/dev/null ||
				say "cannot unmount $arg" ;;
			esac
		done
		rm -f -- "$d/started"
	fi
	exec 8>&-
}

# Undo the registry (reverse order), then whatever is still found by name.
cleanup() {
	local kind arg rest me=$$ pid line cgroot
	if [ -f "$REG" ]; then
		tac "$REG" | while read -r kind arg rest; do
			case "$kind" in
			watcher) [ "$arg" != "$me" ] && kill_pid "$arg" ;;
			pid) kill_pid "$arg" ;;
			mount) undo_mount "$arg" ;;
			loop) undo_loop "$arg" ;;
			cgroup) undo_cgroup "$arg" ;;
			export) undo_export "$arg" ;;
			nfs-user) nfs_server_release ;;
			esac
		done
	fi
	# by name: mounts under the state folder (deepest first)
	awk -v s="$STATE/" 'index($2, s) == 1 { print $2 }' /proc/mounts |
		sort -r | while read -r line; do undo_mount "$line"; done
	# loop devices whose backing file is ours
	losetup -n -O NAME,BACK-FILE 2>/dev/null |
		awk -v s="$STATE/" 'index($2, s) == 1 { print $1 }' |
		while read -r line; do undo_loop "$line"; done
	cgroot=$(blkio_root)
	[ -n "$cgroot" ] && undo_cgroup "$cgroot/$CGNAME"
	# exports of a folder in the state folder, then our use of the server
	our_exports | while read -r line; do undo_export "$line"; done
	[ -f "$NFS_SERVER_DIR/users/$(state_id)" ] && nfs_server_release
	# processes whose command line names the state folder
	for pid in $(state_pids); do
		[ "$pid" = "$me" ] && continue
		[ "$pid" = "$BASHPID" ] && continue
		pid_is_ours "$pid" && kill_pid "$pid"
	done
	rm -rf -- "$STATE"
}

# Everything of ours still present, one line each; 1 when any.
leftovers() {
	local found=0 pid cgroot
	if awk -v s="$STATE/" 'index($2, s) == 1 { print "mount " $2; f=1 }
		END { exit !f }' /proc/mounts; then found=1; fi
	if losetup -n -O NAME,BACK-FILE 2>/dev/null |
		awk -v s="$STATE/" 'index($2, s) == 1 { print "loop " $1; f=1 }
			END { exit !f }'; then found=1; fi
	cgroot=$(blkio_root)
	if [ -n "$cgroot" ] && [ -d "$cgroot/$CGNAME" ]; then
		echo "cgroup $cgroot/$CGNAME"; found=1
	fi
	if our_exports | sed 's/^/export /' | grep .; then found=1; fi
	if [ -f "$NFS_SERVER_DIR/users/$(state_id)" ]; then
		echo "nfs-user $NFS_SERVER_DIR/users/$(state_id)"; found=1
	fi
	for pid in $(state_pids); do
		[ "$pid" = "$$" ] || [ "$pid" = "$BASHPID" ] && continue
		if pid_is_ours "$pid"; then
			echo "process $pid $( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)"
			found=1
		fi
	done
	return $found
}

# ---- facilities ----
check() {
	case "$1" in
	local) ;;
	blk)
		[ "$(id -u)" = 0 ] || skip "blk: needs root (loop devices, mount, cgroups)"
		command -v losetup >/dev/null || skip "blk: losetup not installed (util-linux)"
		command -v mkfs.ext4 >/dev/null || skip "blk: mkfs.ext4 not installed (e2fsprogs)"
		[ -e /dev/loop-control ] || skip "blk: no /dev/loop-control (loop driver missing, or a container without loop devices)"
		[ -n "$(blkio_root)" ] || skip "blk: no blkio cgroup v1 controller mounted (cgroup v2 io.max is not supported by this fixture)"
		[ -w "$(blkio_root)" ] || skip "blk: the blkio cgroup folder $(blkio_root) is read-only"
		;;
	s3)
		[ "$(id -u)" = 0 ] || skip "s3: needs root (FUSE mount)"
		[ -c /dev/fuse ] || skip "s3: no /dev/fuse"
		grep -qw fuse /proc/filesystems || skip "s3: the kernel has no FUSE"
		command -v s3fs >/dev/null || skip "s3: s3fs not installed (apt-get install -y s3fs)"
		command -v node >/dev/null || skip "s3: node not installed (Node.js 20)"
		[ -f "$HERE/node_modules/s3rver/package.json" ] ||
			skip "s3: s3rver not installed: run 'npm ci --prefix tests/storage_fixtures'"
		;;
	nfs)
		[ "$(id -u)" = 0 ] || skip "nfs: needs root (the kernel NFS server, mount)"
		# a kernel with NFS as modules loads them here; one without
		# modules (or without NFS built in) has neither
		if ! grep -qw nfsd /proc/filesystems ||
		   ! grep -qw nfs4 /proc/filesystems; then
			modprobe -q nfsd 2>/dev/null
			modprobe -q nfsv4 2>/dev/null
		fi
		grep -qw nfs /proc/filesystems ||
			skip "nfs: the kernel has no NFS client: no nfs in /proc/filesystems"
		grep -qw nfs4 /proc/filesystems ||
			skip "nfs: the kernel's NFS client has no NFSv4: no nfs4 in /proc/filesystems"
		grep -qw nfsd /proc/filesystems ||
			skip "nfs: the kernel has no NFS server: no nfsd in /proc/filesystems"
		local t
		for t in exportfs rpc.nfsd rpc.mountd; do
			command -v $t >/dev/null ||
				skip "nfs: $t not installed (apt-get install -y nfs-kernel-server)"
		done
		for t in mount.nfs4 rpcbind rpcinfo; do
			command -v $t >/dev/null ||
				skip "nfs: $t not installed (apt-get install -y nfs-common rpcbind)"
		done
		;;
	unfs)
		local pkgs="nfs-ganesha nfs-ganesha-vfs libnfs-dev libfuse-dev"
		[ "$(id -u)" = 0 ] || skip "unfs: needs root (FUSE mount)"
		[ -c /dev/fuse ] || skip "unfs: no /dev/fuse"
		grep -qw fuse /proc/filesystems || skip "unfs: the kernel has no FUSE"
		command -v ganesha.nfsd >/dev/null ||
			skip "unfs: ganesha.nfsd not installed (apt-get install -y $pkgs)"
		compgen -G "/usr/lib*/ganesha/libfsalvfs.so" >/dev/null ||
		compgen -G "/usr/lib/*/ganesha/libfsalvfs.so" >/dev/null ||
			skip "unfs: ganesha's VFS FSAL not installed (apt-get install -y $pkgs)"
		[ -f /usr/include/nfsc/libnfs.h ] ||
			skip "unfs: libnfs headers not installed (apt-get install -y $pkgs)"
		[ -f /usr/include/fuse/fuse.h ] ||
			skip "unfs: FUSE 2 headers not installed (apt-get install -y $pkgs)"
		command -v cc >/dev/null || skip "unfs: no C compiler (cc) to build nfsfuse"
		command -v ss >/dev/null || skip "unfs: ss not installed (iproute2)"
		;;
	*) say "unknown fixture '$1' (local, blk, s3, nfs, unfs)"; exit 2 ;;
	esac
}

# ---- the dataset ----
dataset() {       # generated once per start into STATE/gen
	local d="$STATE/gen"
	[ -f "$d/.complete" ] && return 0
	[ -x "$BIN" ] || die "feedrate binary $BIN not found (build it: make)"
	rm -rf -- "$d"
	mkdir -p "$d"
	"$BIN" gen --quiet --size "$SIZE" --seed 1 "$d/data" >/dev/null ||
		die "feedrate gen failed"
	touch "$d/.complete"
}

start_local() {
	[ -f "$STATE/local/.complete" ] && return 0
	dataset
	rm -rf -- "$STATE/local"
	mkdir -p "$STATE/local"
	cp -a "$STATE/gen/data" "$STATE/local/data" || die "copy to local failed"
	sync -f "$STATE/local/data"
	touch "$STATE/local/.complete"
}

cgroup_write_throttle() {   # BPS IOPS
	local cg dev=$(cat "$STATE/blk/dev") majmin
	cg=$(cat "$STATE/blk/cgroup")
	majmin=$(lsblk -ndo MAJ:MIN "$dev" | tr -d ' ')
	echo "$majmin $1" >"$cg/blkio.throttle.read_bps_device" ||
		die "cannot set read_bps_device"
	echo "$majmin $2" >"$cg/blkio.throttle.read_iops_device" ||
		die "cannot set read_iops_device"
	echo "$1" >"$STATE/blk/bps"
	echo "$2" >"$STATE/blk/iops"
}

start_blk() {
	local img="$STATE/blk/disk.img" mnt="$STATE/blk/mnt" dev cg mb
	if [ -f "$STATE/blk/.complete" ] && grep -qF " $mnt " /proc/mounts; then
		return 0
	fi
	dataset
	mkdir -p "$mnt"
	# the image: twice the dataset (FIXTURE_BLK_COPIES times, for callers
	# that put more copies on it) plus room for ext4's metadata
	mb=$(du -sm "$STATE/gen/data" | cut -f1)
	truncate -s $((mb * ${FIXTURE_BLK_COPIES:-2} + 64))M "$img" ||
		die "cannot create $img"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$img" ||
		die "mkfs.ext4 failed"
	dev=$(losetup --find --show --direct-io=on "$img") ||
		die "losetup failed"
	reg_add loop "$dev"
	echo "$dev" >"$STATE/blk/dev"
	mount -o noatime "$dev" "$mnt" || die "mount $dev failed"
	reg_add mount "$mnt"
	cp -a "$STATE/gen/data" "$mnt/data" || die "copy to the image failed"
	sync -f "$mnt"
	cg="$(blkio_root)/$CGNAME"
	mkdir -p "$cg" || die "cannot create cgroup $cg"
	reg_add cgroup "$cg"
	echo "$cg" >"$STATE/blk/cgroup"
	cgroup_write_throttle "$BPS" "$IOPS"
	touch "$STATE/blk/.complete"
}

s3_alive() {
	local pid
	[ -f "$STATE/s3/server.pid" ] || return 1
	pid=$(cat "$STATE/s3/server.pid")
	pid_is_ours "$pid" && grep -qF " $STATE/s3/mnt " /proc/mounts
}

start_s3() {
	local mnt="$STATE/s3/mnt" port pid i
	if [ -f "$STATE/s3/.complete" ] && s3_alive; then
		return 0
	fi
	dataset
	mkdir -p "$STATE/s3/srv" "$mnt"
	rm -f "$STATE/s3/port"
	setsid node "$HERE/s3_server.js" --dir "$STATE/s3/srv" \
		--bucket "$BUCKET" --port-file "$STATE/s3/port" \
		--first-byte-ms "$FB_MS" --tag "$TAG" \
		</dev/null >"$STATE/s3/server.log" 2>&1 9>&- &
	pid=$!
	echo "$pid" >"$STATE/s3/server.pid"
	reg_add pid "$pid" s3rver
	for i in $(seq 100); do
		[ -s "$STATE/s3/port" ] && break
		kill -0 "$pid" 2>/dev/null ||
			die "s3 server exited: $(tail -n 3 "$STATE/s3/server.log")"
		sleep 0.1
	done
	port=$(cat "$STATE/s3/port" 2>/dev/null) || die "s3 server did not start"
	echo "S3RVER:S3RVER" >"$STATE/s3/passwd"
	chmod 600 "$STATE/s3/passwd"
	# -f keeps s3fs in the foreground so its pid is known; the tag in
	# its command line (the mount point) lets a later run find it
	setsid s3fs "$BUCKET" "$mnt" -f \
		-o url="http://127.0.0.1:$port" -o use_path_request_style \
		-o passwd_file="$STATE/s3/passwd" \
		${FIXTURE_S3FS_OPTS:+-o "$FIXTURE_S3FS_OPTS"} \
		</dev/null >"$STATE/s3/s3fs.log" 2>&1 9>&- &
	pid=$!
	echo "$pid" >"$STATE/s3/s3fs.pid"
	reg_add pid "$pid" s3fs
	reg_add mount "$mnt"
	for i in $(seq 100); do
		grep -qF " $mnt " /proc/mounts && break
		kill -0 "$pid" 2>/dev/null ||
			die "s3fs exited: $(tail -n 3 "$STATE/s3/s3fs.log")"
		sleep 0.1
	done
	grep -qF " $mnt " /proc/mounts || die "s3fs did not mount $mnt"
	cp -r "$STATE/gen/data" "$mnt/data" || die "upload through s3fs failed"
	echo "http://127.0.0.1:$port" >"$STATE/s3/url"
	touch "$STATE/s3/.complete"
}

start_nfs() {
	local exp="$STATE/nfs/export" mnt="$STATE/nfs/mnt" src fsid
	src="$NFS_CLIENT:$exp"
	if [ -f "$STATE/nfs/.complete" ] && grep -qF " $mnt " /proc/mounts &&
	   nfsd_running; then
		return 0
	fi
	dataset
	mkdir -p "$exp" "$mnt"
	rm -rf -- "$exp/data"
	cp -a "$STATE/gen/data" "$exp/data" || die "copy to the export failed"
	sync -f "$exp/data"
	nfs_server_acquire
	# fsid: the state folder may be on a filesystem without a UUID
	# (overlay); a number of its own keeps two fixture sets apart
	fsid=$(( $(state_id) % 2000000000 + 1000 ))
	exportfs -o rw,sync,no_subtree_check,no_root_squash,insecure,fsid=$fsid \
		"$src" || die "exportfs $src failed"
	reg_add export "$src"
	# soft, with a short timeout: a test whose server went away gets EIO
	# instead of a process that cannot be killed
	mount -t nfs4 -o "soft,timeo=50,retrans=2${FIXTURE_NFS_OPTS:+,$FIXTURE_NFS_OPTS}" \
		"$NFS_CLIENT:$exp" "$mnt" || die "mount -t nfs4 $src failed"
	reg_add mount "$mnt"
	[ -d "$mnt/data" ] || die "the nfs mount does not show the export's data"
	echo "$src" >"$STATE/nfs/source"
	touch "$STATE/nfs/.complete"
}

unfs_alive() {
	local pid
	[ -f "$STATE/unfs/ganesha.pid" ] || return 1
	pid=$(cat "$STATE/unfs/ganesha.pid")
	pid_is_ours "$pid" && grep -qF " $STATE/unfs/mnt " /proc/mounts
}

# A TCP port on 127.0.0.1 nobody listens on, from one of this fixture
# set's own (two sets run two servers side by side).
unfs_port() {
	local p i
	p=$(( 20000 + $(state_id) % 10000 ))
	for i in $(seq 50); do
		[ -z "$(ss -Hltn "sport = :$p" 2>/dev/null)" ] && { echo "$p"; return 0; }
		p=$((p + 1))
	done
	return 1
}

start_unfs() {
	local d="$STATE/unfs" mnt="$STATE/unfs/mnt" port url pid i
	if [ -f "$d/.complete" ] && unfs_alive; then
		return 0
	fi
	dataset
	mkdir -p "$d/export" "$d/recovery" "$mnt"
	cc -O2 -Wall -o "$d/nfsfuse" "$HERE/nfsfuse.c" \
		$(pkg-config --cflags --libs fuse 2>/dev/null ||
		  echo "-I/usr/include/fuse -D_FILE_OFFSET_BITS=64 -lfuse -pthread") \
		-lnfs 2>"$d/build.log" ||
		die "cannot build nfsfuse: $(tail -n 3 "$d/build.log")"
	# the server's side: ganesha caches what it has listed, so the data is
	# in place before it starts
	rm -rf -- "$d/export/data"
	cp -a "$STATE/gen/data" "$d/export/data" || die "copy to the export failed"
	sync -f "$d/export/data"
	port=$(unfs_port) || die "no free TCP port for the NFS server"
	# NFSv4 only: v3 needs rpcbind (one per machine) and ganesha fails
	# without it. No grace period (nothing to recover), numeric owners
	# (libnfs reads "0", not "root@domain"), no dbus name clash between
	# fixture sets where a system bus exists.
	cat >"$d/ganesha.conf" <<-EOF
	NFS_CORE_PARAM {
		Protocols = 4;
		Bind_addr = 127.0.0.1;
		NFS_Port = $port;
		Enable_NLM = false;
		Enable_RQUOTA = false;
		Enable_UDP = false;
		Dbus_Name_Prefix = feedrate_fixture_$(state_id);
	}
	NFSV4 {
		Graceless = true;
		Only_Numeric_Owners = true;
		RecoveryBackend = fs;
		RecoveryRoot = "$d/recovery";
	}
	EXPORT {
		Export_Id = 1;
		Path = "$d/export";
		Pseudo = /export;
		Access_Type = RW;
		Squash = None;
		Protocols = 4;
		Transports = TCP;
		SecType = sys;
		FSAL { Name = VFS; }
	}
	EOF
	rm -f "$d/ganesha.pid"
	setsid ganesha.nfsd -F -f "$d/ganesha.conf" -L "$d/ganesha.log" \
		-p "$d/ganesha.pidfile" -N NIV_EVENT </dev/null >>"$d/ganesha.log" 2>&1 9>&- &
	pid=$!
	echo "$pid" >"$d/ganesha.pid"
	reg_add pid "$pid" ganesha
	for i in $(seq 100); do
		[ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ] && break
		kill -0 "$pid" 2>/dev/null ||
			die "ganesha exited: $(grep -v DBUS "$d/ganesha.log" | tail -n 3)"
		sleep 0.1
	done
	[ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ] ||
		die "ganesha does not listen on port $port"
	url="nfs://127.0.0.1/export?version=4&nfsport=$port"
	# -f: in the foreground, so its pid is known
	setsid "$d/nfsfuse" "$url" "$mnt" -f \
		</dev/null >"$d/nfsfuse.log" 2>&1 9>&- &
	pid=$!
	echo "$pid" >"$d/nfsfuse.pid"
	reg_add pid "$pid" nfsfuse
	reg_add mount "$mnt"
	for i in $(seq 100); do
		grep -qF " $mnt " /proc/mounts && break
		kill -0 "$pid" 2>/dev/null ||
			die "nfsfuse exited: $(tail -n 3 "$d/nfsfuse.log")"
		sleep 0.1
	done
	grep -qF " $mnt " /proc/mounts || die "nfsfuse did not mount $mnt"
	[ -d "$mnt/data" ] || die "the unfs mount does not show the export's data"
	echo "$url" >"$d/url"
	touch "$d/.complete"
}

# Fixture sets beside the default one (feedrate-fixtures-*: each test run
# has its own) whose owner is gone: stop them.
sweep() {
	local d prev base=${FEEDRATE_FIXTURE_SWEEP:-/var/tmp/feedrate-fixtures}
	for d in "$base"-*; do
		[ -d "$d" ] && [ "$d" != "$STATE" ] && [ -f "$d/owner" ] || continue
		prev=$(cat "$d/owner")
		[ "$prev" != none ] && ! kill -0 "$prev" 2>/dev/null || continue
		say "removing fixtures left by a run that is gone: $d"
		FEEDRATE_FIXTURE_DIR=$d "$HERE/fixtures.sh" stop 9>&- >&2
		rm -f -- "$d.lock" "$d.testlock"
	done
}

watch_owner() {   # OWNER: run stop once it is gone
	local owner=$1
	while kill -0 "$owner" 2>/dev/null; do sleep 1; done
	exec "$HERE/fixtures.sh" stop
}

start() {
	local owner= kinds=() k prev
	while [ $# -gt 0 ]; do
		case "$1" in
		--owner) owner=$2; shift 2 ;;
		local|blk|s3|nfs|unfs) kinds+=("$1"); shift ;;
		*) say "start: unknown argument $1"; exit 2 ;;
		esac
	done
	[ ${#kinds[@]} -eq 0 ] && kinds=(local blk s3)
	for k in "${kinds[@]}"; do (check "$k") || exit $?; done
	mkdir -p "$(dirname "$STATE")"
	sweep
	exec 9>"$LOCK"
	flock 9
	# the owner file holds the PID whose exit ends the fixtures, or "none"
	# (started by hand: they stay until `stop`)
	if [ -f "$STATE/owner" ]; then
		prev=$(cat "$STATE/owner")
		if [ "$prev" != none ] && ! kill -0 "$prev" 2>/dev/null; then
			say "removing fixtures left by an earlier run (pid $prev)"
			cleanup
		elif [ "$prev" != none ] && [ -n "$owner" ] &&
		     [ "$prev" != "$owner" ]; then
			die "the fixtures in $STATE are in use by pid $prev"
		fi
	elif [ -e "$STATE" ] || ! leftovers >/dev/null; then
		say "removing fixtures left by an earlier run"
		cleanup
	fi
	mkdir -p "$STATE"
	prev=$(cat "$STATE/owner" 2>/dev/null)
	if [ -z "$prev" ] || { [ "$prev" = none ] && [ -n "$owner" ]; }; then
		echo "${owner:-none}" >"$STATE/owner"
		if [ -n "$owner" ]; then
			setsid "$HERE/fixtures.sh" watch "$owner" "$STATE" \
				"$TAG" </dev/null >/dev/null 2>&1 9>&- &
			reg_add watcher $!
		fi
	fi
	# a failure part-way leaves the registry for `stop`
	for k in "${kinds[@]}"; do
		"start_$k"
	done
	envs
}

envs() {
	echo "FIXTURE_DIR=$STATE"
	[ -f "$STATE/local/.complete" ] && echo "FIXTURE_LOCAL=$STATE/local/data"
	if [ -f "$STATE/blk/.complete" ]; then
		echo "FIXTURE_BLK=$STATE/blk/mnt/data"
		echo "FIXTURE_BLK_DEV=$(cat "$STATE/blk/dev")"
		echo "FIXTURE_BLK_IMG=$STATE/blk/disk.img"
		echo "FIXTURE_BLK_CGROUP=$(cat "$STATE/blk/cgroup")"
		echo "FIXTURE_BLK_BPS=$(cat "$STATE/blk/bps")"
		echo "FIXTURE_BLK_IOPS=$(cat "$STATE/blk/iops")"
	fi
	if [ -f "$STATE/s3/.complete" ]; then
		echo "FIXTURE_S3=$STATE/s3/mnt/data"
		echo "FIXTURE_S3_URL=$(cat "$STATE/s3/url")"
		echo "FIXTURE_S3FS_PID=$(cat "$STATE/s3/s3fs.pid")"
		echo "FIXTURE_S3_SERVER_PID=$(cat "$STATE/s3/server.pid")"
	fi
	if [ -f "$STATE/nfs/.complete" ]; then
		echo "FIXTURE_NFS=$STATE/nfs/mnt/data"
		echo "FIXTURE_NFS_SOURCE=$(cat "$STATE/nfs/source")"
		echo "FIXTURE_NFS_EXPORT=$STATE/nfs/export/data"
	fi
	if [ -f "$STATE/unfs/.complete" ]; then
		echo "FIXTURE_UNFS=$STATE/unfs/mnt/data"
		echo "FIXTURE_UNFS_SOURCE=nfs://127.0.0.1/export"
		echo "FIXTURE_UNFS_URL=$(cat "$STATE/unfs/url")"
		echo "FIXTURE_UNFS_EXPORT=$STATE/unfs/export/data"
		echo "FIXTURE_UNFS_SERVER_PID=$(cat "$STATE/unfs/ganesha.pid")"
		echo "FIXTURE_UNFS_CLIENT_PID=$(cat "$STATE/unfs/nfsfuse.pid")"
	fi
	return 0
}

s3_http() {       # METHOD PATH
	local url
	url=$(cat "$STATE/s3/url" 2>/dev/null) || die "the s3 fixture is not running"
	node -e '
		const [m, u] = process.argv.slice(1);
		fetch(u, { method: m }).then(r => r.text())
			.then(t => process.stdout.write(t))
			.catch(e => { console.error(e.message); process.exit(1); });
	' "$1" "$url$2"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
start) start "$@" ;;
stop)
	mkdir -p "$(dirname "$STATE")"
	exec 9>"$LOCK"
	flock 9
	cleanup
	leftovers >&2 || die "could not remove everything above"
	;;
watch) watch_owner "$1" ;;
env) envs ;;
check) check "${1:-}" ;;
leftovers) leftovers ;;
throttled)
	[ -f "$STATE/blk/cgroup" ] || die "the blk fixture is not running"
	echo $$ >"$(cat "$STATE/blk/cgroup")/cgroup.procs" ||
		die "cannot enter the cgroup"
	exec "$@"
	;;
throttle)
	[ $# -eq 2 ] || { say "usage: throttle BPS IOPS"; exit 2; }
	[ -f "$STATE/blk/cgroup" ] || die "the blk fixture is not running"
	cgroup_write_throttle "$1" "$2"
	;;
s3-stats) s3_http GET /_feedrate/stats ;;
s3-reset) s3_http POST /_feedrate/reset >/dev/null ;;
nfs-server-evict)
	# the server's cache of the exported files is this machine's page
	# cache: DONTNEED through dd, file by file
	[ -f "$STATE/nfs/.complete" ] || die "the nfs fixture is not running"
	find "$STATE/nfs/export" -type f -exec \
		dd if={} iflag=nocache count=0 status=none \; ||
		die "cannot evict the export's files"
	;;
unfs-server-evict)
	# ganesha's VFS FSAL reads the export through this machine's page cache
	[ -f "$STATE/unfs/.complete" ] || die "the unfs fixture is not running"
	find "$STATE/unfs/export" -type f -exec \
		dd if={} iflag=nocache count=0 status=none \; ||
		die "cannot evict the export's files"
	;;
*)
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac
