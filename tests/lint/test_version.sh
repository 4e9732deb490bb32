#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_version.sh - the release version lives in configure.ac's AC_INIT
# alone; every other place that shows it must say the same:
#   - the upstream part of debian/changelog's newest entry (its Debian
#     revision is there iff the source format is 3.0 (quilt));
#   - `kdfhash --version`;
#   - nsslapd-pluginVersion of every entry of the generated 389-ds LDIF;
#   - the RPM spec's Version, when the spec is generated (a .spec.in).
set -u
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${top_builddir:=$top}"

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }

want=$(sed -n 's/^AC_INIT(\[kdfhash\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
if [ -z "$want" ]; then
    echo "FAIL: no version in configure.ac's AC_INIT"
    exit 1
fi
echo "# configure.ac: $want"

# debian/changelog: "kdfhash (EPOCH:UPSTREAM-REVISION) ...".
deb=$(sed -n '1s/^kdfhash (\([^)]*\)).*/\1/p' "$top/packaging/debian/changelog")
up=${deb#*:}
case $(cat "$top/packaging/debian/source/format" 2>/dev/null) in
'3.0 (quilt)')
    case $up in
    *-*) up=${up%-*}; ok "changelog $deb has a Debian revision (3.0 (quilt))" ;;
    *) bad "changelog $deb has no Debian revision, but the format is 3.0 (quilt)" ;;
    esac
    ;;
*)
    case $up in
    *-*) bad "changelog $deb has a Debian revision, but the format is native" ;;
    *) ok "changelog $deb is native" ;;
    esac
    ;;
esac
if [ "$up" = "$want" ]; then ok "debian/changelog: $up"
else bad "debian/changelog says $up, configure.ac $want"; fi

cli=$top_builddir/cli/kdfhash
if [ -x "$cli" ]; then
    got=$("$cli" --version 2>&1)
    if [ "$got" = "kdfhash $want" ]; then ok "kdfhash --version: $got"
    else bad "kdfhash --version says '$got', not 'kdfhash $want'"; fi
else
    bad "$cli is not built"
fi

# The LDIF's rule is unconditional, so any build can make it.
ldif=$top_builddir/ds_plugin/kdfhash-schemes.ldif
if ${MAKE:-make} -s -C "$top_builddir" ds_plugin/kdfhash-schemes.ldif >/dev/null 2>&1 &&
    [ -f "$ldif" ]; then
    n=$(grep -c '^nsslapd-pluginVersion:' "$ldif")
    other=$(grep '^nsslapd-pluginVersion:' "$ldif" | grep -v -x "nsslapd-pluginVersion: $want")
    if [ "$n" -gt 0 ] && [ -z "$other" ]; then
        ok "LDIF: $n entries with nsslapd-pluginVersion: $want"
    else
        bad "LDIF: $n entries, versions not $want: $(echo "$other" | tr '\n' ' ')"
    fi
else
    bad "could not make $ldif"
fi

if [ -f "$top/packaging/rpm/pam_kdfhash.spec.in" ]; then
    spec=$top_builddir/packaging/rpm/pam_kdfhash.spec
    if [ -f "$spec" ]; then
        v=$(sed -n 's/^Version:[[:space:]]*//p' "$spec" | head -1)
        if [ "$v" = "$want" ]; then ok "RPM spec: Version $v"
        else bad "RPM spec says Version $v, configure.ac $want"; fi
    else
        echo "# $spec not generated yet (config.status makes it)"
    fi
fi

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
