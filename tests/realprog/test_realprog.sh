#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_realprog.sh - pam_kdfhash.so against the real programs of a Debian
# host (passwd, chpasswd, chage, su, login, sshd/ssh, pam_pwquality, the
# real pam-auth-update with the tree's profile), driven through a pty by
# tests/realprog/matrix.py inside a private mount namespace: the host's
# /etc, PAM directory, /run and home directories are never written.
# tests/realprog/README says what it needs and how to run it.
#
# Exit 0 (all passed), 1 (a case failed, or the run left a trace on the
# host), 77 (skip: not root, no mount namespace, or a program missing and
# not installable).
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
    # Run by hand from a build directory, or from the source tree.
    if [ -f "./pam_module/.libs/pam_kdfhash.so" ]; then
        top_builddir=$(pwd)
    else
        top_builddir=$top_srcdir
    fi
fi
so=${KDF_PAM_SO:-$top_builddir/pam_module/.libs/pam_kdfhash.so}

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (private mount namespace, useradd, sshd)"
    exit 77
fi
if ! command -v unshare >/dev/null 2>&1 || ! unshare -m true 2>/dev/null; then
    echo "FAIL: running as root, yet unshare -m fails (is / a mount point? a chroot must bind its root onto itself)"
    exit 1
fi
if [ ! -f "$so" ]; then
    echo "FAIL: $so not built (set KDF_PAM_SO or top_builddir)"
    exit 1
fi
# A sanitizer build's module needs its runtime loaded first, and the
# dynamic loader ignores LD_PRELOAD for setuid programs (su, passwd): the
# plain build runs this test, the sanitizer build runs test_pam instead.
if nm -D "$so" 2>/dev/null | grep -qE ' U __(asan|tsan|ubsan)_'; then
    echo "SKIP: $so is built with sanitizers, which setuid programs cannot load (the plain build runs this test)"
    exit 77
fi

# Debian's python: the apt-installed bcrypt/argon2/passlib live there, not
# in a pyenv or virtualenv that may come first in PATH.
py=${PYTHON3_SYSTEM:-/usr/bin/python3}
[ -x "$py" ] || py=python3

# What is missing, as Debian package names.
missing_pkgs() {
    m=
    for pair in unshare:util-linux runuser:util-linux setpriv:util-linux su:util-linux mount:mount \
        login:login passwd:passwd chpasswd:passwd chage:passwd useradd:passwd \
        ssh:openssh-client ssh-keygen:openssh-client mkpasswd:whois \
        pam-auth-update:libpam-runtime sudo:sudo; do
        command -v "${pair%%:*}" >/dev/null 2>&1 || m="$m ${pair#*:}"
    done
    [ -x /usr/sbin/sshd ] || m="$m openssh-server"
    [ "$(dpkg-query -W -f='${Status}' libpam-pwquality 2>/dev/null)" = \
        "install ok installed" ] || m="$m libpam-pwquality"
    for pair in bcrypt:python3-bcrypt argon2:python3-argon2 passlib:python3-passlib; do
        "$py" -c "import ${pair%%:*}" >/dev/null 2>&1 || m="$m ${pair#*:}"
    done
    echo "$m" | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/^ *//; s/ *$//'
}

need=$(missing_pkgs)
if [ -n "$need" ]; then
    echo "installing:$need"
    had_sshd=no
    [ -x /usr/sbin/sshd ] && had_sshd=yes
    if command -v apt-get >/dev/null 2>&1; then
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need >/dev/null 2>&1 ||
            { apt-get update -q >/dev/null 2>&1 &&
              DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need >/dev/null 2>&1; }
    fi
    if [ "$had_sshd" = no ] && [ -x /usr/sbin/sshd ]; then
        # The package's postinst may start and enable the host's sshd; this
        # test only wants its own, on loopback.
        invoke-rc.d ssh stop >/dev/null 2>&1 || true
        systemctl disable ssh.service >/dev/null 2>&1 || true
    fi
    still=$(missing_pkgs)
    if [ -n "$still" ]; then
        echo "SKIP: missing and not installable: $still"
        exit 77
    fi
fi

# Proof that the host was not touched.  Another process (a package test,
# an admin) may change these files while the suite runs, so a change alone
# is only reported; what fails the run is a trace of this run on the host:
# its users, their home directories, or the marker file the driver writes
# into the namespace's /etc.
host_files="/etc/shadow /etc/shadow- /etc/passwd /etc/group /etc/gshadow
/etc/pam.d/common-auth /etc/pam.d/common-account /etc/pam.d/common-password
/etc/pam.d/common-session /etc/pam.d/common-session-noninteractive
/etc/security/kdfhash.conf /var/lib/pam/seen /var/lib/pam/auth /var/lib/pam/password"
sums() {
    for f in $host_files; do
        if [ -e "$f" ]; then sha256sum "$f"; else echo "absent $f"; fi
    done
}
traces() {
    grep -sE '^(rprunner|rp[0-9][0-9][a-z]?):' /etc/passwd /etc/shadow /etc/group \
        /etc/gshadow
    ls -d /home/rprunner /home/rp[0-9][0-9]* /etc/.kdf-realprog-marker.* 2>/dev/null
}
before=$(sums)
traces_before=$(traces)

KDF_RP_HOST_MNTNS=$(stat -L -c %i /proc/self/ns/mnt)
export KDF_RP_HOST_MNTNS top_srcdir top_builddir
unshare -m --propagation private "$py" "$here/matrix.py" \
    --module "$so" --srcdir "$top_srcdir"
rc=$?

traces_after=$(traces)
if [ "$traces_after" != "$traces_before" ]; then
    echo "FAIL: the run left traces on the host:"
    printf '%s\n' "$traces_after" | sed 's/^/    /'
    exit 1
fi
after=$(sums)
if [ "$before" != "$after" ]; then
    echo "# note: host files changed during the run, with no trace of this run in"
    echo "# them (another process wrote them):"
    printf '%s\n' "$before" > "${TMPDIR:-/tmp}/kdf-realprog-before.$$"
    printf '%s\n' "$after" | diff "${TMPDIR:-/tmp}/kdf-realprog-before.$$" - |
        sed -n 's/^> [0-9a-f]*  */#     /p'
    rm -f "${TMPDIR:-/tmp}/kdf-realprog-before.$$"
fi
case $rc in
0) exit 0 ;;
*) exit 1 ;;
esac
