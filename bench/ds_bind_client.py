#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""ds_bind_client.py - simple binds against one 389-ds, timed.

    ds_bind_client.py URL DN PASSWORD SECONDS THREADS
    ds_bind_client.py --wrong URL PASSWORD SECONDS THREADS DN...

Each thread keeps one connection and binds as DN again and again for
SECONDS; every bind must succeed.  With --wrong, a storm: thread i binds
as the i-th DN (in turn) with a wrong PASSWORD, and every bind must fail
with invalidCredentials (err=49), nothing else.  Prints one line of JSON:
binds, binds per second, p50 and p99 latency (ms).  python-ldap (libldap)
is the client, as sssd's and pam_ldap's is.
"""
import json
import sys
import threading
import time

import ldap


def bind_ok(conn, dn, pw):
    conn.simple_bind_s(dn, pw)


def bind_refused(conn, dn, pw):
    try:
        conn.simple_bind_s(dn, pw)
    except ldap.INVALID_CREDENTIALS:
        return
    raise ldap.LDAPError("a wrong password was accepted")


def main():
    wrong = sys.argv[1:2] == ["--wrong"]
    if wrong:
        url, pw, seconds, threads = sys.argv[2:6]
        dns, bind = sys.argv[6:], bind_refused
    else:
        url, dn, pw, seconds, threads = sys.argv[1:6]
        dns, bind = [dn], bind_ok
    seconds, threads = float(seconds), int(threads)
    lat, errors, lock = [], [], threading.Lock()
    stop = time.monotonic() + seconds

    def worker(dn):
        conn = ldap.initialize(url)
        conn.set_option(ldap.OPT_PROTOCOL_VERSION, 3)
        mine = []
        try:
            while time.monotonic() < stop:
                t = time.perf_counter()
                bind(conn, dn, pw)
                mine.append(time.perf_counter() - t)
        except ldap.LDAPError as e:  # an unexpected answer voids the figure
            errors.append(str(e))
        with lock:
            lat.extend(mine)

    begin = time.monotonic()
    ts = [threading.Thread(target=worker, args=(dns[i % len(dns)],))
          for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    wall = time.monotonic() - begin
    if errors or not lat:
        print(json.dumps({"error": errors[:1] or ["no bind completed"]}))
        return 1
    lat.sort()
    print(json.dumps({
        "binds": len(lat),
        "per_s": len(lat) / wall,
        "p50_ms": lat[len(lat) // 2] * 1e3,
        "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1e3,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
