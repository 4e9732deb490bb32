#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
#
# audit_reader.py - the kernel's audit records, as a reader of its netlink
# multicast group (AUDIT_NLGRP_READLOG, CAP_AUDIT_READ): any number of
# readers may join, so no audit daemon is started or displaced and test
# lanes running at once do not meet.  For tests/pam/test_pam_audit.sh.
#
#   audit_reader.py --probe        exit 0 when the kernel will hand user
#                                  records to a reader (audit enabled, the
#                                  group joined), else say why, exit 1
#   audit_reader.py OUT READY      join, create READY, then append each
#                                  record to OUT as auditd writes it
#                                  ("type=NAME msg=audit(...): ...") until
#                                  SIGTERM
# The kernel's state is only read, never changed: enabling audit would
# change every later process of the machine.
import os
import select
import signal
import socket
import struct
import sys

NETLINK_AUDIT = 9
AUDIT_GET = 1000
AUDIT_NLGRP_READLOG = 1
NLMSG_ERROR = 2
HDR = struct.Struct("=LHHLL")
# The record types the test reads, named as auditd names them.
NAMES = {1100: "USER_AUTH", 1101: "USER_ACCT", 1102: "USER_MGMT", 1103: "CRED_ACQ",
         1104: "CRED_DISP", 1105: "USER_START", 1106: "USER_END", 1108: "USER_CHAUTHTOK"}


def probe():
    try:
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_AUDIT)
        s.bind((0, 0))
        s.send(HDR.pack(HDR.size, AUDIT_GET, 1, 1, 0))
        s.settimeout(2)
        d = s.recv(65536)
    except OSError as e:
        return "cannot ask the kernel's audit state: %s" % e
    ln, typ, _, _, _ = HDR.unpack_from(d)
    if typ == NLMSG_ERROR:
        return "the kernel refused AUDIT_GET: error %d" % struct.unpack_from("=i", d, 16)[0]
    if typ != AUDIT_GET or len(d) < 24:
        return "unexpected answer to AUDIT_GET (type %d)" % typ
    enabled = struct.unpack_from("=L", d, 20)[0]
    if enabled == 0:
        return "the kernel's audit is off (auditctl -e 0): user records are dropped"
    try:
        r = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_AUDIT)
        r.bind((0, 1 << (AUDIT_NLGRP_READLOG - 1)))
    except OSError as e:
        return "cannot join the audit multicast group: %s" % e
    return None


def read(out, ready):
    r = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_AUDIT)
    r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    r.bind((0, 1 << (AUDIT_NLGRP_READLOG - 1)))
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    open(ready, "w").close()
    with open(out, "a") as f:
        while not stop:
            try:
                ok, _, _ = select.select([r], [], [], 0.2)
            except InterruptedError:
                continue
            if not ok:
                continue
            d = r.recv(1 << 16)
            ln, typ, _, _, _ = HDR.unpack_from(d)
            text = d[HDR.size:ln].rstrip(b"\0").decode("utf-8", "replace")
            name = NAMES.get(typ, "UNKNOWN[%d]" % typ)
            f.write("type=%s msg=%s\n" % (name, text))
            f.flush()


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--probe":
        why = probe()
        if why:
            print(why)
            sys.exit(1)
        sys.exit(0)
    if len(sys.argv) != 3:
        sys.exit("usage: audit_reader.py --probe | OUT READY")
    read(sys.argv[1], sys.argv[2])
