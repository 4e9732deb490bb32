#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# fresh-root.sh [--no-apt-cache] [--worktree] [--with DIR]... CMD [ARG...] - run CMD as root in a new
# Debian 12 minbase root holding `git archive HEAD` of this tree, the way a
# newcomer's freshly installed machine would run it.
#
# The machine this project is developed on has every package earlier work
# installed; a missing install step only shows on a machine that has none.
# So:
#
#   1. A base root is made once with `debootstrap --variant=minbase` from
#      the Debian mirror the machine's own apt sources name, and kept as a
#      tarball under $KDF_FRESH_CACHE (default /var/cache/kdfhash-fresh-root;
#      about a minute the first time, seconds after).
#   2. Every run unpacks a new copy under $KDF_FRESH_WORK (default
#      /var/tmp), gives it the machine's Debian apt sources, resolv.conf and
#      a policy-rc.d that keeps package scripts from starting daemons on the
#      host's network, and puts `git archive HEAD` of the tree in
#      /build/kdfhash (uncommitted changes are not part of it) with the
#      clone's history in /build/kdfhash/.git, and the
#      third-party vectors directory beside the tree, when there is one, at
#      the same place beside it.
#   3. CMD runs in /build/kdfhash, chrooted, in its own mount and PID
#      namespaces: the root bound onto itself (so that `unshare -m` inside
#      can make / private), a new /proc, the host's /sys (with its cgroups,
#      for the memory-cgroup tests) and /dev, and tmpfs /run, /tmp and
#      /dev/shm.  The environment is cleared but for PATH, HOME, LANG, TERM
#      and CI.  When CMD ends, the PID namespace's init is gone and the
#      kernel kills everything CMD left running (servers, sleepers); the
#      mounts go with the namespace.
#   4. The copy is removed afterwards, when CMD fails, and when this
#      script is interrupted or terminated (the copy's owner file names
#      this script's PID; a run that was SIGKILLed takes CMD down with it
#      but leaves its copy, and the next run removes every copy whose
#      owner is gone).
#
# --worktree puts the work tree instead (git's tracked files as they are
# on disk, and new files it does not ignore), for trying uncommitted work;
# CI and doc/HACKING.md's commands use HEAD.  --with DIR copies DIR (built
# packages, say) to /build/with/ in the root, under its own name.
#
# Downloaded .deb files are kept in $KDF_FRESH_CACHE/archives between runs
# (--no-apt-cache: a new, empty apt cache), which saves the download, not
# the install: every package is still installed into the new root by the
# command that needs it.
#
# Exit status: CMD's; 125 when the root cannot be made.
set -u

cache=${KDF_FRESH_CACHE:-/var/cache/kdfhash-fresh-root}
work=${KDF_FRESH_WORK:-/var/tmp}
suite=${KDF_FRESH_SUITE:-bookworm}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
apt_cache=1
worktree=
withs=

die() {
    echo "fresh-root: $*" >&2
    exit 125
}

while [ $# -gt 0 ]; do
    case $1 in
    --no-apt-cache) apt_cache= ;;
    --worktree) worktree=1 ;;
    --with) [ $# -gt 1 ] && [ -d "$2" ] || die "--with needs a directory"
        withs="$withs $(cd "$2" && pwd)"; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '4,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "usage: fresh-root.sh [--no-apt-cache] [--worktree] [--with DIR]... CMD [ARG...]" >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done
[ $# -gt 0 ] || { echo "usage: fresh-root.sh [--no-apt-cache] [--worktree] [--with DIR]... CMD [ARG...]" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot, namespaces)"
git -C "$srcdir" rev-parse --verify -q HEAD >/dev/null || die "$srcdir is not a git checkout with a HEAD"
for t in unshare setpriv chroot tar mount flock; do
    command -v "$t" >/dev/null 2>&1 || die "$t not found (Debian: util-linux, coreutils, tar, mount)"
done
arch=$(dpkg --print-architecture 2>/dev/null) || die "not a Debian machine (no dpkg)"

# The machine's Debian sources: deb822 files signed by the Debian archive
# keyring, and one-line entries for $suite.  Other vendors' repositories
# stay out: a fresh Debian machine has none.
host_sources() { # host_sources DIR: copy the Debian source files into DIR
    n=0
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        grep -q 'debian-archive-keyring' "$f" || continue
        cp "$f" "$1/" && n=$((n + 1))
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        grep -E "^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?[a-z]+://[^[:space:]]*debian[^[:space:]]*[[:space:]]+$suite" "$f" \
            >"$1/host-$(basename "$f" .list).list" || rm -f "$1/host-$(basename "$f" .list).list"
        [ -f "$1/host-$(basename "$f" .list).list" ] && n=$((n + 1))
    done
    [ "$n" -gt 0 ]
}

# The mirror debootstrap uses: the first Debian URI of the main suite.
host_mirror() {
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && grep -q 'debian-archive-keyring' "$f" || continue
        awk -v s="$suite" '
            /^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
            /^$/ { if (ok && u != "" && u !~ /security/) { print u; exit } ok = 0; u = "" }
            END { if (ok && u != "" && u !~ /security/) print u }' "$f" | head -1
    done | head -1
    grep -hE "^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?[a-z]+://[^[:space:]]*[[:space:]]+$suite[[:space:]]" \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        sed -E 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?//' | awk '{ print $1; exit }'
}

# ---- 1. the base tarball ----
base=$cache/$suite-minbase-$arch.tar.gz
mkdir -p "$cache/archives/partial" || die "cannot create $cache"
make_base() {
    mirror=$(host_mirror | head -1)
    [ -n "$mirror" ] || die "no Debian $suite mirror in /etc/apt/sources.list{,.d}"
    if ! command -v debootstrap >/dev/null 2>&1; then
        echo "fresh-root: installing debootstrap"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null ||
            { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null; } ||
            die "cannot install debootstrap"
    fi
    echo "fresh-root: debootstrap --variant=minbase $suite from $mirror (once; kept in $base)"
    t0=$(date +%s)
    b=$(mktemp -d "$cache/base.XXXXXX") || die "mktemp in $cache"
    if ! debootstrap --variant=minbase "$suite" "$b/root" "$mirror" >"$b/log" 2>&1; then
        tail -20 "$b/log" >&2
        rm -rf --one-file-system "$b"
        die "debootstrap failed"
    fi
    # debootstrap's own package cache is not part of a fresh machine.
    rm -rf "$b/root/var/cache/apt/archives/"*.deb
    tar --numeric-owner -C "$b/root" -czf "$b/base.tar.gz" . && mv "$b/base.tar.gz" "$base" ||
        { rm -rf --one-file-system "$b"; die "cannot write $base"; }
    rm -rf --one-file-system "$b"
    echo "fresh-root: base made in $(( $(date +%s) - t0 )) s"
}
# One maker at a time; the others wait for its tarball.
exec 9>"$cache/.lock"
flock 9 || die "cannot lock $cache"
[ -s "$base" ] || make_base
flock -u 9
exec 9>&-

# ---- 2. a new copy ----
# Copies whose owner is gone (a SIGKILLed run) are removed first.
for d in "$work"/kdfhash-root.*; do
    [ -f "$d/owner" ] || continue
    o=$(cat "$d/owner" 2>/dev/null)
    [ -n "$o" ] && kill -0 "$o" 2>/dev/null && continue
    grep -q " $d/" /proc/self/mountinfo || rm -rf --one-file-system "$d"
done
dir=$(mktemp -d "$work/kdfhash-root.XXXXXX") || die "mktemp in $work"
echo $$ >"$dir/owner"
root=$dir/root
child=
cleanup() {
    if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
        kill -KILL "$child" 2>/dev/null
        wait "$child" 2>/dev/null
    fi
    child=
    # The mounts lived in the namespace; refuse to remove through one that
    # is somehow visible here.
    if grep -q " $root[ /]" /proc/self/mountinfo; then
        echo "fresh-root: $root still has mounts; left in place" >&2
        return
    fi
    rm -rf --one-file-system "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

t0=$(date +%s)
mkdir "$root" && tar --numeric-owner -C "$root" -xzf "$base" || die "cannot unpack $base"
rm -f "$root/etc/apt/sources.list"
host_sources "$root/etc/apt/sources.list.d" || die "no Debian apt sources on this machine"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || :
grep -qs '^127\.0\.0\.1' "$root/etc/hosts" || printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >>"$root/etc/hosts"
# Package scripts must not start sshd or ns-slapd on the host's network.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
mkdir -p "$root/build/kdfhash"
if [ -n "$worktree" ]; then
    (cd "$srcdir" && git ls-files -z --cached --others --exclude-standard |
        xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
        tar --null -T - -cf -) | tar -C "$root/build/kdfhash" -xf - ||
        die "cannot copy the work tree"
else
    git -C "$srcdir" archive --format=tar HEAD | tar -C "$root/build/kdfhash" -xf - ||
        die "git archive HEAD failed"
fi
vectors=
# A newcomer's checkout has its history (scripts/old-debs.sh builds the
# last release's packages from it): the clone's .git, its index at HEAD.
c=$(mktemp -d "$root/build/clone.XXXXXX") &&
    git clone -q --no-hardlinks --no-checkout "$srcdir" "$c/k" &&
    mv "$c/k/.git" "$root/build/kdfhash/.git" && rm -rf "$c" &&
    git -C "$root/build/kdfhash" reset -q || die "cannot clone $srcdir"
for w in $withs; do
    mkdir -p "$root/build/with" && cp -a "$w" "$root/build/with/" || die "cannot copy $w"
done
if [ -d "$srcdir/../shared/vectors" ]; then
    mkdir -p "$root/build/shared" &&
        cp -a "$srcdir/../shared/vectors" "$root/build/shared/vectors" || die "cannot copy the vectors"
    vectors=", with the third-party vectors"
fi
echo "fresh-root: $root ready in $(( $(date +%s) - t0 )) s ($(git -C "$srcdir" rev-parse --short HEAD)$vectors)"

# ---- 3. run CMD inside ----
# The inner script runs as PID 1 of the new PID namespace, in the new
# mount namespace (private propagation: nothing here reaches the host).
inner='
set -e
r=$1 acache=$2
shift 2
mount --bind "$r" "$r"
mount -t proc proc "$r/proc"
mount --rbind /sys "$r/sys"
mount --rbind /dev "$r/dev"
mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm"
mount -t tmpfs -o mode=755 tmpfs "$r/run"
mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
[ -n "$acache" ] && mount --bind "$acache" "$r/var/cache/apt/archives"
set +e
chroot "$r" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" ${CI:+CI=$CI} \
    /bin/sh -c "cd /build/kdfhash && exec \"\$@\"" sh "$@"
'
# setpriv --pdeathsig: if this script is SIGKILLed, unshare is too, and
# --kill-child takes the namespace's init, and so all of CMD, with it.
setpriv --pdeathsig KILL unshare --mount --pid --fork --propagation private --kill-child \
    sh -c "$inner" sh "$root" "${apt_cache:+$cache/archives}" "$@" &
child=$!
wait "$child"
rc=$?
child=
exit "$rc"
