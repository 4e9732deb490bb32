#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
#
# pam_mkhashes.py - the stored hashes of the PAM tests, made by independent
# implementations: pyca bcrypt, passlib, argon2-cffi, Python's hashlib and
# libxcrypt (crypt(3), through Python's crypt module and ctypes).  Nothing
# here calls kdfhash.  Writes tests/pam/pam_hashes.inc (committed: generated, do
# not edit), rows PAM_HASH(id, "hash").
#
# Passwords, by id (test_pam.c rebuilds the same bytes):
#   every row not listed below: PAM_PW ("S3cret-p4ss!")
#   pw0: "" ; pw1: "a" ; pw72: "x" * 72 ; pw4096: "p" * 4096 ;
#   pwhigh: bytes 0x80..0xff in order
# Run with Debian's /usr/bin/python3 (python3-passlib, python3-bcrypt,
# python3-argon2).
import base64
import ctypes
import hashlib
import os
import sys
import warnings

warnings.simplefilter("ignore", DeprecationWarning)
import crypt  # noqa: E402  (libxcrypt)

import argon2.low_level as a2  # noqa: E402
import bcrypt  # noqa: E402
import passlib.hash as ph  # noqa: E402

PW = b"S3cret-p4ss!"

_lib = ctypes.CDLL("libcrypt.so.1")
_lib.crypt_gensalt.restype = ctypes.c_char_p
_lib.crypt_gensalt.argtypes = [ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int]


def xcrypt(pw, prefix, count):
    setting = _lib.crypt_gensalt(prefix, count, None, 0).decode()
    return crypt.crypt(pw.decode("latin-1"), setting)


def bcrypt_alphabet_salt():
    alpha = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    raw = os.urandom(21)
    # 22 characters whose last one carries only 2 meaningful bits ([.Oeu]).
    s = "".join(alpha[b % 64] for b in raw)
    return s + ".Oeu"[raw[20] % 4]


def argon2(pw, typ, m, t, p, version=19):
    types = {"id": a2.Type.ID, "i": a2.Type.I, "d": a2.Type.D}
    return a2.hash_secret(pw, os.urandom(16), time_cost=t, memory_cost=m, parallelism=p,
                          hash_len=32, type=types[typ], version=version).decode()


def b64(b):
    return base64.b64encode(b).decode().rstrip("=")


def phc(pw, md, it):
    salt = os.urandom(16)
    n = {"sha1": 20, "sha256": 32, "sha512": 64}[md]
    dk = hashlib.pbkdf2_hmac(md, pw, salt, it, n)
    name = "$pbkdf2$" if md == "sha1" else "$pbkdf2-%s$" % md
    return "%si=%d,l=%d$%s$%s" % (name, it, n, b64(salt), b64(dk))


def rows():
    r = []
    r.append(("bc2b", bcrypt.hashpw(PW, bcrypt.gensalt(4, b"2b")).decode()))
    r.append(("bc2a", bcrypt.hashpw(PW, bcrypt.gensalt(4, b"2a")).decode()))
    r.append(("bc2y", xcrypt(PW, b"$2y$", 5)))
    r.append(("bc2x", crypt.crypt(PW.decode(), "$2x$04$" + bcrypt_alphabet_salt())))
    r.append(("a2id", argon2(PW, "id", 256, 2, 1)))
    r.append(("a2id_p4", argon2(PW, "id", 256, 1, 4)))
    r.append(("a2i", argon2(PW, "i", 64, 2, 1)))
    r.append(("a2d", argon2(PW, "d", 128, 1, 2)))
    r.append(("a2id_v16", argon2(PW, "id", 64, 1, 1, version=16)))
    r.append(("a2id_target", argon2(PW, "id", 256, 1, 1)))
    r.append(("a2id_strong", argon2(PW, "id", 512, 2, 1)))
    # 64 MiB: more than test_pam's RLIMIT_AS leaves (the PAM_BUF_ERR case).
    r.append(("a2id_64m", argon2(PW, "id", 65536, 1, 1)))
    r.append(("pbk1", ph.pbkdf2_sha1.using(rounds=1000).hash(PW)))
    r.append(("pbk256", ph.pbkdf2_sha256.using(rounds=1000).hash(PW)))
    r.append(("pbk512", ph.pbkdf2_sha512.using(rounds=1000).hash(PW)))
    r.append(("phc1", phc(PW, "sha1", 1000)))
    r.append(("phc256", phc(PW, "sha256", 1000)))
    r.append(("phc512", phc(PW, "sha512", 1000)))
    r.append(("dj256", ph.django_pbkdf2_sha256.using(rounds=1000).hash(PW)))
    r.append(("dj1", ph.django_pbkdf2_sha1.using(rounds=1000).hash(PW)))
    # What web applications export: passlib's bcrypt_sha256 (v2), and
    # Django's bcrypt, bcrypt_sha256 (bcrypt over the hex SHA-256), argon2
    # and scrypt strings, spelt here from pyca bcrypt, argon2-cffi and
    # hashlib as django/contrib/auth/hashers.py spells them.
    r.append(("bcs256", ph.bcrypt_sha256.using(rounds=4).hash(PW)))
    r.append(("djbc", "bcrypt$" + bcrypt.hashpw(PW, bcrypt.gensalt(4, b"2b")).decode()))
    r.append(("djbcs", "bcrypt_sha256$" + bcrypt.hashpw(hashlib.sha256(PW).hexdigest().encode(),
                                                        bcrypt.gensalt(4, b"2b")).decode()))
    r.append(("dja2", "argon2" + argon2(PW, "id", 256, 1, 1)))
    salt = "".join(chr(c) for c in os.urandom(64) if chr(c).isalnum() and c < 128)[:22]
    dk = hashlib.scrypt(PW, salt=salt.encode(), n=16, r=8, p=1, dklen=64)
    r.append(("djscrypt", "scrypt$16$%s$8$1$%s" % (salt, base64.b64encode(dk).decode())))
    r.append(("sha512c", crypt.crypt(PW.decode(), "$6$rounds=1000$" + b64(os.urandom(12)))))
    r.append(("yescrypt", xcrypt(PW, b"$y$", 1)))
    r.append(("md5c", xcrypt(PW, b"$1$", 0)))
    r.append(("pw0", ph.pbkdf2_sha256.using(rounds=1000).hash(b"")))
    r.append(("pw1", argon2(b"a", "id", 64, 1, 1)))
    r.append(("pw72", bcrypt.hashpw(b"x" * 72, bcrypt.gensalt(4, b"2b")).decode()))
    r.append(("pw4096", ph.pbkdf2_sha256.using(rounds=1000).hash(b"p" * 4096)))
    r.append(("pwhigh", argon2(bytes(range(0x80, 0x100)), "id", 64, 1, 1)))
    # Over the default caps (bcrypt 16, Argon2 p 16, PBKDF2 10^7): well-formed
    # strings whose digests do not matter, they must be refused unverified.
    bc = dict(r)["bc2b"]
    r.append(("cap_bcrypt", "$2b$17$" + bc[7:]))
    a = dict(r)["a2id"].split("$")
    r.append(("cap_argon2", "$argon2id$v=19$m=8000,t=1,p=1000$%s$%s" % (a[4], a[5])))
    p = dict(r)["phc256"].split("$")
    r.append(("cap_pbkdf2", "$pbkdf2-sha256$i=100000000,l=32$%s$%s" % (p[3], p[4])))
    return r


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "pam_hashes.inc")
    lines = ["/* SPDX-License-Identifier: BSD-3-Clause */",
             "/* generated by tests/pam/pam_mkhashes.py, do not edit */"]
    for ident, h in rows():
        assert ":" not in h and "\\" not in h and '"' not in h, ident
        lines.append('PAM_HASH(%s, "%s")' % (ident, h))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
