# SPDX-License-Identifier: BSD-3-Clause
#
# etc_ns.sh - sourced (". tests/common/etc_ns.sh") by the test scripts that must
# change /etc: a PAM service file for pamtester, a temporary user for
# setpriv, an entry for chpasswd.  They never change the machine's own.
#
# etc_ns_enter NAME "$@": the first time, run the calling script again
# under unshare -m (a private mount namespace) with the environment
# variable NAME set; the second time, inside, copy /etc into a directory of
# its own and bind that over /etc, so that what the script writes lands in
# the copy and goes away with the namespace.  A copy of the directory, not
# binds over single files: rename(2) onto a bound file fails with EBUSY,
# and useradd, chpasswd and pam-auth-update all rename.  Exits 77 (skip,
# with the reason) where unshare -m is not permitted to a non-root user,
# 1 where it fails for root (a broken setup, never a skip) or when the
# copy cannot be made.  etc_ns_leave, from the caller's exit trap, unbinds and
# removes the copy.
etc_ns_enter() {
    etc_ns_var=$1
    shift
    if [ -z "$(eval "echo \"\${$etc_ns_var:-}\"")" ]; then
        if ! unshare -m true 2> /dev/null; then
            # Root may always make one; a failure then is a broken setup.
            if [ "$(id -u)" = 0 ]; then
                echo "FAIL: running as root, yet unshare -m fails (is / a mount point? a chroot must bind its root onto itself)"
                exit 1
            fi
            echo "SKIP: unshare -m is not permitted here (the test would change the machine's own /etc)"
            exit 77
        fi
        eval "$etc_ns_var=1; export $etc_ns_var"
        exec unshare -m sh "$0" "$@"
    fi
    etc_ns_copy=$(mktemp -d "${TMPDIR:-/tmp}/kdf-etc.XXXXXX") || exit 1
    if ! mount --make-rprivate / || ! cp -a /etc/. "$etc_ns_copy/" ||
        ! mount --bind "$etc_ns_copy" /etc; then
        echo "FAIL: cannot bind a copy of /etc over /etc"
        rm -rf "$etc_ns_copy"
        exit 1
    fi
}

etc_ns_leave() {
    umount /etc 2> /dev/null || :
    rm -rf "$etc_ns_copy"
}
