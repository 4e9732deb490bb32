# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the tests of this directory: verdict lines, test users with
# hashes made by mkpasswd (whois), and a PAM service built as Debian's
# login is, on /etc/pam.d/common-auth.
set -u

fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
finish() {
    if [ "$fails" -eq 0 ]; then echo "all ok"; exit 0; fi
    echo "$fails failed"; exit 1
}

svc=kdfhash-autopkgtest
work=$(mktemp -d)
users=
cleanup() {
    for u in $users; do userdel "$u" > /dev/null 2>&1 || true; done
    rm -f "/etc/pam.d/$svc"
    rm -rf "$work"
}
trap cleanup EXIT

printf '@include common-auth\n@include common-account\n' > "/etc/pam.d/$svc"

# add_user NAME METHOD PASSWORD: a user whose /etc/shadow entry is
# mkpasswd -m METHOD of PASSWORD.
add_user() {
    useradd -M -N -d /nonexistent -s /usr/sbin/nologin "$1" || return 1
    users="$users $1"
    usermod -p "$(printf '%s\n' "$3" | mkpasswd -s -m "$2")" "$1"
}
entry() { sed -n "s/^$1:\\([^:]*\\):.*/\\1/p" /etc/shadow; }
# The scheme of an entry, for messages: never the hash itself.
prefix() { printf '%s\n' "$1" | cut -d'$' -f2; }
# login USER PASSWORD [CMD...]: pamtester's status, as root or through CMD
# (runuser -u USER --, to be that user).
# Its own variable names: sh has no locals, and callers use u and p.
login() {
    login_user=$1 login_pw=$2
    shift 2
    printf '%s\n' "$login_pw" | "$@" pamtester "$svc" "$login_user" authenticate > "$work/pamtester.out" 2>&1
}
enable_profile() {
    if DEBIAN_FRONTEND=noninteractive pam-auth-update --enable kdfhash > "$work/pau.out" 2>&1 &&
        grep -q '^auth.*pam_kdfhash\.so' /etc/pam.d/common-auth; then
        ok "pam-auth-update --enable kdfhash puts the module in common-auth"
    else bad "pam-auth-update --enable kdfhash: $(cat "$work/pau.out")"; finish; fi
}
