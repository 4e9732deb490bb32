# SPDX-License-Identifier: BSD-3-Clause
#
# matrix.py - pam_kdfhash.so driven by the real programs of a Debian host
# (passwd, chpasswd, chage, su, login, sshd + ssh, pam_pwquality) through a
# pty, in a private mount namespace that holds its own copies of /etc, the
# PAM module directory, /run, /home, /root, /var/log, /var/mail, /var/lib/pam,
# /var/cache/debconf and /usr/share/pam-configs.  The host's own files are
# never written: tests/realprog/test_realprog.sh starts this under `unshare -m`, and
# the driver refuses to run in the mount namespace it was started from.
#
# Every case prints "ok N - what" or "not ok N - what: why" (with the
# transcripts of the programs it ran, as "#" lines), and the run ends with
# one "N passed, N failed[, N skipped]" line.  Exit 0 when nothing failed,
# 1 otherwise.
#
# The python driver uses the standard library only; the hashes it plants
# and checks come from independent implementations: mkpasswd (whois),
# python3-bcrypt, python3-argon2 (argon2-cffi), python3-passlib, and
# libxcrypt's crypt() through ctypes.

import argparse
import codecs
import ctypes
import ctypes.util
import errno
import grp
import os
import pwd
import pty
import pwd
import re
import secrets
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import traceback

import argon2
import bcrypt
from argon2 import low_level as argon2_ll
from passlib import hash as passlib_hash

# The cheap target of this suite: every upgrade and every change costs about
# a millisecond, so the whole matrix stays well under a minute of CPU.
TARGET = "argon2id m=1024,t=1,p=1"
TARGET_PREFIX = "$argon2id$v=19$m=1024,t=1,p=1$"
TIMEOUT = 20.0

# Children get a plain, English, non-interactive environment: messages are
# matched by text, and nothing of the caller's locale or PATH leaks in.
CHILD_ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG": "C",
    "LC_ALL": "C",
    "TERM": "dumb",
    "HOME": "/root",
    "SHELL": "/bin/sh",
}

RUNNER = "rprunner"  # the unprivileged user that runs su


def today():
    return int(time.time() // 86400)


# ---- hashes ------------------------------------------------------------------

_libcrypt = ctypes.CDLL(ctypes.util.find_library("crypt") or "libcrypt.so.1")
_libcrypt.crypt.restype = ctypes.c_char_p
_libcrypt.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]


def mkpasswd(pw, method):
    r = subprocess.run(["mkpasswd", "-s", "-m", method], input=pw + "\n",
                       capture_output=True, text=True, env=CHILD_ENV, check=True)
    return r.stdout.strip()


def h_sha512(pw):
    return mkpasswd(pw, "sha-512")


def h_yescrypt(pw):
    return mkpasswd(pw, "yescrypt")


def h_bcrypt(pw, cost=10):
    return bcrypt.hashpw(pw.encode(), bcrypt.gensalt(rounds=cost, prefix=b"2b")).decode()


def h_argon2id(pw, m=1024, t=1, p=1):
    return argon2.PasswordHasher(time_cost=t, memory_cost=m, parallelism=p,
                                 type=argon2.Type.ID).hash(pw)


def h_pbkdf2(pw, rounds=1000):
    return passlib_hash.pbkdf2_sha256.using(rounds=rounds).hash(pw)


def verifies(pw, h):
    """True when field 2 `h` accepts `pw`, checked by an implementation that
    is not the module's."""
    if not h or h[0] in "!*":
        return False
    try:
        if h.startswith("$argon2"):
            t = {"$argon2id": argon2_ll.Type.ID, "$argon2i$": argon2_ll.Type.I,
                 "$argon2d$": argon2_ll.Type.D}
            kind = t.get(h[:9]) or t.get(h[:9].rstrip("$"))
            if kind is None:
                return False
            return argon2_ll.verify_secret(h.encode(), pw.encode(), kind)
        if h.startswith(("$2a$", "$2b$", "$2y$")):
            return bcrypt.checkpw(pw.encode(), h.encode())
        if h.startswith("$pbkdf2-sha256$"):
            return passlib_hash.pbkdf2_sha256.verify(pw, h)
        if h.startswith("$pbkdf2-sha512$"):
            return passlib_hash.pbkdf2_sha512.verify(pw, h)
        if h.startswith("$pbkdf2$"):
            return passlib_hash.pbkdf2_sha1.verify(pw, h)
    except Exception:
        return False
    r = _libcrypt.crypt(pw.encode(), h.encode())
    return r is not None and r.decode() == h


PW_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789%+=@#"


def new_pw():
    """A password meant to be accepted: pam_pwquality (cracklib) refuses
    one with more than four neighbouring characters one code point apart
    ("too simplistic/systematic"), so no two neighbours here are equal or
    adjacent; random and 14 long, it passes the dictionary, similarity
    and pam_unix "obscure" checks too."""
    out = []
    while len(out) < 14:
        c = secrets.choice(PW_ALPHABET)
        if not out or abs(ord(c) - ord(out[-1])) > 1:
            out.append(c)
    return "".join(out)


# ---- the shadow file ---------------------------------------------------------

SHADOW = "/etc/shadow"


def shadow_bytes():
    with open(SHADOW, "rb") as f:
        return f.read()


def shadow_line(user, data=None):
    data = shadow_bytes() if data is None else data
    found = [l for l in data.decode("utf-8", "replace").split("\n")
             if l.split(":", 1)[0] == user]
    if len(found) != 1:
        raise Fail("shadow has %d lines for %s" % (len(found), user))
    return found[0]


def fields(user, data=None):
    return shadow_line(user, data).split(":")


def set_entry(user, f2, f3=None, f4="0", f5="99999"):
    """Write fields 2-5 of `user` in place (same inode, owner and mode): the
    setup of a case, before any program runs."""
    data = shadow_bytes().decode()
    out = []
    for l in data.split("\n"):
        if l.split(":", 1)[0] == user:
            f = l.split(":")
            f[1] = f2
            f[2] = str(today() - 30 if f3 is None else f3)
            f[3] = f4
            f[4] = f5
            l = ":".join(f)
        out.append(l)
    with open(SHADOW, "r+b") as f:
        f.write("\n".join(out).encode())
        f.truncate()


def check_perms(what="/etc/shadow"):
    st = os.stat(what)
    want_gid = grp.getgrnam("shadow").gr_gid
    if st.st_uid != 0 or st.st_gid != want_gid or stat.S_IMODE(st.st_mode) != 0o640:
        raise Fail("%s is uid %d gid %d mode %o, want root:shadow 0640"
                   % (what, st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)))


def expect_unchanged(user, line_before):
    check_perms()
    now = shadow_line(user)
    if now != line_before:
        raise Fail("line of %s changed: %r -> %r" % (user, line_before, now))


def expect_changed(user, before, prefix, pw, old_pw=None, day="today",
                   module_write=True):
    """After a write: field 2 starts with `prefix` and accepts `pw` (and no
    longer `old_pw`); field 3 is today ("today") or what it was ("same");
    root:shadow 0640; and, when the module wrote, /etc/shadow- is the
    previous file, byte for byte."""
    check_perms()
    f_old = fields(user, before)
    f = fields(user)
    if not f[1].startswith(prefix):
        raise Fail("field 2 of %s is %r, want prefix %r" % (user, f[1][:40], prefix))
    if not verifies(pw, f[1]):
        raise Fail("field 2 of %s does not verify the expected password" % user)
    if old_pw is not None and old_pw != pw and verifies(old_pw, f[1]):
        raise Fail("field 2 of %s still verifies the old password" % user)
    want3 = str(today()) if day == "today" else f_old[2]
    if f[2] != want3:
        raise Fail("field 3 of %s is %r, want %r (%s)" % (user, f[2], want3,
                   "the day of the change" if day == "today" else "unchanged"))
    if f[3:] != f_old[3:] or f[0] != f_old[0]:
        raise Fail("other fields of %s changed: %r -> %r" % (user, f_old, f))
    # Every other line is kept byte for byte.
    others = lambda d: [l for l in d.decode("utf-8", "replace").split("\n")
                        if l.split(":", 1)[0] != user]
    if others(before) != others(shadow_bytes()):
        raise Fail("lines of other users changed")
    if module_write:
        try:
            with open(SHADOW + "-", "rb") as b:
                back = b.read()
        except OSError as e:
            raise Fail("no /etc/shadow- after the module's write: %s" % e)
        if back != before:
            raise Fail("/etc/shadow- is not the previous content of /etc/shadow")
        check_perms(SHADOW + "-")


# ---- driving programs through a pty -------------------------------------------

class Fail(Exception):
    pass


class Skip(Exception):
    pass


SESSIONS = []  # of the running case, for the transcript on failure

PROMPT_TAIL = re.compile(r":\s?$")
SHELL_TAIL = re.compile(r"[$#]\s?$")


def prompt_kind(line):
    """Classify the last, unterminated line of output: None, or one of
    password (authentication), current, new, retype."""
    if not PROMPT_TAIL.search(line):
        return None
    l = line.lower()
    if "password" not in l and "passphrase" not in l:
        return None
    if re.search(r"retype|again|repeat|re-enter|confirm", l):
        return "retype"
    if re.search(r"current|\bold\b", l):
        return "current"
    if re.search(r"\bnew\b", l):
        return "new"
    return "password"


class Session:
    """One program on its own pty (controlling terminal, like a login)."""

    def __init__(self, argv, label=None, env=None):
        self.argv = list(argv)
        self.label = label or " ".join(argv)
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.status = None
        self.rusage = None
        self.kinds = []
        self.t0 = time.monotonic()
        self.elapsed = None
        self._dec = codecs.getincrementaldecoder("utf-8")("replace")
        pid, fd = pty.fork()
        if pid == 0:
            try:
                os.chdir("/")
                os.execvpe(self.argv[0], self.argv, env or CHILD_ENV)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        SESSIONS.append(self)

    def _fill(self, timeout):
        if self.eof:
            return False
        r, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not r:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError as e:
            if e.errno != errno.EIO:
                raise
            data = b""
        if not data:
            self.eof = True
            return False
        self.buf += self._dec.decode(data)
        return True

    def reap(self, block=False):
        if self.status is None:
            pid, st, ru = os.wait4(self.pid, 0 if block else os.WNOHANG)
            if pid == self.pid:
                self.status = os.waitstatus_to_exitcode(st)
                self.rusage = ru
                self.elapsed = time.monotonic() - self.t0
        return self.status

    def kill(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.reap(block=True)

    def close(self):
        self.kill()
        try:
            os.close(self.fd)
        except OSError:
            pass

    def sendline(self, text):
        os.write(self.fd, (text + "\n").encode())

    def cpu(self):
        """User CPU seconds of the program and every descendant it waited
        for.  System time is left out: faulting in and releasing a large
        Argon2 arena costs the kernel a varying amount (transparent huge
        pages), which says nothing about how many hashes were computed."""
        return self.rusage.ru_utime

    def next_event(self, timeout=TIMEOUT, stop_re=None, shell=False):
        """('prompt', kind, text) | ('shell', text) | ('stop', text) | ('eof', status)"""
        deadline = time.monotonic() + timeout
        while True:
            tail = self.buf[self.pos:]
            if stop_re is not None:
                m = re.search(stop_re, tail)
                if m:
                    self.pos += m.end()
                    return ("stop", m.group(0))
            last = tail.rsplit("\n", 1)[-1]
            kind = prompt_kind(last)
            if kind or (shell and SHELL_TAIL.search(last)):
                # A prompt is only a prompt once the output has settled; a
                # message split across two reads must not be answered.
                if self._fill(0.15):
                    continue
                self.pos = len(self.buf)
                if kind:
                    self.kinds.append(kind)
                    return ("prompt", kind, last.strip())
                return ("shell", last)
            if self.eof:
                self.reap(block=True)
                return ("eof", self.status)
            now = time.monotonic()
            if now >= deadline:
                self.kill()
                raise Fail("%s: no prompt, no end within %.0f s" % (self.label, timeout))
            if not self._fill(min(0.5, deadline - now)) and not self.eof:
                # The program ended but something still holds the pty open.
                if self.reap() is not None:
                    while self._fill(0.1):
                        pass
                    self.eof = True

    def transcript(self):
        out = []
        for l in self.buf.replace("\r", "").split("\n"):
            out.append("".join(c if c.isprintable() or c == "\t" else "\\x%02x" % ord(c)
                               for c in l))
        return out


def converse(argv, answers, shell_cmd=None, stop_re=None, label=None, timeout=TIMEOUT,
             max_prompts=12):
    """Run argv on a pty, answer each password prompt by its kind from
    `answers` (a string, or a list used in order whose last item repeats),
    send shell_cmd once at the first shell prompt, end at EOF (or at
    stop_re, killing the program).  Returns the finished Session."""
    s = Session(argv, label=label)
    counts = {}
    sent = False
    try:
        while True:
            ev = s.next_event(timeout, stop_re, shell=shell_cmd is not None and not sent)
            if ev[0] == "prompt":
                kind = ev[1]
                if len(s.kinds) > max_prompts:
                    raise Fail("%s: more than %d prompts" % (s.label, max_prompts))
                ans = answers.get(kind)
                if ans is None:
                    raise Fail("%s: unexpected prompt %r" % (s.label, ev[2]))
                if isinstance(ans, list):
                    i = counts.get(kind, 0)
                    ans = ans[min(i, len(ans) - 1)]
                counts[kind] = counts.get(kind, 0) + 1
                s.sendline(ans)
            elif ev[0] == "shell":
                s.sendline(shell_cmd)
                sent = True
            elif ev[0] == "stop":
                s.kill()
                return s
            else:
                return s
    finally:
        if s.status is None:
            s.kill()


def su_as_runner(user, answers, cmd="echo RESULT:$(id -un)"):
    """`su USER -c CMD` run by the unprivileged RUNNER: su is setuid root,
    its real uid is the runner's, so pam_unix and the module treat it as a
    user asking for another account."""
    if isinstance(answers, str):
        answers = {"password": answers}
    return converse(["runuser", "-u", RUNNER, "--", "su", user, "-c", cmd], answers,
                    label="su %s (as %s)" % (user, RUNNER))


def logged_in(s, user):
    return s.status == 0 and ("RESULT:%s" % user) in s.buf


def require(cond, why):
    if not cond:
        raise Fail(why)


def run(argv, check=True, input=None, env=None):
    r = subprocess.run(argv, input=input, capture_output=True, text=True,
                       env=env or CHILD_ENV)
    if check and r.returncode != 0:
        raise Fail("%s exited %d: %s" % (" ".join(argv), r.returncode,
                                         (r.stderr or r.stdout).strip()))
    return r


# ---- the sandbox ---------------------------------------------------------------

class Sandbox:
    def __init__(self, args):
        self.args = args
        self.work = None
        self.secdir = None
        self.sshd = None
        self.sshd_port = None
        self.sshd_log = None
        self.conf_path = "/etc/security/kdfhash.conf"
        self.notes = []

    def mount(self, *argv):
        subprocess.run(["mount"] + list(argv), check=True)

    def copy_and_bind(self, path, name):
        dst = os.path.join(self.work, name)
        subprocess.run(["cp", "-a", path, dst], check=True)
        self.mount("--bind", dst, path)
        return dst

    def tmpfs(self, path, mode, gid=0):
        if not os.path.isdir(path):
            return False
        self.mount("-t", "tmpfs", "-o", "mode=%o,size=256m" % mode, "kdf-realprog", path)
        os.chown(path, 0, gid)
        os.chmod(path, mode)
        return True

    def find_secdir(self):
        cands = []
        try:
            ma = subprocess.run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"],
                                capture_output=True, text=True).stdout.strip()
            if ma:
                cands.append("/usr/lib/%s/security" % ma)
        except OSError:
            pass
        cands += ["/usr/lib/x86_64-linux-gnu/security", "/lib/security", "/usr/lib/security"]
        for c in cands:
            if os.path.exists(os.path.join(c, "pam_unix.so")):
                return os.path.realpath(c)
        raise Fail("cannot find the directory of pam_unix.so")

    def setup(self):
        me = os.stat("/proc/self/ns/mnt").st_ino
        host = self.args.host_mntns
        if host is None or str(me) == host:
            raise Fail("not in a private mount namespace (run tests/realprog/test_realprog.sh, "
                       "which starts this under unshare -m)")
        self.mount("--make-rprivate", "/")
        self.work = tempfile.mkdtemp(prefix="kdf-realprog.")
        # Everything of the run lives in this tmpfs, visible only here, and
        # gone with the namespace even if the run is killed.
        self.mount("-t", "tmpfs", "-o", "mode=0700,size=512m", "kdf-realprog", self.work)

        # 1. /etc, whole: the module replaces /etc/shadow by rename(), which
        # a bind mount of the single file would refuse (EBUSY).
        self.copy_and_bind("/etc", "etc")
        # The wrapper looks for this on the host's /etc after the run: found
        # there, the bind did not hold.
        open("/etc/.kdf-realprog-marker.%d" % os.getpid(), "w").close()
        # 2. The module loadable by name from the real PAM directory.
        self.secdir = self.find_secdir()
        sec = self.copy_and_bind(self.secdir, "security")
        # (copy_and_bind mounted the copy already; add the module to it.)
        shutil.copyfile(self.args.module, os.path.join(sec, "pam_kdfhash.so"))
        os.chmod(os.path.join(sec, "pam_kdfhash.so"), 0o644)
        # 3. /run (sshd's privsep directory, utmp) and the other places the
        # programs and useradd write to.
        self.tmpfs("/run", 0o755)
        os.makedirs("/run/sshd", 0o755)
        os.makedirs("/run/lock", 0o1777)
        os.chmod("/run/lock", 0o1777)
        utmp_gid = grp.getgrnam("utmp").gr_gid
        for f, mode in (("/run/utmp", 0o664),):
            open(f, "w").close()
            os.chown(f, 0, utmp_gid)
            os.chmod(f, mode)
        self.tmpfs("/home", 0o755)
        self.tmpfs("/root", 0o700)
        self.tmpfs("/var/mail", 0o2775, grp.getgrnam("mail").gr_gid)
        self.tmpfs("/var/log", 0o755)
        for f, mode, gid in (("lastlog", 0o664, utmp_gid), ("wtmp", 0o664, utmp_gid),
                             ("btmp", 0o660, utmp_gid), ("faillog", 0o644, 0)):
            p = os.path.join("/var/log", f)
            open(p, "w").close()
            os.chown(p, 0, gid)
            os.chmod(p, mode)
        # pam-auth-update keeps its state here and in debconf.
        for p, n in (("/var/lib/pam", "varlibpam"), ("/var/cache/debconf", "debconf")):
            if os.path.isdir(p):
                self.copy_and_bind(p, n)
        # 4. The tree's pam-auth-update profile next to the system's.
        cfg = self.copy_and_bind("/usr/share/pam-configs", "pam-configs")
        with open(os.path.join(self.args.srcdir, "packaging/pam-configs/kdfhash")) as f:
            profile = f.read()
        if self.args.conf_arg:
            # The module was built with another sysconfdir: point it at the
            # file this run writes.
            profile = re.sub(r"(pam_kdfhash\.so)", r"\1 conf=%s" % self.conf_path, profile)
            self.notes.append("module reads %s; profile lines get conf=%s"
                              % (self.args.conf_arg, self.conf_path))
        with open(os.path.join(cfg, "kdfhash"), "w") as f:
            f.write(profile)
        # 5. The policy: the tree's file, every key default but the target.
        self.write_conf()
        self.pam_auth_update("--enable", "kdfhash")
        for f in ("common-auth", "common-account", "common-password"):
            diag("generated /etc/pam.d/%s:" % f)
            with open("/etc/pam.d/" + f) as fh:
                for l in fh:
                    if l.strip() and not l.startswith("#"):
                        diag("    " + l.rstrip("\n"))
        with open("/etc/pam.d/common-auth") as fh:
            if "pam_kdfhash.so" not in fh.read():
                raise Fail("pam-auth-update --enable kdfhash did not add the module "
                           "to common-auth")

    def write_conf(self, target=TARGET, extra=None):
        with open(os.path.join(self.args.srcdir, "packaging/kdfhash.conf")) as f:
            text = f.read()
        # [ \t]*, never \s*: a key must not be matched across lines.
        text, n = re.subn(r"(?m)^target[ \t]*=.*$", "target = " + target, text)
        if n != 1:
            text += "\ntarget = %s\n" % target
        # The policy refuses a target below its own min.argon2: a cheap test
        # target brings minimums as low.
        m = re.match(r"argon2(?:id|i|d) m=(\d+),t=(\d+),p=(\d+)$", target)
        if m and "min.argon2" not in (extra or {}):
            extra = dict(extra or {})
            extra["min.argon2"] = "m=%s,t=%s,p=1" % (m.group(1), m.group(2))
        for k, v in (extra or {}).items():
            text, n = re.subn(r"(?m)^%s[ \t]*=.*$" % re.escape(k), "%s = %s" % (k, v), text)
            if n == 0:
                text += "%s = %s\n" % (k, v)
        os.makedirs("/etc/security", exist_ok=True)
        with open(self.conf_path, "w") as f:
            f.write(text)
        os.chmod(self.conf_path, 0o644)

    def pam_auth_update(self, *argv):
        env = dict(CHILD_ENV, DEBIAN_FRONTEND="noninteractive")
        r = subprocess.run(["pam-auth-update"] + list(argv), capture_output=True,
                           text=True, env=env)
        out = (r.stdout + r.stderr).strip()
        if r.returncode != 0 or "Local modifications" in out:
            raise Fail("pam-auth-update %s: exit %d: %s" % (" ".join(argv), r.returncode, out))
        return out

    def users(self, names):
        for n in [RUNNER] + names:
            run(["useradd", "-m", "-s", "/bin/bash", n])
        set_entry(RUNNER, h_sha512(new_pw()))

    # sshd: one daemon for the whole run, on loopback, with its own keys.
    def start_sshd(self):
        if self.sshd is not None:
            return
        d = os.path.join(self.work, "ssh")
        os.makedirs(d, 0o700)
        key = os.path.join(d, "host_ed25519")
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key])
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.sshd_port = s.getsockname()[1]
        cfg = os.path.join(d, "sshd_config")
        with open(cfg, "w") as f:
            f.write("\n".join([
                "Port %d" % self.sshd_port,
                "ListenAddress 127.0.0.1",
                "HostKey %s" % key,
                "PidFile none",
                "UsePAM yes",
                "KbdInteractiveAuthentication yes",
                "PasswordAuthentication yes",
                "PubkeyAuthentication no",
                "AuthorizedKeysFile none",
                "PermitRootLogin no",
                "PrintMotd no",
                "PrintLastLog no",
                "UseDNS no",
                "LogLevel VERBOSE",
                "LoginGraceTime 60",
                "MaxStartups 20",
                "AllowUsers rp*",
                "",
            ]))
        run(["/usr/sbin/sshd", "-t", "-f", cfg])
        self.sshd_log = os.path.join(d, "sshd.log")
        log = open(self.sshd_log, "w")
        self.sshd = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", cfg],
                                     stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                     env=CHILD_ENV, cwd="/")
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            with open(self.sshd_log) as f:
                if "Server listening" in f.read():
                    return
            if self.sshd.poll() is not None:
                break
            time.sleep(0.05)
        raise Fail("sshd did not start: %s" % open(self.sshd_log).read()[-2000:])

    def ssh(self, user, method, answers, cmd="echo RESULT:$(id -un)", tty=True):
        self.start_sshd()
        argv = ["ssh", "-F", "/dev/null", "-p", str(self.sshd_port),
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                "-o", "PreferredAuthentications=" + method,
                "-o", "PubkeyAuthentication=no", "-o", "NumberOfPasswordPrompts=1",
                "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=10"]
        if tty:
            argv.append("-tt")
        argv += ["%s@127.0.0.1" % user, cmd]
        return converse(argv, answers, label="ssh %s (%s)" % (user, method))

    def sshd_log_tail(self, n=40):
        if not self.sshd_log:
            return []
        with open(self.sshd_log) as f:
            return f.read().splitlines()[-n:]

    def teardown(self):
        if self.sshd is not None and self.sshd.poll() is None:
            self.sshd.terminate()
            try:
                self.sshd.wait(5)
            except subprocess.TimeoutExpired:
                self.sshd.kill()
                self.sshd.wait()
        if self.work:
            subprocess.run(["umount", "-l", self.work], capture_output=True)
            try:
                os.rmdir(self.work)
            except OSError:
                pass


def diag(text):
    for l in str(text).split("\n"):
        print("# " + l)
    sys.stdout.flush()


# ---- the cases -----------------------------------------------------------------

CASES = []


def case(n, desc):
    def deco(fn):
        CASES.append((n, desc, fn))
        return fn
    return deco


def user_of(n):
    return "rp%02d" % n


def forced_change_answers(old, new):
    return {"password": old, "current": old, "new": new, "retype": new}


def passwd_as_user(user, old, new, new2=None):
    return converse(["runuser", "-u", user, "--", "passwd"],
                    {"current": old, "new": new, "retype": new if new2 is None else new2},
                    label="passwd (as %s)" % user)


@case(1, "user passwd on an $argon2id$ entry writes the target, field 3 today")
def c1(sb):
    u, p0, p1 = user_of(1), new_pw(), new_pw()
    set_entry(u, h_argon2id(p0))
    before = shadow_bytes()
    s = passwd_as_user(u, p0, p1)
    require(s.status == 0, "passwd exited %s" % s.status)
    expect_changed(u, before, TARGET_PREFIX, p1, old_pw=p0)


@case(2, "user passwd with a wrong current password is refused, line unchanged")
def c2(sb):
    u, p0 = user_of(2), new_pw()
    set_entry(u, h_argon2id(p0))
    line = shadow_line(u)
    s = passwd_as_user(u, "wrong-" + p0, new_pw())
    require(s.status not in (0, None), "passwd exited 0")
    require("Authentication" in s.buf, "no \"Authentication\" in passwd's message")
    expect_unchanged(u, line)


@case(3, "root passwd USER (no current password asked) writes the target")
def c3(sb):
    u, p0, p1 = user_of(3), new_pw(), new_pw()
    set_entry(u, h_sha512(p0))
    before = shadow_bytes()
    s = converse(["passwd", u], {"new": p1, "retype": p1}, label="passwd %s (root)" % u)
    require(s.status == 0, "passwd exited %s" % s.status)
    require("current" not in s.kinds, "root was asked for the current password")
    expect_changed(u, before, TARGET_PREFIX, p1, old_pw=p0)


@case(4, "chpasswd (root) writes the target scheme, the new password verifies")
def c4(sb):
    u, p0, p1 = user_of(4), new_pw(), new_pw()
    set_entry(u, h_argon2id(p0))
    before = shadow_bytes()
    r = run(["chpasswd"], check=False, input="%s:%s\n" % (u, p1))
    require(r.returncode == 0, "chpasswd exited %d: %s" % (r.returncode,
                                                          (r.stdout + r.stderr).strip()))
    expect_changed(u, before, "$argon2id$", p1, old_pw=p0)


def expired_setup(n, how="-d0"):
    u, p0, p1 = user_of(n), new_pw(), new_pw()
    set_entry(u, h_argon2id(p0))
    if how == "-d0":
        run(["chage", "-d", "0", u])
    else:
        run(["chage", "-M", "10", "-d", str(today() - 20), u])
    return u, p0, p1, shadow_bytes()


@case(5, "chage -d 0, then su (by another user): forced change succeeds")
def c5(sb):
    u, p0, p1, before = expired_setup(5)
    s = su_as_runner(u, forced_change_answers(p0, p1))
    require(logged_in(s, u), "su did not log in (exit %s)" % s.status)
    require("new" in s.kinds, "no password change was asked for")
    expect_changed(u, before, TARGET_PREFIX, p1, old_pw=p0)
    s2 = su_as_runner(u, p1)
    require(logged_in(s2, u), "su with the new password failed afterwards")


@case(6, "chage -d 0, then login USER on a pty: forced change, shell runs")
def c6(sb):
    u, p0, p1, before = expired_setup(6)
    s = converse(["login", u], forced_change_answers(p0, p1),
                 shell_cmd="echo RESULT:$(id -un); exit", stop_re=r"login: $",
                 label="login %s" % u)
    require(logged_in(s, u), "login did not run the shell as %s (exit %s)" % (u, s.status))
    require("new" in s.kinds, "no password change was asked for")
    expect_changed(u, before, TARGET_PREFIX, p1, old_pw=p0)


@case(7, "chage -d 0, then ssh (password): OpenSSH runs passwd on the tty, "
         "then a login with the new password works")
def c7(sb):
    # OpenSSH, with an expired password and the
    # "password" method, authentication succeeds, the session prints
    # "You must change your password now and log in again!", runs passwd
    # on the tty and closes; the command is not run.
    u, p0, p1, before = expired_setup(7)
    s = sb.ssh(u, "password", forced_change_answers(p0, p1))
    require("You must change your password now" in s.buf,
            "no OpenSSH expired-password notice (exit %s)" % s.status)
    require("RESULT:" not in s.buf, "the command ran before the change")
    require(s.kinds[:1] == ["password"] and "new" in s.kinds,
            "no password change dialogue: prompts %s" % s.kinds)
    require(s.status == 0, "the password change (passwd over ssh) exited %s" % s.status)
    expect_changed(u, before, TARGET_PREFIX, p1, old_pw=p0)
    s2 = sb.ssh(u, "password", {"password": p1})
    require(logged_in(s2, u), "the next ssh login with the new password failed "
            "(exit %s): locked out" % s2.status)


@case(8, "chage -d 0, then ssh (keyboard-interactive): change during "
         "authentication, the command runs, the next login works")
def c8(sb):
    u, p0, p1, before = expired_setup(8)
    s = sb.ssh(u, "keyboard-interactive", forced_change_answers(p0, p1))
    require("new" in s.kinds, "no password change dialogue: prompts %s" % s.kinds)
    require(logged_in(s, u), "the command did not run after the change (exit %s)" % s.status)
    expect_changed(u, before, TARGET_PREFIX, p1, old_pw=p0)
    s2 = sb.ssh(u, "password", {"password": p1})
    require(logged_in(s2, u), "the next ssh login with the new password failed "
            "(exit %s): locked out" % s2.status)


@case(9, "aged past chage -M 10: su forces a change, which succeeds")
def c9(sb):
    u, p0, p1, before = expired_setup(9, how="-M")
    s = su_as_runner(u, forced_change_answers(p0, p1))
    require(logged_in(s, u), "su did not log in (exit %s)" % s.status)
    require("new" in s.kinds, "no password change was asked for")
    expect_changed(u, before, TARGET_PREFIX, p1, old_pw=p0)


@case(10, "minimum age (chage -m 5): user passwd refused; root passwd USER works")
def c10(sb):
    u, p0, p1, p2 = user_of(10), new_pw(), new_pw(), new_pw()
    set_entry(u, h_argon2id(p0))
    run(["chage", "-m", "5", "-d", str(today()), u])
    line = shadow_line(u)
    s = passwd_as_user(u, p0, p1)
    require(s.status not in (0, None), "passwd exited 0")
    require(re.search(r"(?i)wait longer|too soon|minimum", s.buf),
            "no minimum-age message in passwd's output")
    expect_unchanged(u, line)
    before = shadow_bytes()
    s = converse(["passwd", u], {"new": p2, "retype": p2}, label="passwd %s (root)" % u)
    require(s.status == 0, "root passwd exited %s" % s.status)
    expect_changed(u, before, TARGET_PREFIX, p2, old_pw=p0)


@case(11, "pam_pwquality refuses a weak new password, line unchanged")
def c11(sb):
    u, p0 = user_of(11), new_pw()
    set_entry(u, h_argon2id(p0))
    line = shadow_line(u)
    s = passwd_as_user(u, p0, "abc")
    require(s.status not in (0, None), "passwd exited 0")
    require("new" in s.kinds, "the current password was not accepted "
            "(no new-password prompt)")
    require("BAD PASSWORD" in s.buf, "no pam_pwquality \"BAD PASSWORD\" message")
    expect_unchanged(u, line)


@case(12, "a new password equal to the old one is refused, line unchanged")
def c12(sb):
    u, p0 = user_of(12), new_pw()
    set_entry(u, h_argon2id(p0))
    line = shadow_line(u)
    s = passwd_as_user(u, p0, p0)
    require(s.status not in (0, None), "passwd exited 0")
    require("new" in s.kinds, "the current password was not accepted "
            "(no new-password prompt)")
    require(re.search(r"same as the old|Password unchanged", s.buf),
            "no \"same as the old\"/\"Password unchanged\" message")
    expect_unchanged(u, line)


@case(13, "a locked account (passwd -l): su fails, line unchanged")
def c13(sb):
    u, p0 = user_of(13), new_pw()
    set_entry(u, h_argon2id(p0))
    run(["passwd", "-l", u])
    line = shadow_line(u)
    require(line.split(":")[1].startswith("!"), "passwd -l did not lock")
    s = su_as_runner(u, p0)
    require(not logged_in(s, u) and s.status != 0, "su into a locked account succeeded")
    expect_unchanged(u, line)


def nullok_expected():
    """What the generated common-auth decides for an empty field 2: the
    module's own nullok when its failure ends the stack, else (its failure
    ignored) pam_unix's nullok."""
    kd = unix = None
    with open("/etc/pam.d/common-auth") as f:
        for l in f:
            w = l.split()
            if not w or w[0] != "auth":
                continue
            if kd is None and "pam_kdfhash.so" in l:
                kd = l
            elif unix is None and "pam_unix.so" in l:
                unix = l
    unix_ok = unix is not None and "nullok" in unix.split()
    if kd is None:
        return unix_ok, "pam_unix nullok: %s" % unix_ok
    ctl = kd.split("]")[0] if "[" in kd else kd.split()[1]
    kd_ok = "nullok" in kd.split("]")[-1].split()
    falls = ("default=ignore" in ctl or "auth_err=ignore" in ctl
             or ctl.strip() in ("sufficient", "optional"))
    return (kd_ok or (falls and unix_ok),
            "pam_kdfhash nullok: %s, its failure %s, pam_unix nullok: %s"
            % (kd_ok, "falls through" if falls else "ends the stack", unix_ok))


@case(14, "an empty field 2: su without a password succeeds exactly when the "
          "generated stack allows it (nullok); the field stays empty")
def c14(sb):
    u = user_of(14)
    set_entry(u, "")
    line = shadow_line(u)
    want, why = nullok_expected()
    s = su_as_runner(u, {"password": ""})
    got = logged_in(s, u)
    diag("case 14: %s -> su %s" % (why, "succeeds" if got else "fails"))
    require(got == want, "su %s, want %s (%s)"
            % ("succeeded" if got else "failed", "success" if want else "failure", why))
    expect_unchanged(u, line)


@case(15, "a login upgrading the entry while passwd waits at \"New password\": "
          "the end state is consistent")
def c15(sb):
    u, p0, p1 = user_of(15), new_pw(), new_pw()
    set_entry(u, h_sha512(p0))
    line0 = shadow_line(u)
    s = Session(["runuser", "-u", u, "--", "passwd"], label="passwd (as %s)" % u)
    try:
        ev = s.next_event()
        require(ev[:2] == ("prompt", "current"), "passwd: first event %r" % (ev,))
        s.sendline(p0)
        ev = s.next_event()
        require(ev[:2] == ("prompt", "new"), "passwd: after the current password: %r"
                % (ev,))
        # passwd is now waiting for the new password: a login of the same
        # user upgrades the $6$ entry under it.
        l = su_as_runner(u, p0)
        require(logged_in(l, u), "the concurrent su failed (exit %s)" % l.status)
        mid = fields(u)[1]
        upgraded = mid.startswith("$argon2id$")
        diag("case 15: concurrent su %s the entry (%s)"
             % ("upgraded" if upgraded else "did not upgrade", mid[:12]))
        require(verifies(p0, mid), "after the concurrent login the entry does not "
                "verify the old password")
        s.sendline(p1)
        while True:
            ev = s.next_event()
            if ev[0] == "prompt" and ev[1] == "retype":
                s.sendline(p1)
            elif ev[0] == "eof":
                break
            else:
                raise Fail("passwd: unexpected %r" % (ev,))
    finally:
        s.close()
    check_perms()
    f = fields(u)
    require(f[1] and f[1][0] not in "!*", "entry lost or locked: %r" % f[1][:20])
    if s.status == 0:
        require(verifies(p1, f[1]), "passwd succeeded but the entry does not verify "
                "the new password")
        require(not verifies(p0, f[1]), "passwd succeeded but the old password still works")
        require(f[2] == str(today()), "passwd succeeded but field 3 is %s" % f[2])
        diag("case 15: the change won (%s)" % f[1][:12])
    else:
        require(verifies(p0, f[1]), "passwd failed and the entry does not verify the "
                "old password")
        require(f[2] == line0.split(":")[2], "passwd failed but field 3 changed")
        diag("case 15: passwd failed cleanly (exit %s), entry %s" % (s.status, f[1][:12]))
    s2 = su_as_runner(u, p1 if s.status == 0 else p0)
    require(logged_in(s2, u), "the account does not log in afterwards")


def rollback_command():
    """The commands under a README heading about rolling back, else
    scripts/kdfhash-rollback, else None (with the reason)."""
    env_cmd = os.environ.get("KDF_RP_ROLLBACK_CMD")
    if env_cmd:
        return env_cmd, "KDF_RP_ROLLBACK_CMD"
    readme = os.path.join(ARGS.srcdir, "README.md")
    with open(readme) as f:
        lines = f.read().split("\n")
    section, level = None, None
    for l in lines:
        m = re.match(r"^(#+)\s+(.*)$", l)
        if m:
            if section is not None and len(m.group(1)) <= level:
                break
            if section is None and re.search(r"roll(ing)?[ -]?back", m.group(2).lower()):
                section, level = [], len(m.group(1))
                continue
        if section is not None:
            section.append(l)
    if section is not None:
        text = "\n".join(section)
        cands = re.findall(r"```[a-z]*\n(.*?)```", text, re.S)
        cands += re.findall(r"`([^`\n]+)`", text)
        for c in cands:
            if re.search(r"chpasswd|usermod|kdfhash-rollback", c):
                return c.strip(), "README.md"
        return None, "README.md has a rollback heading but no chpasswd/usermod command in it"
    script = os.path.join(ARGS.srcdir, "scripts/kdfhash-rollback")
    if os.path.exists(script):
        return "sh %s alice" % script, "scripts/kdfhash-rollback"
    return None, ("README.md has no heading containing \"rollback\" and there is no "
                  "scripts/kdfhash-rollback")


@case(17, "the README's rollback one-liner for a user missing from the backup "
          "is refused, the line unchanged (never an empty field)")
def c17(sb):
    cmd, where = rollback_command()
    if cmd is None:
        raise Skip(where)
    u, p0 = "alice", new_pw()
    set_entry(u, h_argon2id(p0))
    backups = [p for p in re.findall(r"(/[\w./+-]*shadow[\w./+-]*)", cmd)
               if p not in ("/etc/shadow", "/etc/shadow-")]
    backup = backups[0] if backups else "/root/shadow.before-kdfhash"
    d = os.path.dirname(backup)
    if not os.path.isdir(d):
        raise Skip("the backup path %s of the one-liner is in a missing directory" % backup)
    if d not in ("/root", "/etc", "/home") and not d.startswith(sb.work):
        sb.tmpfs(d, 0o700)
    # The copy the README asks for, taken before alice existed.
    data = shadow_bytes().decode()
    with open(backup, "w") as f:
        f.write("".join(l + "\n" for l in data.split("\n") if l and not l.startswith("alice:")))
    os.chown(backup, 0, grp.getgrnam("shadow").gr_gid)
    os.chmod(backup, 0o640)
    line = shadow_line(u)
    diag("case 17 (%s): %s" % (where, cmd))
    # A placeholder for the name, if the one-liner has one, is alice too.
    cmd = re.sub(r"<user(name)?>|\bUSERNAME\b", "alice", cmd)
    env = dict(CHILD_ENV, USER="alice", user="alice")
    r = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, env=env, cwd="/")
    diag("case 17: exit %d: %s" % (r.returncode, (r.stdout + r.stderr).strip()))
    check_perms()
    now = shadow_line(u)
    require(now.split(":")[1] != "", "the one-liner emptied alice's field 2 "
            "(a password-less account)")
    require(r.returncode != 0, "the one-liner exited 0 for a user missing from the backup")
    expect_unchanged(u, line)


@case(18, "upgrade at login: a $6$ entry, su with the right password -> "
          "$argon2id$, field 3 unchanged")
def c18(sb):
    u, p0 = user_of(18), new_pw()
    set_entry(u, h_sha512(p0))
    before = shadow_bytes()
    s = su_as_runner(u, p0)
    require(logged_in(s, u), "su failed (exit %s)" % s.status)
    expect_changed(u, before, TARGET_PREFIX, p0, day="same")


@case(19, "wrong password on a heavy $argon2id$ entry: su fails after one "
          "verification, line unchanged; the right one rewrites it to the target")
def c19(sb):
    # User CPU time of su and everything it waited for (wait4 rusage): the
    # failure delay is a sleep and does not count, and one Argon2
    # computation over 256 MiB (p=1, one thread) dominates everything else
    # su does.  The right password on the same entry measures one
    # verification; a wrong one on a target-cost entry measures su itself.
    # The entry costs far more than 4 times the target (heavy = 4): the
    # right password moves it down to the target.
    u, ub, p0 = user_of(19), user_of(19) + "b", new_pw()
    set_entry(u, h_argon2id(p0, m=262144, t=2, p=1))
    set_entry(ub, h_argon2id(p0))
    line = shadow_line(u)
    bad = su_as_runner(u, "wrong-" + p0)
    require(not logged_in(bad, u) and bad.status != 0, "su with a wrong password succeeded")
    expect_unchanged(u, line)
    before = shadow_bytes()
    ok = su_as_runner(u, p0)
    require(logged_in(ok, u), "su with the right password failed (exit %s)" % ok.status)
    expect_changed(u, before, TARGET_PREFIX, p0, day="same")
    base = su_as_runner(ub, "wrong-" + p0)
    require(base.status != 0, "su with a wrong password succeeded")
    v = ok.cpu() - base.cpu()
    diag("case 19: user CPU s: right password %.3f, wrong %.3f, cheap entry %.3f; wall of "
         "the failure %.2f s" % (ok.cpu(), bad.cpu(), base.cpu(), bad.elapsed))
    require(v >= 0.05, "one verification costs only %.3f s CPU here: the comparison "
            "would mean nothing" % v)
    extra = bad.cpu() - base.cpu()
    require(extra <= 1.5 * v, "the failure cost %.3f s CPU beyond su, one verification "
            "is %.3f s: more than one verification" % (extra, v))
    require(extra >= 0.5 * v, "the failure cost %.3f s CPU, less than half a "
            "verification (%.3f s): was the entry verified at all?" % (extra, v))


@case(20, "a $y$ entry, su with the right password -> $argon2id$")
def c20(sb):
    u, p0 = user_of(20), new_pw()
    set_entry(u, h_yescrypt(p0))
    before = shadow_bytes()
    s = su_as_runner(u, p0)
    require(logged_in(s, u), "su failed (exit %s)" % s.status)
    expect_changed(u, before, TARGET_PREFIX, p0, day="same")


@case(21, "a bcrypt $2b$ cost-10 entry, su -> $argon2id$, field 3 unchanged")
def c21(sb):
    u, p0 = user_of(21), new_pw()
    set_entry(u, h_bcrypt(p0))
    before = shadow_bytes()
    s = su_as_runner(u, p0)
    require(logged_in(s, u), "su failed (exit %s)" % s.status)
    expect_changed(u, before, TARGET_PREFIX, p0, day="same")


@case(22, "a passlib $pbkdf2-sha256$ entry, su -> $argon2id$")
def c22(sb):
    u, p0 = user_of(22), new_pw()
    set_entry(u, h_pbkdf2(p0))
    before = shadow_bytes()
    s = su_as_runner(u, p0)
    require(logged_in(s, u), "su failed (exit %s)" % s.status)
    expect_changed(u, before, TARGET_PREFIX, p0, day="same")


@case(23, "user passwd on a bcrypt entry writes the target")
def c23(sb):
    u, p0, p1 = user_of(23), new_pw(), new_pw()
    set_entry(u, h_bcrypt(p0))
    before = shadow_bytes()
    s = passwd_as_user(u, p0, p1)
    require(s.status == 0, "passwd exited %s" % s.status)
    expect_changed(u, before, TARGET_PREFIX, p1, old_pw=p0)


@case(24, "user passwd on a PBKDF2 entry writes the target")
def c24(sb):
    u, p0, p1 = user_of(24), new_pw(), new_pw()
    set_entry(u, h_pbkdf2(p0))
    before = shadow_bytes()
    s = passwd_as_user(u, p0, p1)
    require(s.status == 0, "passwd exited %s" % s.status)
    expect_changed(u, before, TARGET_PREFIX, p1, old_pw=p0)


@case(25, "an expired $6$ entry: one su upgrades it and forces the change; "
          "ends at the target with the new password")
def c25(sb):
    u, p0, p1 = user_of(25), new_pw(), new_pw()
    set_entry(u, h_sha512(p0))
    run(["chage", "-d", "0", u])
    s = su_as_runner(u, forced_change_answers(p0, p1))
    require(logged_in(s, u), "su did not log in (exit %s)" % s.status)
    f = fields(u)
    require(verifies(p1, f[1]), "the entry does not verify the new password (%s)" % f[1][:12])
    require(f[1].startswith(TARGET_PREFIX), "field 2 is %r, want the target" % f[1][:30])
    require(f[2] == str(today()), "field 3 is %s, want today" % f[2])
    check_perms()


@case(26, "su on an entry at the target leaves /etc/shadow untouched")
def c26(sb):
    u, p0 = user_of(26), new_pw()
    set_entry(u, h_argon2id(p0))
    st0, data0 = os.stat(SHADOW), shadow_bytes()
    s = su_as_runner(u, p0)
    require(logged_in(s, u), "su failed (exit %s)" % s.status)
    st1 = os.stat(SHADOW)
    require((st1.st_ino, st1.st_mtime_ns) == (st0.st_ino, st0.st_mtime_ns)
            and shadow_bytes() == data0, "/etc/shadow was rewritten")


@case(27, "a wrong password on a $6$ entry: su fails, no upgrade")
def c27(sb):
    u, p0 = user_of(27), new_pw()
    set_entry(u, h_sha512(p0))
    line = shadow_line(u)
    s = su_as_runner(u, "wrong-" + p0)
    require(s.status != 0 and not logged_in(s, u), "su with a wrong password succeeded")
    require("Authentication failure" in s.buf, "no \"Authentication failure\" from su")
    expect_unchanged(u, line)


@case(28, "user passwd on a $y$ entry (pam_unix's own scheme) writes the target")
def c28(sb):
    u, p0, p1 = user_of(28), new_pw(), new_pw()
    set_entry(u, h_yescrypt(p0))
    before = shadow_bytes()
    s = passwd_as_user(u, p0, p1)
    require(s.status == 0, "passwd exited %s" % s.status)
    expect_changed(u, before, TARGET_PREFIX, p1, old_pw=p0)


@case(29, "a broken kdfhash.conf: $6$ and $argon2id$ users still log in, "
          "nothing is rewritten")
def c29(sb):
    u, ua, p0 = user_of(29), user_of(29) + "a", new_pw()
    set_entry(u, h_sha512(p0))
    set_entry(ua, h_argon2id(p0))
    line = shadow_line(u)
    data = shadow_bytes()
    with open(sb.conf_path, "a") as f:
        f.write("no-such-key = 1\n")
    try:
        s = su_as_runner(u, p0)
        require(logged_in(s, u), "a $6$ user cannot log in while kdfhash.conf is broken "
                "(exit %s)" % s.status)
        expect_unchanged(u, line)
        # pam_unix cannot read an Argon2 entry: the module, degraded on the
        # built-in defaults, must still verify it, and must not upgrade.
        s2 = su_as_runner(ua, p0)
        require(logged_in(s2, ua), "an $argon2id$ user cannot log in while kdfhash.conf "
                "is broken (exit %s)" % s2.status)
        require(shadow_bytes() == data, "/etc/shadow changed under a broken conf")
    finally:
        sb.write_conf()


def break_conf(sb):
    """The admin's typo: 'targte' for 'target' in kdfhash.conf."""
    with open(sb.conf_path) as f:
        text = f.read()
    text, n = re.subn(r"(?m)^target[ \t]*=", "targte =", text)
    require(n == 1, "no target line to break in %s" % sb.conf_path)
    with open(sb.conf_path, "w") as f:
        f.write(text)


@case(30, "a typo in kdfhash.conf: root's passwd USER still changes an $argon2id$ "
          "user's password, written as yescrypt")
def c30(sb):
    u, p0, p1 = user_of(30), new_pw(), new_pw()
    set_entry(u, h_argon2id(p0))
    break_conf(sb)
    try:
        before = shadow_bytes()
        s = converse(["passwd", u], {"new": p1, "retype": p1}, label="passwd %s (root)" % u)
        require(s.status == 0, "root's passwd exited %s under a broken conf" % s.status)
        expect_changed(u, before, "$y$", p1, old_pw=p0)
    finally:
        sb.write_conf()


@case(40, "a kdfhash.conf owned by a user is refused: a $6$ user still logs in, "
          "not upgraded (the module runs degraded)")
def c40(sb):
    u, p0 = user_of(40), new_pw()
    set_entry(u, h_sha512(p0))
    line = shadow_line(u)
    st = os.stat(sb.conf_path)
    os.chown(sb.conf_path, pwd.getpwnam(RUNNER).pw_uid, st.st_gid)
    try:
        s = su_as_runner(u, p0)
        require(logged_in(s, u), "su failed with a user-owned kdfhash.conf (exit %s)"
                % s.status)
        # Obeyed, the file's target would have upgraded the $6$ entry.
        expect_unchanged(u, line)
    finally:
        os.chown(sb.conf_path, st.st_uid, st.st_gid)


@case(42, "remember=2 on pam_unix's and the module's password lines: a user's "
          "passwd refuses a reused password, through /etc/security/opasswd")
def c42(sb):
    u, p0, p1, p2 = user_of(42), new_pw(), new_pw(), new_pw()
    set_entry(u, h_argon2id(p0))
    path = "/etc/pam.d/common-password"
    with open(path) as f:
        old = f.read()
    new, n = re.subn(r"(?m)^(password\s.*pam_unix\.so.*)$", r"\1 remember=2", old)
    require(n == 1, "no pam_unix.so password line in %s" % path)
    with open(path, "w") as f:
        f.write(new)
    module_line_option(path, "remember=2")
    opw = "/etc/security/opasswd"
    had = os.path.exists(opw)
    saved = open(opw, "rb").read() if had else None
    try:
        s = passwd_as_user(u, p0, p1)
        require(s.status == 0, "the first passwd exited %s" % s.status)
        line = shadow_line(u)
        # Back to the password just replaced: refused as pam_unix refuses
        # it, the entry unchanged.
        s = converse(["runuser", "-u", u, "--", "passwd"],
                     {"current": p1, "new": p0, "retype": p0}, label="passwd reuse")
        require(s.status != 0, "passwd accepted the previous password under remember=2")
        require("already used" in s.buf, "no \"already used\" from passwd: %r"
                % s.buf[-200:])
        expect_unchanged(u, line)
        s = passwd_as_user(u, p1, p2)
        require(s.status == 0, "a fresh password was refused (exit %s)" % s.status)
        with open(opw) as f:
            require(any(l.split(":", 1)[0] == u for l in f), "no line for %s in %s"
                    % (u, opw))
    finally:
        with open(path, "w") as f:
            f.write(old)
        if had:
            with open(opw, "wb") as f:
                f.write(saved)
        elif os.path.exists(opw):
            os.unlink(opw)


@case(43, "a locker's path, pamtester as the user through kdfhash-chkpwd: a wrong "
          "password costs one fail delay (the helper's 2 s), not two; the right one "
          "passes")
def c43(sb):
    u, p0 = user_of(43), new_pw()
    set_entry(u, h_argon2id(p0))
    # The built helper, installed as the package installs it (setgid
    # shadow), in the copy of /etc, and named on the module's auth line;
    # a service of common-auth alone, as a screen locker's is.
    helper = "/etc/kdfhash-rp-chkpwd"
    service = "/etc/pam.d/kdfrp-locker"
    b = os.path.dirname(os.path.dirname(os.path.dirname(ARGS.module)))
    shutil.copy(os.path.join(b, "pam_module", "kdfhash-chkpwd"), helper)
    os.chown(helper, 0, grp.getgrnam("shadow").gr_gid)
    os.chmod(helper, 0o2755)
    with open(service, "w") as f:
        f.write("@include common-auth\n")
    old = module_line_option("/etc/pam.d/common-auth", "chkpwd=" + helper)
    # An installed helper refuses a conf= passed on by a caller (the user
    # could forge it): the line keeps the build's default instead.
    with open("/etc/pam.d/common-auth") as f:
        text = f.read()
    with open("/etc/pam.d/common-auth", "w") as f:
        f.write(re.sub(r"(?m)^(.*pam_kdfhash\.so.*?) conf=\S+", r"\1", text))

    def attempt(pw):
        s = converse(["runuser", "-u", u, "--", "pamtester", "kdfrp-locker", u,
                      "authenticate"], {"password": pw}, label="pamtester (as %s)" % u)
        return s.status, s.elapsed

    try:
        st, _ = attempt(p0)
        require(st == 0, "the right password through the helper failed (exit %s)" % st)
        # libpam's own delay, were it asked for on top, is 1 to 3 s (2 s
        # varied by up to half): the quickest of three refusals tells one
        # delay from two.
        times = []
        for _ in range(3):
            st, t = attempt("wrong-" + p0)
            require(st != 0, "a wrong password through the helper passed")
            times.append(t)
        diag("case 43: wrong passwords through the helper took %s s"
             % ", ".join("%.2f" % t for t in times))
        require(1.9 <= min(times) < 2.9, "the quickest refusal took %.2f s: one delay is "
                "the helper's 2 s, two are 3 s or more" % min(times))
    finally:
        with open("/etc/pam.d/common-auth", "w") as f:
            f.write(old)
        os.unlink(helper)
        os.unlink(service)


@case(46, "upgrade=exec: su by an unprivileged user hands a $6$ entry's upgrade to "
          "the hook, which runs with every id root's, not the user's real uid")
def c44(sb):
    # su is setuid root: its real uid is the runner's.  The hook records
    # the Uid:, Gid: and Groups: lines of /proc/self/status (of grep, its
    # child, whose ids are its own: the hook runs in a PID namespace of its
    # own, where its $$ does not name it in this /proc).
    # The record goes to a directory anyone may write to: /bin/sh (dash)
    # started with a real uid that is not its effective one drops to the
    # real one, and a hook run so must still be able to say what it ran as.
    u, p0 = user_of(44), new_pw()
    set_entry(u, h_sha512(p0))
    out = tempfile.mkdtemp(prefix="kdfrp-hook.")
    os.chmod(out, 0o1777)
    hook, ids = "/etc/kdfhash-rp-hook", os.path.join(out, "ids")
    with open(hook, "w") as f:
        f.write("#!/bin/sh\nread old\nread new\n"
                "grep -E '^(Uid|Gid|Groups):' /proc/self/status > %s\n" % ids)
    os.chmod(hook, 0o755)
    old = module_line_option("/etc/pam.d/common-auth", "upgrade=exec:" + hook)
    try:
        line = shadow_line(u)
        s = su_as_runner(u, p0)
        require(logged_in(s, u), "su failed (exit %s)" % s.status)
        require(os.path.exists(ids), "the hook did not run")
        with open(ids) as f:
            got = f.read()
        diag("case 44: the hook's ids: " + " | ".join(got.split("\n")))
        fields = {}
        for l in got.splitlines():
            k, _, v = l.partition(":")
            fields[k] = v.split()
        require(fields.get("Uid") == ["0"] * 4 and fields.get("Gid") == ["0"] * 4,
                "the hook ran with uids %s, gids %s (real, effective, saved, fs), not all 0"
                % (fields.get("Uid"), fields.get("Gid")))
        require(fields.get("Groups", []) == [], "the hook kept supplementary groups %s"
                % fields.get("Groups"))
        # The hook wrote nothing: the entry is as it was.
        expect_unchanged(u, line)
    finally:
        with open("/etc/pam.d/common-auth", "w") as f:
            f.write(old)
        os.unlink(hook)
        shutil.rmtree(out, ignore_errors=True)


def sulogin(pw):
    """util-linux's sulogin on a pty, as the rescue shell runs it: answer its
    prompt with pw; True when it gave a root shell, False on "Login
    incorrect"."""
    s = Session(["sulogin"], label="sulogin")
    SESSIONS.append(s)
    ev = s.next_event(stop_re=r"Control-D to continue\): ?|[Pp]assword: ?$")
    require(ev[0] == "stop", "sulogin asked no password: %r" % (ev,))
    # sulogin turns echo off with TCSAFLUSH after printing its prompt: what
    # is typed before that is thrown away, so let it settle first.
    time.sleep(0.7)
    s.sendline(pw)
    ev = s.next_event(stop_re=r"Login incorrect|RESULT:root", shell=True)
    if ev[0] == "shell":
        s.sendline("echo RESULT:$(id -un); exit")
        ev = s.next_event(stop_re=r"Login incorrect|RESULT:root")
    s.kill()
    return ev[0] == "stop" and "RESULT:root" in ev[1]


@case(41, "root's $argon2id$ entry: sulogin refuses it; root's su through the "
          "module moves it to $y$, and then sulogin accepts root's password")
def c41(sb):
    p0 = new_pw()
    line0 = shadow_line("root")
    try:
        set_entry("root", h_argon2id(p0))
        require(not sulogin(p0), "sulogin accepted an $argon2id$ entry (it calls crypt(3))")
        s = su_as_runner("root", p0)
        require(logged_in(s, "root"), "su root failed (exit %s)" % s.status)
        h = fields("root")[1]
        require(h.startswith("$y$"), "root's entry after su is not yescrypt: %s"
                % (h.split("$")[1] if h.startswith("$") else "?"))
        require(verifies(p0, h), "libxcrypt does not verify root's new entry")
        require(sulogin(p0), "sulogin refused root's password after the migration")
    finally:
        # Root's own line back as it was, in place (same inode and mode).
        data = shadow_bytes().decode()
        out = [line0 if l.split(":", 1)[0] == "root" else l for l in data.split("\n")]
        with open(SHADOW, "r+b") as f:
            f.write("\n".join(out).encode())
            f.truncate()


def module_line_option(path, opt):
    """Add opt to the pam_kdfhash.so line of a PAM file; returns the old text."""
    with open(path) as f:
        old = f.read()
    new, n = re.subn(r"(?m)^(.*pam_kdfhash\.so.*)$", r"\1 " + opt, old)
    require(n == 1, "no pam_kdfhash.so line in %s" % path)
    with open(path, "w") as f:
        f.write(new)
    return old


@case(31, "upgrade=off on the module's password line: a user's passwd writes "
          "yescrypt, which pam_unix reads, not the Argon2 target")
def c31(sb):
    u, p0, p1 = user_of(31), new_pw(), new_pw()
    set_entry(u, h_argon2id(p0))
    old = module_line_option("/etc/pam.d/common-password", "upgrade=off")
    try:
        before = shadow_bytes()
        s = passwd_as_user(u, p0, p1)
        require(s.status == 0, "passwd exited %s" % s.status)
        expect_changed(u, before, "$y$", p1, old_pw=p0)
    finally:
        with open("/etc/pam.d/common-password", "w") as f:
            f.write(old)


@case(32, "kdfhash disable refuses while an $argon2id$ entry is left and "
          "changes nothing; --force runs pam-auth-update --disable")
def c32(sb):
    u, p0 = user_of(32), new_pw()
    set_entry(u, h_argon2id(p0))
    k = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(ARGS.module))),
                     "cli", "kdfhash")
    require(os.access(k, os.X_OK), "no kdfhash CLI at %s" % k)
    with open("/etc/pam.d/common-auth") as f:
        auth0 = f.read()
    r = run([k, "disable"], check=False)
    require(r.returncode == 1, "kdfhash disable exited %d with an $argon2id$ entry left"
            % r.returncode)
    require(u in r.stderr and "THE WAY BACK" in r.stderr,
            "kdfhash disable did not name %s and the way back: %r" % (u, r.stderr))
    with open("/etc/pam.d/common-auth") as f:
        require(f.read() == auth0, "kdfhash disable changed common-auth while refusing")
    r = run([k, "disable", "--force"], check=False,
            env=dict(CHILD_ENV, DEBIAN_FRONTEND="noninteractive"))
    try:
        require(r.returncode == 0, "kdfhash disable --force exited %d: %s"
                % (r.returncode, r.stderr.strip()))
        with open("/etc/pam.d/common-auth") as f:
            require("pam_kdfhash" not in f.read(), "kdfhash disable --force left the "
                    "module in common-auth")
    finally:
        sb.pam_auth_update("--enable", "kdfhash")


def setpriv_su(runner, user, cmd):
    """argv of `su USER -c CMD` whose real uid is `runner`'s, su itself the
    pty's process: setpriv execs (runuser forks and waits), and su, setuid
    root, then runs with euid 0 and the runner's real uid."""
    pw = pwd.getpwnam(runner)
    return ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
            "--init-groups", "--", "su", user, "-c", cmd]


def proc_status(pid):
    out = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for l in f:
                k, _, v = l.partition(":")
                out[k] = v.split()
    except OSError:
        pass
    return out


def holds_area(pid, kib):
    """Does process pid map an anonymous area of at least kib KiB (an
    Argon2 memory area at the policy's m, i.e. it is past the gate)?"""
    try:
        with open("/proc/%d/maps" % pid) as f:
            for l in f:
                w = l.split()
                if len(w) == 5 or (len(w) == 6 and w[5].startswith("[anon")):
                    lo, hi = (int(x, 16) for x in w[0].split("-"))
                    if hi - lo >= kib * 1024:
                        return True
    except OSError:
        pass
    return False


GATE_M, GATE_T = 16384, 200


@case(33, "one user's stopped su clients (SIGSTOP mid-verification or while "
          "waiting for the memory budget) do not keep another user out: she logs "
          "in within max.memory-wait")
def c33(sb):
    # The red-team finding: a user starts setuid su clients, which keep her
    # real uid, and stops them.  Stopped holders took the whole budget and
    # a stopped waiter held the turnstile, so every other login got
    # PAM_AUTH_ERR when its wait ran out.  Here the budget is four areas
    # (max.memory = 4 x m); one real uid may hold at most a quarter of it,
    # all users together half.
    u, ub, p0 = user_of(33), user_of(33) + "b", new_pw()
    wait_ms = 3000
    sb.write_conf(target="argon2id m=%d,t=%d,p=1" % (GATE_M, GATE_T),
                  extra={"max.argon2": "m=1048576,t=256,p=16",
                         "max.memory": str(4 * GATE_M),
                         "max.memory-wait": str(wait_ms)})
    held = []
    try:
        set_entry(u, h_argon2id(p0, m=GATE_M, t=GATE_T, p=1))
        line = shadow_line(u)
        # Nothing stopped: what one login of ub costs here.
        base = converse(setpriv_su(ub, u, "echo RESULT:$(id -un)"), {"password": p0},
                        label="su %s (as %s, nothing stopped)" % (u, ub))
        require(logged_in(base, u), "su as %s failed with nothing stopped (exit %s)"
                % (ub, base.status))
        try:
            c33_stopped(u, ub, p0, line, base, wait_ms, held)
        finally:
            for s in held:
                for sig in (signal.SIGKILL, signal.SIGCONT):
                    try:
                        os.kill(s.pid, sig)
                    except ProcessLookupError:
                        pass
                s.close()
        # Killed, the clients gave their shares back: RUNNER logs in again
        # (under the same policy: the default max.argon2 refuses t=200).
        s = su_as_runner(u, p0)
        require(logged_in(s, u), "su as %s failed after its stopped clients were "
                "killed (exit %s)" % (RUNNER, s.status))
    finally:
        sb.write_conf()


def c33_stopped(u, ub, p0, line, base, wait_ms, held):
    # RUNNER's clients, stopped after their password at 100-400 ms.
    n = 6
    for i in range(n):
        held.append(Session(setpriv_su(RUNNER, u, "true"),
                            label="su %s (as %s, to be stopped) #%d" % (u, RUNNER, i)))
    for s in held:
        ev = s.next_event()
        require(ev[:2] == ("prompt", "password"), "%s: first event %r" % (s.label, ev))
        st = proc_status(s.pid)
        ruid = pwd.getpwnam(RUNNER).pw_uid
        require(st.get("Name") == ["su"] and st.get("Uid", [])[:2] == [str(ruid), "0"],
                "%s: pid %d is %s with uids %s, want su with real uid %d, "
                "effective 0" % (s.label, s.pid, st.get("Name"), st.get("Uid"), ruid))
    t_pw = time.monotonic()
    for s in held:
        s.sendline(p0)
    for i, s in enumerate(held):
        delay = 0.1 + 0.3 * i / (n - 1)
        time.sleep(max(0.0, t_pw + delay - time.monotonic()))
        os.kill(s.pid, signal.SIGSTOP)
    time.sleep(0.1)
    states = []
    for s in held:
        st = proc_status(s.pid)
        state = (st.get("State") or ["?"])[0]
        states.append("held" if state == "T" and holds_area(s.pid, GATE_M)
                      else "stopped" if state == "T" else "done")
    diag("case 33: %s's %d clients after SIGSTOP: %d past the gate (an area "
         "mapped), %d stopped before it, %d done"
         % (RUNNER, n, states.count("held"), states.count("stopped"),
            states.count("done")))
    # While they are stopped, another user logs in, within the wait.
    t = time.monotonic()
    s = converse(setpriv_su(ub, u, "echo RESULT:$(id -un)"), {"password": p0},
                 label="su %s (as %s, %s's clients stopped)" % (u, ub, RUNNER))
    took = time.monotonic() - t
    # A login that waited out max.memory-wait is refused (above); this bounds
    # one that got in, loosely, for a loaded machine.
    limit = max(6.0, 2 * base.elapsed + wait_ms / 1000.0)
    diag("case 33: %s's su took %.2f s with the clients stopped, %.2f s with "
         "nothing stopped (limit %.2f s)" % (ub, took, base.elapsed, limit))
    require(logged_in(s, u), "su as %s failed while %s's su clients were stopped "
            "(exit %s after %.1f s): one user holds every Argon2 login"
            % (ub, RUNNER, s.status, took))
    require(took < limit, "su as %s took %.1f s while %s's clients were stopped, "
            "%.1f s otherwise" % (ub, took, RUNNER, base.elapsed))
    require(states.count("held") <= 1, "%d of %s's stopped clients hold an area "
            "of m=%d KiB: more than a quarter of max.memory=%d"
            % (states.count("held"), RUNNER, GATE_M, 4 * GATE_M))
    expect_unchanged(u, line)


@case(60, "alice's and bob's stopped su clients (SIGSTOP mid-verification) hold the "
          "memory that all users share: a third user is refused as busy, yet root's "
          "login and an administrator's sudo -v are served")
def c60(sb):
    # The budget is four areas: each user may hold two, all users together
    # two (the common pool); root's hosts and administrators (admins =
    # root,@sudo,...) are not held to the common pool.
    u, adm, p0, pa, pr = user_of(60), user_of(60) + "a", new_pw(), new_pw(), new_pw()
    wait_ms = 3000
    for n, extra in (("alice", []), ("bob", []), (adm, ["-G", "sudo"])):
        try:
            pwd.getpwnam(n)
        except KeyError:
            run(["useradd", "-m", "-s", "/bin/bash"] + extra + [n])
    require(adm in grp.getgrnam("sudo").gr_mem, "%s is not in group sudo" % adm)
    sb.write_conf(target="argon2id m=%d,t=%d,p=1" % (GATE_M, GATE_T),
                  extra={"max.argon2": "m=1048576,t=256,p=16",
                         "max.memory": str(4 * GATE_M),
                         "max.memory-wait": str(wait_ms)})
    root_f = fields("root")
    held = []
    try:
        h = h_argon2id(p0, m=GATE_M, t=GATE_T, p=1)
        set_entry(u, h)
        set_entry(adm, h_argon2id(pa, m=GATE_M, t=GATE_T, p=1))
        set_entry("root", h_argon2id(pr, m=GATE_M, t=GATE_T, p=1))
        try:
            c60_stopped(u, adm, p0, pa, pr, wait_ms, held)
        finally:
            for s in held:
                for sig in (signal.SIGKILL, signal.SIGCONT):
                    try:
                        os.kill(s.pid, sig)
                    except ProcessLookupError:
                        pass
                s.close()
    finally:
        set_entry("root", root_f[1], root_f[2], root_f[3], root_f[4])
        sb.write_conf()


def c60_stopped(u, adm, p0, pa, pr, wait_ms, held):
    for who in ("alice", "bob"):
        s = Session(setpriv_su(who, u, "true"), label="su %s (as %s, to be stopped)" % (u, who))
        held.append(s)
        ev = s.next_event()
        require(ev[:2] == ("prompt", "password"), "%s: first event %r" % (s.label, ev))
        s.sendline(p0)
        # Stopped once past the gate, mid-verification (t=200 takes seconds).
        end = time.monotonic() + 5
        while not holds_area(s.pid, GATE_M) and time.monotonic() < end:
            time.sleep(0.02)
        os.kill(s.pid, signal.SIGSTOP)
        require(holds_area(s.pid, GATE_M), "%s: no area of m=%d KiB mapped before its "
                "SIGSTOP" % (s.label, GATE_M))
    # A third user's client: the common pool is full, refused as busy.
    t = time.monotonic()
    s = su_as_runner(u, p0)
    took = time.monotonic() - t
    diag("case 60: %s's su took %.2f s with alice's and bob's clients stopped"
         % (RUNNER, took))
    require(not logged_in(s, u), "su as %s got in while alice and bob held the memory "
            "all users share" % RUNNER)
    require(took >= wait_ms / 1000.0 * 0.9, "su as %s refused after %.1f s, before "
            "max.memory-wait" % (RUNNER, took))
    # Root's login on a terminal (login's real uid is 0).
    t = time.monotonic()
    s = converse(["login", "root"], {"password": pr},
                 shell_cmd="echo RESULT:$(id -un); exit", stop_re=r"login: $",
                 label="login root (alice's and bob's clients stopped)")
    took = time.monotonic() - t
    diag("case 60: root's login took %.2f s" % took)
    require(logged_in(s, "root"), "root's login failed while alice's and bob's su "
            "clients were stopped (exit %s after %.1f s)" % (s.status, took))
    # An administrator's sudo -v: its real uid is the admin's, held to its
    # own share only.
    t = time.monotonic()
    s = converse(["runuser", "-u", adm, "--", "sudo", "-v"], {"password": pa},
                 label="sudo -v (as %s, alice's and bob's clients stopped)" % adm)
    took = time.monotonic() - t
    diag("case 60: %s's sudo -v took %.2f s" % (adm, took))
    require(s.status == 0 and "Sorry" not in s.buf,
            "sudo -v as %s refused while alice's and bob's su clients were stopped "
            "(exit %s after %.1f s)" % (adm, s.status, took))
    require(took < wait_ms / 1000.0 + 10, "sudo -v as %s took %.1f s" % (adm, took))


@case(44, "an empty field (nullok) that root locks with passwd -l while the user's "
          "passwd waits at \"New password\": passwd -l does not wait, the change is "
          "refused and the field stays \"!\"")
def c44(sb):
    u, p1 = user_of(44), new_pw()
    set_entry(u, "")
    # The module asks for the new password itself (the Password-Initial
    # stack, no pam_pwquality before it): the prompt is then inside its
    # update pass, between the two reads of the field.
    path = "/etc/pam.d/common-password"
    with open(path) as f:
        old = f.read()
    new = re.sub(r"(?m)^password\s.*pam_pwquality\.so.*\n", "", old)
    new = re.sub(r"(?m)^(.*pam_kdfhash\.so.*?) use_authtok", r"\1", new)
    with open(path, "w") as f:
        f.write(new)
    try:
        c44_steps(u, p1)
    finally:
        with open(path, "w") as f:
            f.write(old)


def c44_steps(u, p1):
    s = Session(["runuser", "-u", u, "--", "passwd"], label="passwd (as %s)" % u)
    try:
        ev = s.next_event()
        require(ev[:2] == ("prompt", "new"), "passwd on an empty field: first event %r"
                % (ev,))
        # The user sits at the prompt; root locks the account meanwhile.
        t = time.monotonic()
        run(["passwd", "-l", u])
        took = time.monotonic() - t
        diag("case 44: passwd -l took %.2f s with the user's passwd at its prompt" % took)
        require(fields(u)[1] == "!", "passwd -l wrote %r" % fields(u)[1])
        require(took < 5, "passwd -l waited %.1f s for a lock" % took)
        s.sendline(p1)
        while True:
            ev = s.next_event()
            if ev[0] == "prompt" and ev[1] == "retype":
                s.sendline(p1)
            elif ev[0] == "eof":
                break
            else:
                raise Fail("passwd: unexpected %r" % (ev,))
    finally:
        s.close()
    require(s.status not in (0, None), "the user's passwd succeeded over root's lock")
    check_perms()
    require(fields(u)[1] == "!", "field 2 is %r, root left \"!\"" % fields(u)[1][:20])


@case(45, "shadow=/etc//shadow on the module's password line: a user's passwd takes "
          "/etc/.pwd.lock, leaves no /etc/shadow.lock, and useradd and passwd -l work "
          "afterwards")
def c45(sb):
    u, p0, p1, extra = user_of(45), new_pw(), new_pw(), user_of(45) + "x"
    set_entry(u, h_argon2id(p0))
    path = "/etc/pam.d/common-password"
    old = module_line_option(path, "shadow=/etc//shadow")
    try:
        before = shadow_bytes()
        s = passwd_as_user(u, p0, p1)
        require(s.status == 0, "passwd exited %s" % s.status)
        expect_changed(u, before, TARGET_PREFIX, p1, old_pw=p0)
    finally:
        with open(path, "w") as f:
            f.write(old)
    left = [n for n in os.listdir("/etc") if n.endswith(".lock") and n != ".pwd.lock"]
    require(not left, "lock files left in /etc: %s" % ", ".join(left))
    r = run(["useradd", "-M", extra], check=False)
    require(r.returncode == 0, "useradd afterwards exited %d: %s"
            % (r.returncode, (r.stderr or r.stdout).strip()))
    try:
        r = run(["passwd", "-l", u], check=False)
        require(r.returncode == 0, "passwd -l afterwards exited %d: %s"
                % (r.returncode, (r.stderr or r.stdout).strip()))
    finally:
        run(["userdel", extra], check=False)


# Last: it changes the policy and the PAM stack, and puts both back.
def stranded_notice():
    """What tools/kdfhash-stranded-notice (kdfhash-stranded.service's
    command) says about the sandbox's /etc/pam.d and /etc/shadow: the
    number of accounts it calls stranded, 0 when it is silent."""
    r = subprocess.run(["sh", os.path.join(ARGS.srcdir, "tools/kdfhash-stranded-notice")],
                       capture_output=True, text=True, env=CHILD_ENV)
    require(r.returncode == 0, "stranded-notice exited %d" % r.returncode)
    if not r.stderr.strip():
        return 0
    m = re.search(r"WARNING: (\d+) accounts? in /etc/shadow ha(?:s|ve) an Argon2", r.stderr)
    require(m and "migrate = yes" in r.stderr, "stranded-notice said: %r" % r.stderr)
    return int(m.group(1))


@case(47, "a pepper: kdfhash keys new, pepper = ID; su upgrades a $6$ entry keyed with "
          "it; the key file gone, su with the right password fails, line unchanged; "
          "the key back, su works")
def c47(sb):
    u, p0 = user_of(47), new_pw()
    k = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(ARGS.module))),
                     "cli", "kdfhash")
    require(os.access(k, os.X_OK), "no kdfhash CLI at %s" % k)
    d = "/etc/security/kdfhash-rp.keys.d"
    r = run([k, "keys", "--dir", d, "new"], check=False)
    require(r.returncode == 0, "kdfhash keys new exited %d: %s" % (r.returncode, r.stderr))
    kid = r.stdout.strip()
    st = os.stat(os.path.join(d, kid))
    require(stat.S_IMODE(st.st_mode) == 0o640 and st.st_gid == grp.getgrnam("shadow").gr_gid,
            "key file mode %o gid %d, want 0640 group shadow"
            % (stat.S_IMODE(st.st_mode), st.st_gid))
    set_entry(u, h_sha512(p0))
    old = module_line_option("/etc/pam.d/common-auth", "keys=" + d)
    sb.write_conf(extra={"pepper": kid})
    saved = os.path.join(d, "saved")
    try:
        s = su_as_runner(u, p0)
        require(logged_in(s, u), "su failed (exit %s)" % s.status)
        f2 = fields(u)[1]
        require(f2.startswith(TARGET_PREFIX[:-1] + ",keyid=%s$" % kid),
                "entry not keyed with %s: %s" % (kid, f2))
        line = shadow_line(u)
        os.rename(os.path.join(d, kid), saved)
        s = su_as_runner(u, p0)
        require(not logged_in(s, u), "su succeeded without the key file")
        expect_unchanged(u, line)
        os.rename(saved, os.path.join(d, kid))
        s = su_as_runner(u, p0)
        require(logged_in(s, u), "su failed with the key back (exit %s)" % s.status)
        expect_unchanged(u, line)
    finally:
        with open("/etc/pam.d/common-auth", "w") as f:
            f.write(old)
        sb.write_conf()


KEYS_RP = "/etc/security/kdfhash-rp.keys.d"


def kdfhash_cli():
    k = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(ARGS.module))),
                     "cli", "kdfhash")
    require(os.access(k, os.X_OK), "no kdfhash CLI at %s" % k)
    return k


BLOCKLIST_RP = "/etc/security/kdfhash-rp.blk"


def blocklist_with(sb, passwords):
    """A compromised-password list of passwords (kdfhash blocklist build,
    as root: 0644 root), set as blocklist = in kdfhash.conf."""
    r = run([kdfhash_cli(), "blocklist", "build", "-o", BLOCKLIST_RP, "-"], check=False,
            input="".join(p + "\n" for p in ["123456", "password"] + passwords))
    require(r.returncode == 0, "kdfhash blocklist build exited %d: %s"
            % (r.returncode, r.stderr.strip()))
    sb.write_conf(extra={"blocklist": BLOCKLIST_RP})


@case(61, "blocklist: a user's passwd to a listed password is refused with the reason, "
          "line unchanged")
def c61(sb):
    u, p0, p1 = user_of(61), new_pw(), new_pw()
    set_entry(u, h_argon2id(p0))
    line = shadow_line(u)
    blocklist_with(sb, [p1])
    try:
        s = passwd_as_user(u, p0, p1)
    finally:
        sb.write_conf()
    require(s.status not in (0, None), "passwd exited %s" % s.status)
    require("new" in s.kinds, "no new-password prompt")
    require("BAD PASSWORD: it appears in a list of compromised passwords" in s.buf,
            "no blocklist reason in passwd's output")
    expect_unchanged(u, line)


@case(62, "blocklist: su with a listed password logs in, and is made to change it at "
          "once (the profile's account line); the new password then logs in plainly")
def c62(sb):
    u, p0, p1 = user_of(62), new_pw(), new_pw()
    with open("/etc/pam.d/common-account") as f:
        require("pam_kdfhash.so" in f.read(),
                "pam-auth-update put no pam_kdfhash.so line in common-account")
    set_entry(u, h_argon2id(p0))
    before = shadow_bytes()
    blocklist_with(sb, [p0])
    try:
        s = su_as_runner(u, forced_change_answers(p0, p1))
        require(logged_in(s, u), "su did not log in (exit %s)" % s.status)
        require("compromised passwords" in s.buf, "no blocklist notice in su's output")
        require("new" in s.kinds, "no password change was asked for")
        expect_changed(u, before, TARGET_PREFIX, p1, old_pw=p0)
        s2 = su_as_runner(u, p1)
        require(logged_in(s2, u), "su with the new password failed afterwards")
        require("new" not in s2.kinds, "a change was asked for an unlisted password")
    finally:
        sb.write_conf()


class Pepper:
    """A new key as the pepper (kdfhash keys new; pepper = ID), keys= on
    the module's auth and password lines, the default admins list (whose
    @wheel and @admin this host lacks: no member, even where an NSS
    service such as sss is listed but not running).  lose()
    removes the key file as a lost disk would; restore() undoes it all."""

    def __init__(self, sb, extra=None):
        self.sb, self.k = sb, kdfhash_cli()
        r = run([self.k, "keys", "--dir", KEYS_RP, "new"], check=False)
        require(r.returncode == 0, "kdfhash keys new exited %d: %s"
                % (r.returncode, r.stderr))
        self.kid = r.stdout.strip()
        self.path = os.path.join(KEYS_RP, self.kid)
        self.old = {f: module_line_option(f, "keys=" + KEYS_RP)
                    for f in ("/etc/pam.d/common-auth", "/etc/pam.d/common-password")}
        self.conf = dict({"pepper": self.kid}, **(extra or {}))
        sb.write_conf(extra=self.conf)

    def keyed(self, user):
        return (",keyid=%s$" % self.kid) in fields(user)[1]

    def lose(self):
        os.unlink(self.path)

    def restore(self):
        for f, text in self.old.items():
            with open(f, "w") as fh:
                fh.write(text)
        self.sb.write_conf()


def unkeyed_target(user, before, pw, old_pw=None, day="today"):
    """The entry is at the target (no keyid=: TARGET_PREFIX has none) and
    verifies pw, which argon2-cffi can only do for an unkeyed hash."""
    expect_changed(user, before, TARGET_PREFIX, pw, old_pw=old_pw, day=day)


@case(50, "a pepper whose key file is lost: the user's own passwd succeeds and writes "
          "an unkeyed $argon2id$ entry that verifies; su works with it")
def c50(sb):
    u, p0, p1 = user_of(50), new_pw(), new_pw()
    pep = Pepper(sb)
    try:
        set_entry(u, h_argon2id(p0))
        s = su_as_runner(u, p0)
        require(logged_in(s, u) and pep.keyed(u), "su did not key the entry with %s: %s"
                % (pep.kid, fields(u)[1][:60]))
        # Keyed with the lost key: only a new password gets the user in.
        # The entry is set unkeyed again for the change (it needs the
        # current password, which only the key could verify).
        set_entry(u, h_argon2id(p0))
        pep.lose()
        before = shadow_bytes()
        s = passwd_as_user(u, p0, p1)
        require(s.status == 0, "passwd exited %s with the pepper's key lost" % s.status)
        unkeyed_target(u, before, p1, old_pw=p0)
        s = su_as_runner(u, p1)
        require(logged_in(s, u), "su with the new password failed (exit %s)" % s.status)
    finally:
        pep.restore()


@case(51, "a pepper whose key file is lost: root's chpasswd and passwd USER succeed, "
          "unkeyed")
def c51(sb):
    u, p0, p1, p2 = user_of(51), new_pw(), new_pw(), new_pw()
    pep = Pepper(sb)
    try:
        set_entry(u, h_sha512(p0))
        pep.lose()
        before = shadow_bytes()
        r = run(["chpasswd"], check=False, input="%s:%s\n" % (u, p1))
        require(r.returncode == 0, "chpasswd exited %d: %s"
                % (r.returncode, (r.stdout + r.stderr).strip()))
        unkeyed_target(u, before, p1, old_pw=p0)
        before = shadow_bytes()
        s = converse(["passwd", u], {"new": p2, "retype": p2}, label="passwd %s (root)" % u)
        require(s.status == 0, "passwd %s exited %s" % (u, s.status))
        unkeyed_target(u, before, p2, old_pw=p1)
    finally:
        pep.restore()


@case(52, "a pepper whose key file is lost: a chage -d 0 account's su goes through "
          "the forced change (written unkeyed) and logs in, then again")
def c52(sb):
    pep = Pepper(sb)
    try:
        u, p0, p1, before = expired_setup(52)
        pep.lose()
        s = su_as_runner(u, forced_change_answers(p0, p1))
        require(logged_in(s, u), "su did not log in (exit %s)" % s.status)
        require("new" in s.kinds, "no password change was asked for")
        unkeyed_target(u, before, p1, old_pw=p0)
        s = su_as_runner(u, p1)
        require(logged_in(s, u), "su with the new password failed afterwards")
    finally:
        pep.restore()


def sudo_v(user, pw):
    """sudo -k -v as user on a pty (-k: the cached credentials do not
    count), answering its password prompt: the Session."""
    return converse(["runuser", "-u", user, "--", "sudo", "-k", "-v"], {"password": pw},
                    label="sudo -v (as %s)" % user)


@case(53, "admins: a sudo member's $6$ entry is upgraded UNKEYED with the pepper at "
          "hand; the key file lost, su and sudo -v still work (another user's is keyed)")
def c53(sb):
    u, p0, o, po = user_of(53), new_pw(), user_of(53) + "o", new_pw()
    require(shutil.which("sudo"), "sudo is not installed (apt-get install sudo)")
    try:
        pwd.getpwnam(o)
    except KeyError:
        run(["useradd", "-m", "-s", "/bin/bash", o])
    run(["usermod", "-a", "-G", "sudo", u])
    pep = Pepper(sb)
    try:
        set_entry(u, h_sha512(p0))
        set_entry(o, h_sha512(po))
        before = shadow_bytes()
        s = su_as_runner(u, p0)
        require(logged_in(s, u), "su failed (exit %s)" % s.status)
        unkeyed_target(u, before, p0, day="same")
        s = su_as_runner(o, po)
        require(logged_in(s, o) and pep.keyed(o), "a user not in admins was not keyed: %s"
                % fields(o)[1][:60])
        s = sudo_v(u, "wrong-" + p0)
        require(s.status not in (0, None), "sudo -v accepted a wrong password")
        pep.lose()
        line = shadow_line(u)
        s = su_as_runner(u, p0)
        require(logged_in(s, u), "su of the admin failed with the key lost (exit %s)"
                % s.status)
        s = sudo_v(u, p0)
        require(s.status == 0, "sudo -v of the admin failed with the key lost (exit %s)"
                % s.status)
        expect_unchanged(u, line)
        s = su_as_runner(o, po)
        require(not logged_in(s, o), "the keyed user logged in without the key")
    finally:
        pep.restore()
        run(["gpasswd", "-d", u, "sudo"], check=False)


@case(54, "the recovery of a lost pepper key, step by step as pam_kdfhash(8) KEYED "
          "HASHES says: check-conf and keys list name it missing; root resets the "
          "users with chpasswd; pepper = none; a history entry keyed with it refuses "
          "the user's own change until keys retire --drop-history drops it")
def c54(sb):
    u, p0, p1, p2, p3 = user_of(54), new_pw(), new_pw(), new_pw(), new_pw()
    path = "/etc/pam.d/common-password"
    opw = "/etc/security/opasswd"
    had = os.path.exists(opw)
    saved = open(opw, "rb").read() if had else None
    pep = Pepper(sb)
    old_pw_text = module_line_option(path, "remember=2")
    try:
        set_entry(u, h_sha512(p0))
        s = su_as_runner(u, p0)
        require(logged_in(s, u) and pep.keyed(u), "not keyed at login")
        s = passwd_as_user(u, p0, p1)  # p0's keyed entry joins the history
        require(s.status == 0 and pep.keyed(u), "the first passwd exited %s" % s.status)
        with open(opw) as f:
            require(any(l.startswith(u + ":") and ("keyid=" + pep.kid) in l for l in f),
                    "no keyed history entry of %s" % u)
        pep.lose()
        # 1. Both commands name the key missing (exit 1).
        r = run([pep.k, "check-conf", "--keys", KEYS_RP, sb.conf_path], check=False)
        require(r.returncode == 1 and pep.kid in r.stdout + r.stderr
                and "missing" in r.stdout + r.stderr,
                "check-conf: exit %d: %s" % (r.returncode, (r.stdout + r.stderr).strip()))
        r = run([pep.k, "keys", "--dir", KEYS_RP, "--conf", sb.conf_path, "list"],
                check=False)
        require(r.returncode == 1 and re.search(r"(?m)^%s\b.*missing" % pep.kid, r.stdout),
                "keys list: exit %d: %s" % (r.returncode, (r.stdout + r.stderr).strip()))
        # 2. The user cannot log in; root resets the password.
        s = su_as_runner(u, p1)
        require(not logged_in(s, u), "su succeeded with the key lost")
        before = shadow_bytes()
        r = run(["chpasswd"], check=False, input="%s:%s\n" % (u, p2))
        require(r.returncode == 0, "chpasswd exited %d" % r.returncode)
        unkeyed_target(u, before, p2, old_pw=p1)
        # 3. pepper = none.
        sb.write_conf(extra=dict(pep.conf, pepper="none"))
        s = su_as_runner(u, p2)
        require(logged_in(s, u), "su after the reset failed (exit %s)" % s.status)
        # 4. The history entry keyed with the lost key refuses the user's
        # change (any new password), with the remark ...
        line = shadow_line(u)
        s = passwd_as_user(u, p2, p3)
        require(s.status != 0, "passwd passed an uncheckable history")
        require("earlier passwords cannot be checked" in s.buf,
                "no remark about the history: %r" % s.buf[-200:])
        expect_unchanged(u, line)
        # ... until its entries are dropped: then the change goes through.
        # (The retire itself then finds no key file to rename: exit 2.)
        r = run([pep.k, "keys", "--dir", KEYS_RP, "--drop-history", "retire", pep.kid],
                check=False)
        require("dropped 2 history entries keyed with %s" % pep.kid in r.stdout + r.stderr,
                "keys retire --drop-history exited %d: %s"
                % (r.returncode, (r.stdout + r.stderr).strip()))
        with open(opw) as f:
            require(not any(("keyid=" + pep.kid) in l for l in f),
                    "a history entry keyed with %s is left" % pep.kid)
        before = shadow_bytes()
        s = passwd_as_user(u, p2, p3)
        require(s.status == 0, "passwd after the drop exited %s" % s.status)
        unkeyed_target(u, before, p3, old_pw=p2)
    finally:
        with open(path, "w") as f:
            f.write(old_pw_text)
        pep.restore()
        if had:
            with open(opw, "wb") as f:
                f.write(saved)
        elif os.path.exists(opw):
            os.unlink(opw)


WRAP_USERS = ["a", "b", "c", "d", "e", "f"]


def legacy_digest(h):
    """The digest of a legacy hash: after the last '$', or DES's last 11."""
    return h.rsplit("$", 1)[1] if h.startswith("$") else h[2:]


@case(64, "a wrong password over ssh: sshd's own Failed password line, with the module "
          "answering, matches fail2ban's stock sshd filter with the client's address; the "
          "right password's line does not")
def c64(sb):
    f2b = shutil.which("fail2ban-regex")
    require(f2b is not None and os.path.exists("/etc/fail2ban/filter.d/sshd.conf"),
            "fail2ban is not installed (Debian: fail2ban)")
    u, pw = user_of(64), new_pw()
    set_entry(u, h_sha512(pw))
    sb.start_sshd()
    before = len(sb.sshd_log_tail(10 ** 9))
    bad = sb.ssh(u, "password", {"password": "wrong-" + pw})
    require(not logged_in(bad, u), "a wrong password logged in over ssh")
    good = sb.ssh(u, "password", {"password": pw})
    require(logged_in(good, u), "the right password did not log in over ssh")
    new = sb.sshd_log_tail(10 ** 9)[before:]
    require(any(l.startswith("Failed password for %s from 127.0.0.1" % u) for l in new),
            "sshd wrote no Failed password line: %s" % new[-5:])
    # sshd -e writes to stderr without syslog's header; the filter expects
    # the one syslog gives it, so each line gets it as journald would.
    stamp = time.strftime("%b %d %H:%M:%S")
    log = os.path.join(sb.work, "sshd-f2b.log")
    with open(log, "w") as f:
        for l in new:
            f.write("%s host sshd[%d]: %s\n" % (stamp, sb.sshd.pid, l))
    r = run([f2b, "--print-all-matched", log, "sshd"], check=False)
    out = r.stdout + r.stderr
    m = re.search(r"Lines: (\d+) lines, (\d+) ignored, (\d+) matched", out)
    diag("fail2ban-regex sshd: " + (m.group(0) if m else out[-300:]))
    require(r.returncode == 0 and m is not None, "fail2ban-regex failed: %s" % out[-500:])
    failed = [l for l in new if l.startswith("Failed password")]
    # One match per failure, no more: the successful login's lines are
    # ignored or missed, never matched.
    require(int(m.group(3)) == len(failed) >= 1,
            "the stock sshd filter matched %s lines, sshd wrote %d failures"
            % (m.group(3), len(failed)))
    require("127.0.0.1" in out, "the match does not name the client's address")


@case(63, "kdfhash wrap: $1$, DES, $6$, cost-5 bcrypt and PBKDF2 entries of users who never "
          "logged in are wrapped, no legacy digest is left in /etc/shadow or /etc/shadow-, "
          "each user's su logs in with the right password (not a wrong one) and leaves a "
          "direct hash (DES: stays wrapped); root's $y$ entry still opens sulogin; a "
          "locked entry stays locked")
def c63(sb):
    users = {user_of(63) + x: new_pw() for x in WRAP_USERS}
    (ua, ub, uc, ud, ue, uf) = sorted(users)
    hashes = {ua: mkpasswd(users[ua], "md5"), ub: mkpasswd(users[ub], "des"),
              uc: mkpasswd(users[uc], "sha-512"),
              ud: h_bcrypt(users[ud], cost=5), ue: h_pbkdf2(users[ue], rounds=10000),
              uf: "!" + h_sha512(users[uf])}
    p_root = new_pw()
    line_root = shadow_line("root")
    try:
        set_entry("root", h_yescrypt(p_root))
        for u, h in hashes.items():
            set_entry(u, h)
        # The backup shadow-utils leaves: it holds the legacy digests too.
        shutil.copyfile(SHADOW, SHADOW + "-")
        root_before = shadow_line("root")
        r = run([kdfhash_cli(), "wrap", "--jobs", "2"], check=False)
        diag("kdfhash wrap: " + (r.stdout + r.stderr).strip().replace("\n", " | "))
        require(r.returncode == 0, "kdfhash wrap exited %d" % r.returncode)
        data = shadow_bytes()
        with open(SHADOW + "-", "rb") as f:
            backup = f.read()
        for u, h in hashes.items():
            dig = legacy_digest(h.lstrip("!")).encode()
            require(dig not in data, "%s: the legacy digest is still in /etc/shadow" % u)
            require(dig not in backup, "%s: the legacy digest is still in /etc/shadow-" % u)
            f2 = fields(u)[1]
            want = "!$kdfw$" if h.startswith("!") else "$kdfw$"
            require(f2.startswith(want), "%s: field 2 is %r, want %s..." % (u, f2[:20], want))
        require(shadow_line("root") == root_before, "root's entry was wrapped")
        require(sulogin(p_root), "sulogin refused root's password after the wrap")
        check_perms()
        for u in (ua, ub, uc, ud, ue):
            line = shadow_line(u)
            bad = su_as_runner(u, "wrong-" + users[u])
            require(not logged_in(bad, u) and bad.status != 0,
                    "%s: su with a wrong password succeeded" % u)
            expect_unchanged(u, line)
            before = shadow_bytes()
            ok = su_as_runner(u, users[u])
            require(logged_in(ok, u), "%s: su with the right password failed (exit %s)"
                    % (u, ok.status))
            if u == ub:
                # DES reads 8 bytes of 7 bits: a match never proves the whole
                # password, so the entry stays wrapped until a change.
                expect_unchanged(u, line)
            else:
                expect_changed(u, before, TARGET_PREFIX, users[u], day="same")
        locked = su_as_runner(uf, users[uf])
        require(not logged_in(locked, uf) and locked.status != 0,
                "the locked wrapped entry logged in")
        require(fields(uf)[1].startswith("!$kdfw$"), "the locked entry changed")
    finally:
        data = shadow_bytes().decode()
        out = [line_root if l.split(":", 1)[0] == "root" else l for l in data.split("\n")]
        with open(SHADOW, "r+b") as f:
            f.write("\n".join(out).encode())
            f.truncate()


@case(16, "migrate: target yescrypt + migrate=yes turns an $argon2id$ entry "
          "into $y$ at login; with the module disabled pam_unix logs it in, "
          "and the notice of a disable counts the entry until it is migrated")
def c16(sb):
    u, p0 = user_of(16), new_pw()
    set_entry(u, h_argon2id(p0))
    # A service of the host's (copied with /etc) that names the module would
    # rightly keep the notice silent: set such files aside in the copy.
    aside = tempfile.mkdtemp(prefix="kdf-rp-pamd.")
    for f in sorted(os.listdir("/etc/pam.d")):
        path = os.path.join("/etc/pam.d", f)
        if f.startswith("common-") or not os.path.isfile(path):
            continue
        with open(path, errors="replace") as fh:
            if any("pam_kdfhash.so" in l and not l.lstrip().startswith("#") for l in fh):
                diag("case 16: set aside the host's /etc/pam.d/%s (it names the module)" % f)
                shutil.move(path, os.path.join(aside, f))
    try:
        c16_steps(sb, u, p0)
    finally:
        for f in os.listdir(aside):
            shutil.move(os.path.join(aside, f), os.path.join("/etc/pam.d", f))
        os.rmdir(aside)


def c16_steps(sb, u, p0):
    require(stranded_notice() == 0, "stranded-notice spoke with the module in the stack")
    sb.pam_auth_update("--disable", "kdfhash")
    try:
        n_before = stranded_notice()
    finally:
        sb.pam_auth_update("--enable", "kdfhash")
    require(n_before >= 1, "disabled with an $argon2id$ entry, stranded-notice was silent")
    before = shadow_bytes()
    sb.write_conf(target="yescrypt", extra={"migrate": "yes"})
    try:
        s = su_as_runner(u, p0)
        require(logged_in(s, u), "su failed under target=yescrypt migrate=yes (exit %s)"
                % s.status)
        expect_changed(u, before, "$y$", p0, day="same")
        sb.pam_auth_update("--disable", "kdfhash")
        with open("/etc/pam.d/common-auth") as f:
            require("pam_kdfhash" not in f.read(), "pam-auth-update --disable kdfhash "
                    "left the module in common-auth")
        line = shadow_line(u)
        s2 = su_as_runner(u, p0)
        require(logged_in(s2, u), "su through pam_unix alone failed (exit %s)" % s2.status)
        expect_unchanged(u, line)
        n_after = stranded_notice()
        require(n_after == n_before - 1, "stranded-notice counts %d after the migration, "
                "%d before" % (n_after, n_before))
    finally:
        sb.write_conf()
        sb.pam_auth_update("--enable", "kdfhash")


# ---- main ------------------------------------------------------------------------

ARGS = None


def module_conf_path(so):
    with open(so, "rb") as f:
        data = f.read()
    m = re.search(rb"(/[\x21-\x7e]*?/security/kdfhash\.conf)\x00", data)
    return m.group(1).decode() if m else None


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--module", default=os.environ.get("KDF_PAM_SO"))
    ap.add_argument("--srcdir", default=os.environ.get("top_srcdir") or
                    os.path.normpath(os.path.join(os.path.dirname(__file__), "../..")))
    ap.add_argument("--host-mntns", default=os.environ.get("KDF_RP_HOST_MNTNS"))
    ap.add_argument("--only", default=os.environ.get("KDF_RP_ONLY"),
                    help="comma-separated case numbers")
    ap.add_argument("--verbose", action="store_true",
                    default=bool(os.environ.get("KDF_RP_VERBOSE")),
                    help="print every transcript, not only those of failures")
    ARGS = args = ap.parse_args()
    if not args.module:
        b = os.environ.get("top_builddir") or args.srcdir
        args.module = os.path.join(b, "pam_module/.libs/pam_kdfhash.so")
    args.module = os.path.abspath(args.module)
    if not os.path.isfile(args.module):
        print("Bail out! module %s not built" % args.module)
        return 1
    conf = module_conf_path(args.module)
    args.conf_arg = conf if conf and conf != "/etc/security/kdfhash.conf" else None

    t0 = time.monotonic()
    sb = Sandbox(args)
    only = {int(x) for x in args.only.split(",")} if args.only else None
    cases = [c for c in CASES if only is None or c[0] in only]
    diag("module %s (reads %s)" % (args.module, conf or "?"))
    passed = failed = skipped = 0
    try:
        try:
            sb.setup()
            sb.users(sorted({user_of(n) for n, _, _ in CASES}
                            | {user_of(19) + "b", user_of(29) + "a", user_of(33) + "b",
                               "alice"} | {user_of(63) + x for x in WRAP_USERS}))
        except Exception as e:
            print("Bail out! sandbox: %s" % e)
            if not isinstance(e, Fail):
                diag(traceback.format_exc())
            return 1
        for note in sb.notes:
            diag(note)
        for n, desc, fn in cases:
            del SESSIONS[:]
            t = time.monotonic()
            try:
                fn(sb)
                print("ok %d - %s" % (n, desc))
                passed += 1
                if args.verbose:
                    dump_sessions()
            except Skip as e:
                print("ok %d - %s # SKIP %s" % (n, desc, e))
                skipped += 1
            except Exception as e:
                why = str(e) if isinstance(e, Fail) else "harness error: %r" % e
                print("not ok %d - %s: %s" % (n, desc, why))
                failed += 1
                if not isinstance(e, Fail):
                    diag(traceback.format_exc())
                dump_sessions()
                if any(x.label.startswith("ssh") for x in SESSIONS):
                    diag("sshd log (last lines):")
                    for l in sb.sshd_log_tail():
                        diag("    " + l)
            finally:
                for s in SESSIONS:
                    s.close()
            diag("case %d: %.1f s" % (n, time.monotonic() - t))
    finally:
        sb.teardown()
    tail = "%d passed, %d failed" % (passed, failed)
    if skipped:
        tail += ", %d skipped" % skipped
    diag("run time %.1f s" % (time.monotonic() - t0))
    print(tail)
    return 1 if failed else 0


def dump_sessions():
    for s in SESSIONS:
        diag("transcript of %s (exit %s, prompts %s):" % (s.label, s.status, s.kinds))
        for l in s.transcript():
            diag("    | " + l)


if __name__ == "__main__":
    sys.exit(main())
