#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_selinux_policy.sh - the SELinux policy module of kdfhash-update
# (packaging/selinux), on a machine whose kernel need not run SELinux:
#   1. "make selinux-policy" builds kdfhash.pp with the distribution's
#      policy headers (selinux-policy-dev);
#   2. it links with every module of the distribution's policy
#      (selinux-policy-default) and expands into a kernel policy
#      (semodule_link, semodule_expand: which also checks the policy's
#      neverallow rules, e.g. shadow_t written only by
#      can_write_shadow_passwords); the questions below go to the part of
#      it that holds the login domains, linked with and without the module;
#   3. sesearch finds what the helper does (write.c): the lock
#      /etc/.pwd.lock (open, write, lock, create, born shadow_lock_t), the
#      entries of /etc (add_name, remove_name), the temp beside /etc/shadow
#      born shadow_t, read, written, given the label of the file it replaces
#      and renamed over it, a stale temp unlinked, syslog;
#   4. the login domains (sshd_t, local_login_t, remote_login_t, xdm_t,
#      sysadm_su_t, staff_su_t, staff_sudo_t, passwd_t) enter
#      kdfhash_update_t by executing kdfhash_update_exec_t and may kill it;
#      the roles they run in allow it;
#   5. nothing broader: every allow and type transition rule the module
#      adds names kdfhash_update_t or kdfhash_update_exec_t (the rules of
#      sshd_t and local_login_t on shadow_t are the same with and without
#      it); it writes no etc_t file; its capabilities are chown and
#      dac_override alone; no '*' or '~' permission set in its source;
#   6. /usr/sbin/kdfhash-update, the installed path, is labelled
#      kdfhash_update_exec_t.
set -u
# The policy is the same text whatever the C build; the sanitizer run of
# the suite says where it was checked (KDF_SKIP_POLICY) and skips it.
if [ -n "${KDF_SKIP_POLICY:-}" ]; then
    echo "SKIP: the policy module does not depend on this build: $KDF_SKIP_POLICY"
    exit 77
fi
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
pol=/usr/share/selinux/default
for need in /usr/share/selinux/devel/Makefile:selinux-policy-dev sesearch:setools \
    semodule_link:semodule-utils "$pol/base.pp.bz2:selinux-policy-default"; do
    what=${need%%:*}
    if [ ! -e "$what" ] && ! command -v "$what" >/dev/null 2>&1; then
        echo "FAIL: $what missing (Debian package ${need#*:})"
        exit 1
    fi
done
fail=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kdf-sepol.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# 1. the build rule
if ! ${MAKE:-make} -s -C "$top_builddir" selinux-policy > "$tmp/make.log" 2>&1; then
    bad "make selinux-policy failed:"; sed 's/^/    /' "$tmp/make.log"; exit 1
fi
pp=$top_builddir/packaging/selinux/kdfhash.pp
[ -s "$pp" ] && ok || { bad "no $pp"; exit 1; }

# 2. linked with the whole distribution policy, and with a small part of it
# with and without the module (for the differences of 5.)
for f in "$pol"/*.pp.bz2; do bzcat "$f" > "$tmp/$(basename "$f" .bz2)"; done
others=$(ls "$tmp"/*.pp | grep -v '/base\.pp$')
link() { # OUT MODULES...
    out=$1
    shift
    semodule_link -o "$tmp/$out.lnk" "$@" > "$tmp/link.log" 2>&1 &&
        semodule_expand "$tmp/$out.lnk" "$tmp/$out.bin" >> "$tmp/link.log" 2>&1 ||
        { bad "linking $out:"; grep -v 'loading package' "$tmp/link.log" | sed 's/^/    /'
          exit 1; }
    ok
}
# shellcheck disable=SC2086
link full "$tmp/base.pp" $others "$pp"
# The part: the login domains' modules and what they need.  The questions
# go to it: sesearch reads the whole policy in a second, each time.
part=
for m in base ssh su sudo remotelogin staff unprivuser xserver xdg getty; do
    part="$part $tmp/$m.pp"
done
# shellcheck disable=SC2086
link with $part "$pp"
# shellcheck disable=SC2086
link without $part
P=$tmp/with.bin

# allows SRC TGT CLASS PERMS...: every perm is allowed to SRC on TGT:CLASS
# (one sesearch for the triple, its rules' permissions one a line)
allows() {
    s=$1 t=$2 c=$3
    shift 3
    sesearch -A -s "$s" -t "$t" -c "$c" "$P" 2>/dev/null | grep '^allow ' |
        sed -e 's/;.*//' -e 's/^[^:]*:[^ ]* //' | tr -d '{}' | tr ' ' '\n' > "$tmp/perms"
    for p in "$@"; do
        if grep -qx "$p" "$tmp/perms"; then ok; else bad "$s may not $p $t:$c"; fi
    done
}
# 3. what the writer does
U=kdfhash_update_t
allows $U shadow_lock_t file open write lock getattr create
allows $U etc_t dir search getattr open read write add_name remove_name
allows $U shadow_t file create open read write getattr setattr lock rename unlink \
    relabelfrom relabelto
allows $U $U capability chown dac_override
allows $U devlog_t sock_file write
if sesearch -T -s $U -t etc_t -c file "$P" | grep -q "etc_t:file shadow_t;"; then ok; else
    bad "a file $U creates in /etc is not born shadow_t"; fi
if sesearch -T -s $U -t etc_t -c file "$P" | grep -q 'shadow_lock_t "\{0,1\}\.pwd\.lock'; then
    ok; else bad "/etc/.pwd.lock made by $U is not born shadow_lock_t"; fi

# 4. the login domains
for d in sshd_t local_login_t remote_login_t xdm_t sysadm_su_t staff_su_t staff_sudo_t passwd_t; do
    allows $d $U process transition sigkill
    allows $d kdfhash_update_exec_t file execute
    allows $U $d fd use
    if sesearch -T -s $d -t kdfhash_update_exec_t -c process "$P" | grep -q " $U;"; then ok
    else bad "$d does not enter $U by executing kdfhash_update_exec_t"; fi
done
for r in system_r staff_r sysadm_r user_r; do
    if seinfo -r "$r" -x "$P" 2>/dev/null | grep -qw "$U"; then ok; else
        bad "role $r does not allow $U"; fi
done

# 5. nothing broader
for kind in -A -T; do
    sesearch $kind "$tmp/with.bin" | sort > "$tmp/r.with"
    sesearch $kind "$tmp/without.bin" | sort > "$tmp/r.without"
    comm -13 "$tmp/r.without" "$tmp/r.with" > "$tmp/added"
    [ -s "$tmp/added" ] || bad "sesearch $kind: the module adds no rule at all?"
    if grep -v 'kdfhash_update_t\|kdfhash_update_exec_t' "$tmp/added" > "$tmp/foreign"; then
        bad "sesearch $kind: rules added without the module's types:"
        sed 's/^/    /' "$tmp/foreign"
    else ok; fi
done
for d in sshd_t local_login_t; do
    a=$(sesearch -A -s $d -t shadow_t "$tmp/with.bin" | sort)
    b=$(sesearch -A -s $d -t shadow_t "$tmp/without.bin" | sort)
    [ "$a" = "$b" ] && ok || bad "$d's rules on shadow_t changed"
done
if [ -z "$(sesearch -A -s $U -t etc_t -c file -p write "$P")" ]; then ok; else
    bad "$U may write etc_t files"; fi
caps=$(sesearch -A -s $U -c capability "$P" | sed -n 's/.*capability \(.*\);/\1/p' | tr -d '{}' |
    tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
[ "$caps" = "chown dac_override " ] && ok || bad "$U's capabilities: $caps"
if grep -n '^[^#]*\(allow\|dontaudit\).*[*~]' "$top_srcdir"/packaging/selinux/kdfhash.te \
    "$top_srcdir"/packaging/selinux/kdfhash.if; then bad "a '*' or '~' in the module's rules"
else ok; fi

# 6. the labels of the installed helper
for f in /usr/sbin/kdfhash-update /usr/bin/kdfhash-update; do
    if grep -q "^$f[[:space:]].*:kdfhash_update_exec_t," \
        "$top_srcdir/packaging/selinux/kdfhash.fc"; then ok; else bad "$f not labelled"; fi
done

echo "# $pass passed, $fail failed"
[ "$fail" = 0 ]
