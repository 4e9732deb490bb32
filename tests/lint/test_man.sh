#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_man.sh - the six man pages are lint-clean and cannot drift from the
# code:
#   1. mandoc -Tlint -Wwarning reports nothing on kdfhash.1, kdfhash.conf.5,
#      pam_kdfhash.8, kdfhash-chkpwd.8, 389-ds-kdfhash.8 and kdfhash-ds-check.8
#      (the shipped roff);
#   2. with scdoc installed, the shipped roff is what doc/*.scd generates
#      (the .TH date aside);
#   3. every module option of pam_module/options.c appears in
#      pam_kdfhash(8); every policy key of core/api_policy.c in kdfhash.conf(5)
#      and pam_kdfhash(8); every subcommand of cli/main.c and every long
#      option of cli/*.c in kdfhash(1); every exit status of
#      pam_module/chkpwd_client.h, its password and time limits, and the
#      helper's modes in packaging/debian/rules and the RPM spec in
#      kdfhash-chkpwd(8).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
fail=0
pass=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() {
    echo "FAIL: $*"
    fail=$((fail + 1))
}

if ! command -v mandoc >/dev/null 2>&1; then
    echo "FAIL: mandoc is not installed (Debian package mandoc)"
    exit 1
fi

# The page as built (a regenerated one in the build tree wins, as for make
# install), else the shipped one.
page() {
    if [ -f "$top_builddir/doc/$1" ]; then
        echo "$top_builddir/doc/$1"
    else
        echo "$top_srcdir/doc/$1"
    fi
}

for p in kdfhash.1 kdfhash.conf.5 pam_kdfhash.8 kdfhash-chkpwd.8 389-ds-kdfhash.8 \
    kdfhash-ds-check.8 kdfhash-ds-wrap.8 kdfhash-update.8; do
    f=$(page "$p")
    if [ ! -s "$f" ]; then
        bad "$p: missing"
        continue
    fi
    out=$(mandoc -Tlint -Wwarning "$f" 2>&1)
    if [ -z "$out" ]; then ok; else bad "$p: mandoc -Tlint: $out"; fi
    # Plain text, one paragraph per line (no hyphenation or line breaks
    # inside an option name).
    mandoc -Tascii -O width=1000 "$f" 2>/dev/null | col -b > "$tmp/$p.txt"
    # The NAME line is "name - what".
    if grep -q "^ *${p%.*} - " "$tmp/$p.txt"; then ok; else bad "$p: NAME line"; fi
    if command -v scdoc >/dev/null 2>&1; then
        scdoc < "$top_srcdir/doc/$p.scd" | awk -f "$top_srcdir/doc/roff-tidy.awk" |
            grep -v '^\.TH ' > "$tmp/$p.gen"
        grep -v '^\.TH ' "$f" > "$tmp/$p.shipped"
        if cmp -s "$tmp/$p.gen" "$tmp/$p.shipped"; then ok; else
            bad "$p: the shipped roff is not what doc/$p.scd generates (run make)"
        fi
    fi
done

# has PAGE WORD: WORD appears in the text of PAGE.
has() {
    if grep -qF -- "$2" "$tmp/$1.txt"; then ok; else bad "$1 does not mention '$2'"; fi
}

# 3a. Module options: flags compared with strcmp(arg, "x"), and the
# key= options with strncmp(arg, "key=", n).
opts=$(sed -n 's/.*strn\{0,1\}cmp(arg, "\([a-z_]*=\{0,1\}\)".*/\1/p' \
    "$top_srcdir/pam_module/options.c" | sort -u)
[ -n "$opts" ] || bad "no options found in pam_module/options.c"
n=0
for o in $opts; do
    has pam_kdfhash.8 "$o"
    n=$((n + 1))
done
[ "$n" -ge 7 ] || bad "only $n module options found in options.c (expected 7)"
for v in upgrade=file upgrade=off upgrade=exec: PAM_SERVICE_ERR PAM_AUTH_ERR \
    PAM_USER_UNKNOWN PAM_AUTHINFO_UNAVAIL PAM_SUCCESS; do
    has pam_kdfhash.8 "$v"
done
# The Linux-PAM section list.
for s in NAME SYNOPSIS DESCRIPTION OPTIONS "MODULE TYPES PROVIDED" "RETURN VALUES" \
    FILES EXAMPLES "SEE ALSO"; do
    if grep -q "^$s\$" "$tmp/pam_kdfhash.8.txt"; then ok; else bad "pam_kdfhash.8: no $s section"; fi
done

# 3b. Policy keys: api_policy.c's own and the scheme rows', as the core lists them.
kdf="$top_builddir/cli/kdfhash"
[ -x "$kdf" ] || { echo "FAIL: $kdf not built"; exit 1; }
keys=$("$kdf" check-conf --keys)
n=0
for k in $keys; do
    has kdfhash.conf.5 "$k ="
    has pam_kdfhash.8 "$k="
    n=$((n + 1))
done
[ "$n" -ge 12 ] || bad "kdfhash check-conf --keys listed only $n policy keys (expected 12 or more)"
# ... and every key of the shipped kdfhash.conf, with its default value.
while IFS= read -r line; do
    case $line in '#'* | '') continue ;; esac
    has kdfhash.conf.5 "${line%% =*}"
done < "$top_srcdir/packaging/kdfhash.conf"

# 3c. Subcommands (the g_cmds table) and long options of the CLI.
cmds=$(sed -n '/g_cmds\[\] = {/,/};/p' "$top_srcdir/cli/main.c" |
    sed -n 's/^ *{"\([a-z-]*\)".*/\1/p')
n=0
for c in $cmds; do
    if grep -q "^ *$c\( \|$\)" "$tmp/kdfhash.1.txt"; then ok; else bad "kdfhash.1: no entry for '$c'"; fi
    n=$((n + 1))
done
[ "$n" -ge 8 ] || bad "only $n subcommands found in cli/main.c (expected 8)"
longopts=$(cat "$top_srcdir"/cli/*.c |
    sed -n 's/.*{"\([a-z][a-z-]*\)", *\(no\|required\|optional\)_argument.*/\1/p;
            s/.*strcmp([a-z]*, "--\([a-z][a-z-]*\)").*/\1/p' | sort -u)
[ -n "$longopts" ] || bad "no long options found in cli/*.c"
for o in $longopts; do
    has kdfhash.1 "--$o"
done
for s in "EXIT STATUS" EXAMPLES "SEE ALSO"; do
    if grep -q "^$s\$" "$tmp/kdfhash.1.txt"; then ok; else bad "kdfhash.1: no $s section"; fi
done

# 3c'. 389-ds-kdfhash(8), COUNTERS: every counter attribute the plugin
# shows (ds_stats.c, the one list of them).
ctrs=$(sed -n 's/.*"\(kdfhash[A-Z][A-Za-z]*\)".*/\1/p' "$top_srcdir/ds_plugin/ds_stats.c" | sort -u)
[ "$(echo "$ctrs" | wc -w)" -ge 12 ] || bad "fewer than 12 counter attributes found in ds_plugin/ds_stats.c"
for c in $ctrs; do
    has 389-ds-kdfhash.8 "$c"
done

# 3d. kdfhash-chkpwd(8): the exit codes of enum kdf_chkpwd_exit, one entry
# each in EXIT STATUS and no other; the limits of chkpwd_client.h and
# chkpwd.c; the modes the packages install it with.
p=kdfhash-chkpwd.8
if [ -s "$tmp/$p.txt" ]; then
    hdr=$top_srcdir/pam_module/chkpwd_client.h
    # KDF_CHKPWD_EXIT_MAX repeats the last code: left out by name.
    codes=$(sed -n '/^enum kdf_chkpwd_exit {/,/^};/p' "$hdr" | grep -v EXIT_MAX |
        sed -n 's/^ *KDF_CHKPWD_[A-Z_]* = \([0-9]*\),.*/\1/p')
    [ "$(echo "$codes" | wc -w)" -ge 6 ] || bad "$p: fewer than 6 exit codes found in $hdr"
    sed -n '/^EXIT STATUS$/,/^[A-Z][A-Z ]*$/p' "$tmp/$p.txt" |
        sed -n 's/^ *\([0-9][0-9]*\)$/\1/p' > "$tmp/$p.codes"
    if [ "$(echo "$codes" | sort -n | tr '\n' ' ')" = "$(sort -n "$tmp/$p.codes" | tr '\n' ' ')" ]; then
        ok
    else
        bad "$p: EXIT STATUS lists $(tr '\n' ' ' < "$tmp/$p.codes")but chkpwd_client.h has $(echo "$codes" | tr '\n' ' ')"
    fi
    maxpw=$(sed -n 's/^#define KDF_CHKPWD_MAX_PW \([0-9]*\).*/\1/p' "$hdr")
    tmo=$(sed -n 's/^#define KDF_CHKPWD_TIMEOUT_MS \([0-9]*\).*/\1/p' "$hdr")
    slp=$(sed -n 's/^#define KDF_CHKPWD_TTY_SLEEP \([0-9]*\) .*/\1/p' \
        "$top_srcdir/pam_module/chkpwd.c")
    if [ -n "$maxpw" ] && [ -n "$tmo" ] && [ -n "$slp" ]; then
        has "$p" "At most $maxpw bytes"
        has "$p" "after $((tmo / 1000)) seconds"
        has "$p" "waits $slp seconds"
    else bad "$p: the password cap, timeout or tty sleep not found in the sources"; fi
    has "$p" "This binary is not designed for running in this way"
    # The modes the packages set, as the page states them.
    dmode=$(sed -n 's/^[[:space:]]*chmod \([0-7]*\) debian\/[a-z-]*\/usr\/sbin\/kdfhash-chkpwd$/\1/p' \
        "$top_srcdir/packaging/debian/rules")
    dgrp=$(sed -n 's/^[[:space:]]*chgrp \([a-z]*\) debian\/[a-z-]*\/usr\/sbin\/kdfhash-chkpwd$/\1/p' \
        "$top_srcdir/packaging/debian/rules")
    if [ -n "$dmode" ] && [ -n "$dgrp" ]; then
        has "$p" "Mode $dmode, owner root, group $dgrp"
    else bad "no chmod/chgrp of kdfhash-chkpwd in packaging/debian/rules"; fi
    rattr=$(sed -n 's/^%attr(\([0-7]*\),root,\([a-z]*\)) %{_sbindir}\/kdfhash-chkpwd$/\1 \2/p' \
        "$top_srcdir/packaging/rpm/pam_kdfhash.spec.in")
    if [ -n "$rattr" ]; then
        has "$p" "Mode ${rattr% *}, owner root, group ${rattr#* }"
    else bad "no %attr line for kdfhash-chkpwd in packaging/rpm/pam_kdfhash.spec.in"; fi
    for f in /usr/sbin/kdfhash-chkpwd /etc/shadow /etc/security/kdfhash.conf \
        "pam_kdfhash(8)" "unix_chkpwd(8)"; do
        has "$p" "$f"
    done
    for s in NAME SYNOPSIS DESCRIPTION PROTOCOL "EXIT STATUS" SECURITY FILES "SEE ALSO"; do
        if grep -q "^$s\$" "$tmp/$p.txt"; then ok; else bad "$p: no $s section"; fi
    done
fi

# 3e. The scheme table: every scheme a target can name (kdfhash schemes
# --names, read from the core's table) is documented with its keys in
# kdfhash.conf(5), which the shipped kdfhash.conf points to rather than
# restating, and listed by kdfhash(1)'s schemes command.
if grep -q '^#.*kdfhash\.conf(5)' "$top_srcdir/packaging/kdfhash.conf"; then ok; else
    bad "packaging/kdfhash.conf does not point to kdfhash.conf(5)"
fi
if [ -x "$kdf" ]; then
    names=$("$kdf" schemes --names)
    n=0
    for s in $names; do
        n=$((n + 1))
        has kdfhash.conf.5 "$s"
        # each key of the scheme's default target is named in kdfhash.conf(5)
        for kv in $("$kdf" schemes | awk -v s="$s" '$1 == s { print $2 " " $3 }' |
            cut -d' ' -f2 | tr ',' ' '); do
            has kdfhash.conf.5 "${kv%%=*}="
        done
    done
    [ "$n" -ge 1 ] || bad "kdfhash schemes --names listed no scheme"
    # every row of the table, verified-only ones too, is named in kdfhash.conf(5)
    for s in $("$kdf" schemes | awk '{ print $1 }'); do
        has kdfhash.conf.5 "$s"
    done
    has kdfhash.1 "schemes"
else
    bad "$kdf not built: cannot read the scheme table"
fi

echo "test_man: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
