#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages feedrate builds and tests with, when
# run as root on a machine that lacks them; otherwise prints the command.
#   scripts/deps.sh          build + test dependencies
#   scripts/deps.sh --bench  also the benchmark peers (fio, jq)
#   scripts/deps.sh --fuzz   also clang and its libFuzzer runtime
set -eu
pkgs=(build-essential pkg-config liburing-dev libjpeg62-turbo-dev libpng-dev
      zlib1g-dev libzstd-dev libjansson-dev libcriterion-dev libseccomp-dev
      libcap-dev libdeflate-dev bindfs e2fsprogs s3fs nfs-kernel-server
      nfs-common chromium zstd
      python3-torch python3-torchvision python3-pil python3-numpy libinih-dev
      openmpi-bin libopenmpi-dev
      nfs-ganesha nfs-ganesha-vfs libnfs-dev libfuse-dev)
# libdeflate-dev: .npz DEFLATE members (its static archive goes into
# `make static`); python3-numpy writes the .npy/.npz test fixtures
# libinih-dev: job files (workloads/jobs/*.ini and the user's)
# openmpi-bin, libopenmpi-dev: `make MPI=1` and the tests that launch it
# with mpirun (the default build and `make static` do not use them)
# nfs-kernel-server, nfs-common: the NFS fixture (exportfs, rpc.nfsd,
# rpc.mountd, mount.nfs4, rpcbind); it also needs nfs and nfsd in the kernel
# nfs-ganesha, nfs-ganesha-vfs, libnfs-dev, libfuse-dev: the unfs fixture,
# NFS in user space for kernels without it (ganesha serves NFSv4, the
# fixture builds tests/storage_fixtures/nfsfuse.c on libnfs and FUSE 2 to
# mount it); libfuse-dev is FUSE 2's, which keeps the fuse package s3fs and
# bindfs need (fuse3 would remove it)
# python3-torch, -torchvision and -pil: --pipeline torch, and the tests
# that run it (they skip, saying why, where Python cannot import them)
# zstd (the CLI) decompresses `gen --compression zstd` shards in the tests
# that read them back; chromium renders the sweep's HTML report in a test;
# node and npm run
# the storage tests' local S3 server (machines that already have them, e.g.
# from NodeSource, keep theirs)
command -v npm >/dev/null 2>&1 || pkgs+=(nodejs npm)
case "${1:-}" in
--bench) pkgs+=(fio jq) ;;
--fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
esac

# Ubuntu names libjpeg-turbo's package libjpeg-turbo8-dev.
if grep -qi '^ID=ubuntu' /etc/os-release 2>/dev/null; then
	pkgs=("${pkgs[@]/libjpeg62-turbo-dev/libjpeg-turbo8-dev}")
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
# The storage tests' local S3 server (s3rver, pinned in package-lock.json).
# Without it those tests skip and say why, so a failure here is not fatal.
npm_fixtures() {
	local dir
	dir="$(cd "$(dirname "$0")/.." && pwd)/tests/storage_fixtures"
	[ -d "$dir/node_modules/s3rver" ] && return 0
	command -v npm >/dev/null 2>&1 || return 0
	echo "deps: npm ci in tests/storage_fixtures"
	npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error ||
		echo "deps: npm ci failed; the object-store tests will skip"
}

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	npm_fixtures
	exit 0
fi
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}"
	echo "deps: run as root:  apt-get update && $cmd"
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$cmd
npm_fixtures
