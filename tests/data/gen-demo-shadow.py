#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write tests/data/demo.shadow and tests/data/demo.passwords.

Every hash comes from an implementation independent of kdfhash: pyca
bcrypt, passlib, argon2-cffi, hashlib, libxcrypt (through ctypes for $2x$
and mkpasswd(1) from the whois package).  Salts are random, so a rerun
changes the hashes but not the users, passwords or parameters; the
committed files are the reference (tests/cli/test_cli.sh reads them).
Run with Debian's /usr/bin/python3 (python3-passlib, python3-argon2,
python3-bcrypt).
"""
import base64, ctypes, hashlib, os, subprocess, sys

import argon2.low_level as a2
import bcrypt
from passlib import hash as ph

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
libcrypt = ctypes.CDLL("libcrypt.so.1")
libcrypt.crypt.restype = ctypes.c_char_p
libcrypt.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
BF64 = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def xcrypt(pw, setting):
    return libcrypt.crypt(pw.encode(), setting.encode()).decode()


def bcrypt_2x(pw, cost):
    # A canonical 22-char salt: the last char carries 2 bits (. O e u).
    salt = "".join(BF64[b % 64] for b in os.urandom(21)) + ".Oeu"[os.urandom(1)[0] % 4]
    return xcrypt(pw, "$2x$%02d$%s" % (cost, salt))


def argon2(pw, typ, m, t, p, version=19):
    return a2.hash_secret(pw.encode(), os.urandom(16), time_cost=t, memory_cost=m,
                          parallelism=p, hash_len=32, type=typ, version=version).decode()


def pbkdf2_phc(pw, name, rounds, dklen):
    salt = os.urandom(16)
    dk = hashlib.pbkdf2_hmac(name, pw.encode(), salt, rounds, dklen)
    b64 = lambda b: base64.b64encode(b).decode().rstrip("=")
    return "$pbkdf2-%s$i=%d,l=%d$%s$%s" % (name, rounds, dklen, b64(salt), b64(dk))


def mkpasswd(pw, method, *extra):
    return subprocess.run(["mkpasswd", "-m", method, *extra, "--stdin"], input=pw,
                          capture_output=True, text=True, check=True).stdout.strip()


T = a2.Type
# (user, password or None, hash or special field, how it was made)
users = [
    ("root", None, "!", "locked"),
    ("daemon", None, "*", "system account"),
    ("bin", None, "*", "system account"),
    ("nopass", "", "", "empty field (nullok only)"),
    ("alice", "alice-pw", bcrypt.hashpw(b"alice-pw", bcrypt.gensalt(12)).decode(),
     "pyca bcrypt $2b$ cost 12"),
    ("bob", "bob-pw", ph.bcrypt.using(ident="2a", rounds=5).hash("bob-pw"),
     "passlib bcrypt $2a$ cost 5"),
    ("bert", "bert-pw", ph.bcrypt.using(ident="2a", rounds=12).hash("bert-pw"),
     "passlib bcrypt $2a$ cost 12"),
    ("carol", "carol-pw", bcrypt_2x("carol-pw", 5), "libxcrypt $2x$ cost 5"),
    ("dave", "dave-pw", bcrypt.hashpw(b"dave-pw", bcrypt.gensalt(5)).decode(),
     "pyca bcrypt $2b$ cost 5"),
    ("erin", "erin-pw", argon2("erin-pw", T.ID, 65536, 3, 4),
     "argon2-cffi argon2id m=65536,t=3,p=4 (the default target)"),
    ("frank", "frank-pw", argon2("frank-pw", T.ID, 8192, 1, 1),
     "argon2-cffi argon2id m=8192,t=1,p=1 (weak)"),
    ("fred", "fred-pw", argon2("fred-pw", T.ID, 65536, 3, 4, version=16),
     "argon2-cffi argon2id v=16 m=65536,t=3,p=4"),
    ("grace", "grace-pw", argon2("grace-pw", T.I, 16384, 2, 1),
     "argon2-cffi argon2i m=16384,t=2,p=1"),
    ("heidi", "heidi-pw", ph.pbkdf2_sha256.using(rounds=1000).hash("heidi-pw"),
     "passlib pbkdf2_sha256 1000 rounds"),
    ("hank", "hank-pw", ph.pbkdf2_sha512.using(rounds=210000).hash("hank-pw"),
     "passlib pbkdf2_sha512 210000 rounds"),
    ("ivan", "ivan-pw", ph.django_pbkdf2_sha256.using(rounds=1000).hash("ivan-pw"),
     "passlib django_pbkdf2_sha256 1000 rounds"),
    ("judy", "judy-pw", pbkdf2_phc("judy-pw", "sha256", 2000, 32),
     "hashlib pbkdf2_hmac sha256 2000 rounds, PHC form"),
    ("kim", "kim-pw", ph.pbkdf2_sha1.using(rounds=1000).hash("kim-pw"),
     "passlib pbkdf2_sha1 1000 rounds"),
    ("mallory", "mallory-pw", mkpasswd("mallory-pw", "sha-512"), "mkpasswd sha-512 ($6$)"),
    ("yuri", "yuri-pw", mkpasswd("yuri-pw", "yescrypt"), "mkpasswd yescrypt ($y$)"),
    ("mona", "mona-pw", mkpasswd("mona-pw", "md5crypt"), "mkpasswd md5crypt ($1$)"),
    ("oscar", "oscar-pw", "!" + bcrypt.hashpw(b"oscar-pw", bcrypt.gensalt(5)).decode(),
     "locked with '!' before a valid pyca bcrypt hash"),
    ("broken", None, "$2b$12$tooShortToBeAHash", "malformed"),
    ("weird", None, "$balloon$s=65536,t=3$aM15713r3Xsvxbi31lqr1Q$nFNh2CVHVjNldFVKDHDlm4",
     "unsupported"),
]

with open(os.path.join(out, "demo.shadow"), "w") as f:
    f.write("# SPDX-License-Identifier: BSD-3-Clause\n")
    f.write("# Demo shadow file for tests/cli/test_cli.sh and the PAM demo; made by\n")
    f.write("# tests/data/gen-demo-shadow.py (passwords in demo.passwords).\n")
    for i, (user, pw, h, how) in enumerate(users):
        if user == "heidi":
            f.write("\n# a comment between entries, and a blank line above\n")
        f.write("%s:%s:19700:0:99999:7:::\n" % (user, h))

with open(os.path.join(out, "demo.passwords"), "w") as f:
    f.write("# SPDX-License-Identifier: BSD-3-Clause\n")
    f.write("# user:password:how the hash in demo.shadow was made\n")
    f.write("# (users without a password here cannot log in: locked, system,\n")
    f.write("# malformed or unsupported entries; nopass has the empty password)\n")
    for user, pw, h, how in users:
        f.write("%s:%s:%s\n" % (user, "" if pw is None else pw, how)
                if pw is not None else "# %s: %s\n" % (user, how))
