# SPDX-License-Identifier: BSD-3-Clause
#
# ds-lib.sh - throw-away 389 Directory Server instances for the plugin's
# tests and benchmark (sourced by tests/ds/test_ds389.sh and bench/ds_bind.sh).
#
# Everything happens in a private mount namespace: a scratch directory is
# bound over /etc/dirsrv, /var/lib/dirsrv, /var/log/dirsrv, /run/dirsrv,
# /run/lock/dirsrv and /dev/shm, and a copy of dscreate's defaults.inf with
# with_systemd = 0 over the real one (dscreate wants systemd otherwise), so
# the machine's own configuration is never touched and the instances
# vanish with the namespace.
#
# The caller calls ds_in_ns first: it runs the caller again inside the
# namespace, with DS_ROOT naming the scratch tree.

DS_DM="cn=Directory Manager"
DS_DMPW="Directory_Manager_Password"
DS_SUFFIX="dc=example,dc=com"
DS_REPLDN="cn=replication manager,cn=config"
DS_REPLPW="Replication_Password_1"

# Why 389-ds cannot run here, or nothing.
ds_unavailable() {
    [ "$(id -u)" = 0 ] || { echo "not root (dscreate and the namespace need it)"; return; }
    command -v dscreate >/dev/null 2>&1 || { echo "dscreate not installed (Debian: 389-ds-base)"; return; }
    command -v ldapwhoami >/dev/null 2>&1 || { echo "ldapwhoami not installed (Debian: ldap-utils)"; return; }
    [ -f /usr/share/dirsrv/inf/defaults.inf ] || { echo "no /usr/share/dirsrv/inf/defaults.inf"; return; }
    id dirsrv >/dev/null 2>&1 || { echo "no dirsrv user (389-ds-base's postinst makes it)"; return; }
}

# ds_abs PATH: PATH made absolute (the script runs again from the namespace).
ds_abs() {
    case "$1" in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac
}

# ds_in_ns SCRIPT ARGS...: outside the namespace, run SCRIPT ARGS again in a
# new mount namespace with a fresh scratch tree DS_ROOT, remove the tree
# after a success (keep it, and say where, after a failure) and exit with
# the script's status.  Inside, return at once.
ds_in_ns() {
    [ "${KDF_DS_IN_NS:-}" = 1 ] && return 0
    # As root (ds_unavailable saw to that) a namespace that cannot be made
    # is a broken machine, not a reason to skip.
    unshare -m true 2>/dev/null || { echo "FAIL: running as root, yet unshare -m fails (is / a mount point? a chroot must bind its root onto itself)"; exit 1; }
    DS_ROOT=$(mktemp -d /tmp/kdfhash-ds.XXXXXX) || exit 1
    chmod 755 "$DS_ROOT"
    export DS_ROOT
    KDF_DS_IN_NS=1 unshare -m --propagation private sh "$@"
    _ds_rc=$?
    if [ $_ds_rc -eq 0 ]; then
        rm -rf "$DS_ROOT"
    else
        echo "ds: scratch tree kept in $DS_ROOT"
    fi
    exit $_ds_rc
}

# Bind the scratch tree over the server's directories (inside the namespace).
ds_mount_scratch() {
    _ds_r=$DS_ROOT
    mkdir -p "$_ds_r/etc" "$_ds_r/varlib" "$_ds_r/varlog" "$_ds_r/run" "$_ds_r/lock" \
        "$_ds_r/shm" "$_ds_r/lib"
    cp -a /etc/dirsrv "$_ds_r/etc/dirsrv"
    chown dirsrv:dirsrv "$_ds_r/varlib" "$_ds_r/varlog" "$_ds_r/run" "$_ds_r/lock"
    chmod 1777 "$_ds_r/shm"
    sed 's/^with_systemd = 1/with_systemd = 0/' /usr/share/dirsrv/inf/defaults.inf \
        >"$_ds_r/defaults.inf"
    mkdir -p /run/dirsrv /run/lock/dirsrv
    mount --bind "$_ds_r/defaults.inf" /usr/share/dirsrv/inf/defaults.inf &&
        mount --bind "$_ds_r/etc/dirsrv" /etc/dirsrv &&
        mount --bind "$_ds_r/varlib" /var/lib/dirsrv &&
        mount --bind "$_ds_r/varlog" /var/log/dirsrv &&
        mount --bind "$_ds_r/run" /run/dirsrv &&
        mount --bind "$_ds_r/lock" /run/lock/dirsrv &&
        mount --bind "$_ds_r/shm" /dev/shm
}

# Two free TCP ports on 127.0.0.1.
ds_free_ports() {
    python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))'
}

# ds_create NAME PORT: a fresh instance with an empty dc=example,dc=com.
ds_create() {
    cat >"$DS_ROOT/$1.inf" <<EOI
[general]
full_machine_name = localhost
start = True
[slapd]
instance_name = $1
port = $2
secure_port = 0
self_sign_cert = False
root_password = $DS_DMPW
ldapi = $DS_ROOT/$1.socket
[backend-userroot]
sample_entries = no
suffix = $DS_SUFFIX
create_suffix_entry = True
EOI
    dscreate from-file "$DS_ROOT/$1.inf" >"$DS_ROOT/$1.dscreate.log" 2>&1 || {
        cat "$DS_ROOT/$1.dscreate.log" >&2
        return 1
    }
}

ds_url() { echo "ldap://127.0.0.1:$1"; }

# ds_modify PORT: ldapmodify as Directory Manager, LDIF on stdin.
ds_modify() {
    ldapmodify -x -H "$(ds_url "$1")" -D "$DS_DM" -w "$DS_DMPW" >/dev/null
}
ds_add() {
    ldapadd -x -H "$(ds_url "$1")" -D "$DS_DM" -w "$DS_DMPW" >/dev/null
}

# ds_register_plugin PORT LDIF SO CONF: the shipped LDIF, pointed at a
# plugin and policy file of the tree under test.
ds_register_plugin() {
    sed -e "s|^nsslapd-pluginPath: libkdfhash-pwdstorage-plugin\$|nsslapd-pluginPath: $3|" \
        -e "s|^nsslapd-pluginarg0: .*|nsslapd-pluginarg0: $4|" "$2" | ds_add "$1"
}

ds_restart() { dsctl "$1" restart >"$DS_ROOT/$1.dsctl.log" 2>&1 || {
    cat "$DS_ROOT/$1.dsctl.log" >&2
    tail -20 "/var/log/dirsrv/slapd-$1/errors" >&2
    return 1
}; }

ds_pid() { cat "/run/dirsrv/slapd-$1.pid"; }

# ds_set_scheme PORT SCHEME: the global passwordStorageScheme.
ds_set_scheme() {
    printf 'dn: cn=config\nchangetype: modify\nreplace: passwordStorageScheme\npasswordStorageScheme: %s\n' "$2" |
        ds_modify "$1"
}

# ds_stored PORT UID: the userPassword of uid=UID as stored.
ds_stored() {
    ldapsearch -x -LLL -o ldif-wrap=no -H "$(ds_url "$1")" -D "$DS_DM" -w "$DS_DMPW" \
        -b "uid=$2,ou=people,$DS_SUFFIX" -s base userPassword 2>/dev/null |
        sed -n 's/^userPassword:: //p; s/^userPassword: //p' | {
        read -r _ds_v || true
        # ldapsearch prints a value as base64 ("::") only when it must.
        case "$_ds_v" in
        "{"*) printf '%s\n' "$_ds_v" ;;
        "") ;;
        *) printf '%s' "$_ds_v" | base64 -d 2>/dev/null || printf '%s\n' "$_ds_v" ;;
        esac
    }
}

# ds_replicate P1 P2: two-way multi-supplier replication of the suffix,
# supplier 2 initialised from supplier 1.
# ds_quiet COMMAND...: COMMAND's output only when it fails (dsconf prints
# its errors on stdout: "No such file or directory: '/sbin/ip'" on a
# machine without iproute2).
ds_quiet() {
    _ds_out=$("$@" 2>&1) && return 0
    _ds_rc=$?
    printf '%s: %s\n' "$1 $5 $6" "$_ds_out" >&2
    return $_ds_rc
}

ds_replicate() {
    _ds_rid=1
    for _ds_p in "$1" "$2"; do
        ds_quiet dsconf -D "$DS_DM" -w "$DS_DMPW" "$(ds_url "$_ds_p")" replication enable \
            --suffix="$DS_SUFFIX" --role=supplier --replica-id=$_ds_rid \
            --bind-dn="$DS_REPLDN" --bind-passwd="$DS_REPLPW" || return 1
        _ds_rid=$((_ds_rid + 1))
    done
    ds_quiet dsconf -D "$DS_DM" -w "$DS_DMPW" "$(ds_url "$1")" repl-agmt create \
        --suffix="$DS_SUFFIX" --host=127.0.0.1 --port="$2" --conn-protocol=LDAP \
        --bind-dn="$DS_REPLDN" --bind-passwd="$DS_REPLPW" --bind-method=SIMPLE \
        --init one-to-two || return 1
    ds_quiet dsconf -D "$DS_DM" -w "$DS_DMPW" "$(ds_url "$2")" repl-agmt create \
        --suffix="$DS_SUFFIX" --host=127.0.0.1 --port="$1" --conn-protocol=LDAP \
        --bind-dn="$DS_REPLDN" --bind-passwd="$DS_REPLPW" --bind-method=SIMPLE \
        two-to-one || return 1
    # The total update of an empty suffix takes a second or two, but the one
    # that --init asks for can be lost or refused ("replica busy") while
    # supplier 2 still sets itself up, leaving the status unknown: ask again
    # then, every 15 s, for up to 120 s.
    _ds_i=0
    while [ $_ds_i -lt 120 ]; do
        _ds_s=$(dsconf -D "$DS_DM" -w "$DS_DMPW" "$(ds_url "$1")" repl-agmt init-status \
            --suffix="$DS_SUFFIX" one-to-two 2>&1 || true)
        case "$_ds_s" in
        *"successfully initialized"*) return 0 ;;
        *"in progress"*) ;;
        *busy* | Unknown* | *" Unknown"*)
            if [ $((_ds_i % 15)) -eq 14 ]; then
                echo "replication: '$_ds_s' after $((_ds_i + 1)) s; asking for the total update again" >&2
                ds_quiet dsconf -D "$DS_DM" -w "$DS_DMPW" "$(ds_url "$1")" repl-agmt init \
                    --suffix="$DS_SUFFIX" one-to-two || true
            fi
            ;;
        *[Ff]ail* | *[Ee]rror*) echo "$_ds_s" >&2; return 1 ;;
        esac
        sleep 1
        _ds_i=$((_ds_i + 1))
    done
    echo "replication: supplier 2 not initialised after 120 s (last status: $_ds_s)" >&2
    for _ds_d in /var/log/dirsrv/slapd-*; do
        echo "--- $_ds_d/errors:" >&2
        tail -15 "$_ds_d/errors" >&2
    done
    return 1
}

# ds_wait_value PORT UID VALUE: until the stored value is VALUE (30 s).
ds_wait_value() {
    _ds_i=0
    while [ $_ds_i -lt 60 ]; do
        [ "$(ds_stored "$1" "$2")" = "$3" ] && return 0
        sleep 0.5
        _ds_i=$((_ds_i + 1))
    done
    return 1
}

# ds_stop_all: stop every instance of the scratch tree.
ds_stop_all() {
    for _ds_d in /etc/dirsrv/slapd-*; do
        [ -d "$_ds_d" ] || continue
        dsctl "${_ds_d#/etc/dirsrv/slapd-}" stop >/dev/null 2>&1 || true
    done
}
