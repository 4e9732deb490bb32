/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_upgrade.c - kdf_write_hash(): byte preservation, compare-and-swap,
 * refusals and planted temp names (doc/DESIGN.md "Writing a new hash: the
 * file writer and the exec hook").
 * The lock and temp-permission tests are in test_upgrade_lock.c.
 *
 * Expected files are built by the generator from the parts it wrote (the
 * target line is kept as prefix / field 2 / suffix), never by parsing the
 * writer's output, so the writer's own line splitting is not the oracle.
 */
#include "upgrade_testutil.h"

#include <sys/xattr.h>

static uint64_t g_rng = 0x9e3779b97f4a7c15u;

static uint32_t
rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 16);
}

/* ---- the generator ---- */
static const char b64c[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

static void
rand_hash(char *out, size_t cap)
{
    static const char *pre[] = {"$2b$05$", "$6$", "$5$rounds=5000$", "$1$",
                                "$argon2id$v=19$m=65536,t=2,p=1$", "$pbkdf2-sha256$29000$"};
    const char *p = pre[rnd() % 6];
    size_t n = strlen(p), tail = 20 + rnd() % 60;

    assert_true(n + tail < cap);
    memcpy(out, p, n);
    for (size_t i = 0; i < tail; i++)
        out[n + i] = b64c[rnd() % 64];
    out[n + tail] = '\0';
}

static const char *
rand_rest(void)
{
    static const char *rests[] = {":19000:0:99999:7:::", ":19000:0:99999:7::", /* 8 fields */
                                  ":19000:0:99999:7::::", /* 10 fields */
                                  ":18000::::::", ":0:0:99999:7:", /* 7 fields */
                                  ""};
    return rests[rnd() % 6];
}

/* One random non-target line (with its terminator) appended to b. */
static void
rand_line(struct buf *b, const char *target, int idx)
{
    char h[128], tmp[256];

    switch (rnd() % 14) {
    case 0:
        snprintf(tmp, sizeof tmp, "# comment %d %s:%s", idx, target, "$6$fake$fake");
        b_str(b, tmp);
        break;
    case 1: /* blank */
        break;
    case 2: /* leading blank: not the target */
        rand_hash(h, sizeof h);
        snprintf(tmp, sizeof tmp, " %s:%s:19000:0:99999:7:::", target, h);
        b_str(b, tmp);
        break;
    case 3: { /* NIS lines */
        static const char *nis[] = {"+", "+::::::::", "-@badguys::::::::", "+@staff"};
        if (rnd() % 2)
            snprintf(tmp, sizeof tmp, "%c%s::::::::", rnd() % 2 ? '+' : '-', target);
        else
            snprintf(tmp, sizeof tmp, "%s", nis[rnd() % 4]);
        b_str(b, tmp);
        break;
    }
    case 4: /* non-UTF-8 bytes and a NUL */
        b_add(b, "u\xff\xfe:\x80\x81\0x:19000::::::", 20);
        break;
    case 5: { /* an 8 KiB line */
        char *big = malloc(8200);
        memset(big, 'A', 8192);
        big[8192] = '\0';
        snprintf(tmp, sizeof tmp, "long%d:", idx);
        b_str(b, tmp);
        b_str(b, big);
        b_str(b, ":19000:0:99999:7:::");
        free(big);
        break;
    }
    case 6: /* names that are prefixes/extensions of the target */
        rand_hash(h, sizeof h);
        snprintf(tmp, sizeof tmp, "%s%s:%s%s", target, rnd() % 2 ? "x" : "_2", h, rand_rest());
        b_str(b, tmp);
        break;
    case 7:
        snprintf(tmp, sizeof tmp, "%.*s:%s", (int)strlen(target) - 1, target, "!locked:1::::::");
        b_str(b, tmp);
        break;
    case 8: /* a duplicated name elsewhere */
        b_str(b, "dup:*:19000::::::\ndup:!:19001::::::");
        break;
    case 9: /* no colon at all */
        b_str(b, target);
        break;
    default:
        rand_hash(h, sizeof h);
        snprintf(tmp, sizeof tmp, "user%d:%s%s", idx, h, rand_rest());
        b_str(b, tmp);
        break;
    }
}

static void
term(struct buf *b)
{
    b_str(b, rnd() % 4 == 0 ? "\r\n" : "\n");
}

/* Build a file with the target line at a random place; exp gets the file
 * as it must read after the upgrade. */
static void
gen_file(struct buf *in, struct buf *exp, const char *target, const char *old_h,
         const char *new_h)
{
    int nlines = 5 + (int)(rnd() % 120), at = (int)(rnd() % (unsigned)nlines);
    int last_unterminated = rnd() % 3 == 0;

    for (int i = 0; i < nlines; i++) {
        int is_last = i == nlines - 1;
        size_t before = in->n;

        if (i == at) {
            const char *rest = rand_rest();
            const char *t = is_last && last_unterminated ? "" : (rnd() % 4 == 0 ? "\r\n" : "\n");
            b_str(in, target);
            b_str(in, ":");
            b_str(exp, target);
            b_str(exp, ":");
            b_str(in, old_h);
            b_str(exp, new_h);
            b_str(in, rest);
            b_str(in, t);
            b_str(exp, rest);
            b_str(exp, t);
            continue;
        }
        rand_line(in, target, i);
        if (!(is_last && last_unterminated))
            term(in);
        b_add(exp, in->p + before, in->n - before);
    }
}

static void
test_byte_preservation_generated(void **state)
{
    static const mode_t modes[] = {0600, 0640, 0400, 0644, 0660};
    (void)state;

    for (int f = 0; f < 220; f++) {
        struct buf in = {0}, exp = {0};
        char target[64], old_h[128], new_h[128], err[256];
        struct stat before, after;
        mode_t mode = modes[rnd() % 5];
        uid_t uid = geteuid() == 0 ? (uid_t)(rnd() % 3 ? 0 : 1000 + rnd() % 100) : geteuid();
        gid_t gid = geteuid() == 0 ? (gid_t)(rnd() % 3 ? 42 : rnd() % 100) : getegid();

        snprintf(target, sizeof target, "%s%u", rnd() % 2 ? "alice" : "svc-", rnd() % 1000);
        rand_hash(old_h, sizeof old_h);
        snprintf(new_h, sizeof new_h, "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$%08x%08x",
                 rnd(), rnd());
        gen_file(&in, &exp, target, old_h, new_h);
        write_file(g_path, in.p, in.n, mode);
        assert_int_equal(chown(g_path, uid, gid), 0);
        assert_int_equal(stat(g_path, &before), 0);

        assert_int_equal(kdf_write_hash(g_path, NULL, target, old_h, new_h, 1000, err,
                                        sizeof err),
                         KDF_WRITE_OK);
        assert_file_is(g_path, exp.p, exp.n);
        assert_int_equal(stat(g_path, &after), 0);
        assert_int_equal(after.st_mode, before.st_mode);
        assert_int_equal(after.st_uid, before.st_uid);
        assert_int_equal(after.st_gid, before.st_gid);
        assert_int_equal(after.st_nlink, 1);
        assert_true(after.st_ino != before.st_ino); /* a new file was renamed in */
        assert_no_temp();
        /* Again with the new hash as the old one: CAS now fails on the old. */
        assert_int_equal(kdf_write_hash(g_path, NULL, target, old_h, "$6$x$y", 1000, err,
                                        sizeof err),
                         KDF_WRITE_CAS_FAILED);
        assert_file_is(g_path, exp.p, exp.n);
        free(in.p);
        free(exp.p);
        unlink(g_path);
    }
}


static void
test_cas_and_not_found(void **state)
{
    (void)state;
    write_file(g_path, base_file, sizeof base_file - 1, 0640);
    assert_unchanged_after(KDF_WRITE_CAS_FAILED, "alice", "$6$salt$otherhash", NEWH);
    assert_unchanged_after(KDF_WRITE_CAS_FAILED, "alice", "$6$salt$oldhas", NEWH);
    assert_unchanged_after(KDF_WRITE_CAS_FAILED, "alice", "$6$salt$oldhash:", NEWH);
    assert_unchanged_after(KDF_WRITE_CAS_FAILED, "alice", "", NEWH);
    assert_unchanged_after(KDF_WRITE_NOT_FOUND, "nobody", "$6$salt$oldhash", NEWH);
    assert_unchanged_after(KDF_WRITE_NOT_FOUND, "alic", "$6$salt$oldhash", NEWH);
    assert_unchanged_after(KDF_WRITE_NOT_FOUND, "dup", "$1$a$b", NEWH);
    /* Names the PAM lookup refuses are never found either. */
    assert_unchanged_after(KDF_WRITE_NOT_FOUND, "", "", NEWH);
    assert_unchanged_after(KDF_WRITE_NOT_FOUND, "alice:$6$salt$oldhash", "x", NEWH);
    assert_unchanged_after(KDF_WRITE_NOT_FOUND, "+alice", "$6$salt$oldhash", NEWH);
    assert_unchanged_after(KDF_WRITE_NOT_FOUND, "-alice", "$6$salt$oldhash", NEWH);
    assert_unchanged_after(KDF_WRITE_NOT_FOUND, "al\nice", "$6$salt$oldhash", NEWH);
    {
        char longname[300];
        memset(longname, 'a', 257);
        longname[257] = '\0';
        assert_unchanged_after(KDF_WRITE_NOT_FOUND, longname, "$6$salt$oldhash", NEWH);
    }
}

static void
test_bad_new_hash(void **state)
{
    static const char *bad[] = {"", "!$6$x$y", "*", "*LK*", "$6$a:b$c", "$6$a\nb",
                                "$6$a\rb", "$6$a b", "$6$a\tb", "$6$\x7f", "$6$\xc3\xa9"};
    char big[2000];
    (void)state;

    write_file(g_path, base_file, sizeof base_file - 1, 0640);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_unchanged_after(KDF_WRITE_REFUSED, "alice", "$6$salt$oldhash", bad[i]);
    memset(big, 'A', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_unchanged_after(KDF_WRITE_REFUSED, "alice", "$6$salt$oldhash", big);
}

static void
test_refuse_symlink_hardlink_special(void **state)
{
    char real[320], link2[320], err[256];
    (void)state;

    snprintf(real, sizeof real, "%s/real", g_dir);
    write_file(real, base_file, sizeof base_file - 1, 0600);
    assert_int_equal(symlink(real, g_path), 0);
    assert_int_equal(kdf_write_hash(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                    sizeof err),
                     KDF_WRITE_REFUSED);
    assert_file_is(real, base_file, sizeof base_file - 1);
    {
        struct stat st;
        assert_int_equal(lstat(g_path, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
    }
    unlink(g_path);
    unlink(real);

    /* nlink == 2 */
    write_file(g_path, base_file, sizeof base_file - 1, 0600);
    snprintf(link2, sizeof link2, "%s/shadow.hard", g_dir);
    assert_int_equal(link(g_path, link2), 0);
    assert_int_equal(kdf_write_hash(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                    sizeof err),
                     KDF_WRITE_REFUSED);
    assert_non_null(strstr(err, "hard link"));
    assert_file_is(g_path, base_file, sizeof base_file - 1);
    assert_file_is(link2, base_file, sizeof base_file - 1);
    unlink(link2);
    unlink(g_path);

    /* a FIFO (opening it must not hang) and a directory */
    assert_int_equal(mkfifo(g_path, 0600), 0);
    assert_int_equal(kdf_write_hash(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                    sizeof err),
                     KDF_WRITE_REFUSED);
    unlink(g_path);
    assert_int_equal(mkdir(g_path, 0700), 0);
    assert_int_not_equal(kdf_write_hash(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500,
                                        err, sizeof err),
                         KDF_WRITE_OK);
    rmdir(g_path);

    /* missing file */
    assert_int_equal(kdf_write_hash(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                    sizeof err),
                     KDF_WRITE_IO_ERROR);
    assert_no_temp();
}

static void
test_size_bound(void **state)
{
    char err[256];
    int fd;
    unsigned long long t0;
    (void)state;

    fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)65 << 20), 0); /* sparse */
    close(fd);
    t0 = kdf_pam_now_ms();
    assert_int_equal(kdf_write_hash(g_path, g_lock, "alice", "x", NEWH, 500, err, sizeof err),
                     KDF_WRITE_REFUSED);
    assert_non_null(strstr(err, "MiB"));
    assert_true(kdf_pam_now_ms() - t0 < 1000);
    assert_no_temp();
}

/* Files an attacker may have planted under names other writers use (and a
 * symlink under a name shaped like ours) are neither followed nor touched;
 * a stale temp of ours is swept. */
static void
test_planted_and_stale_temps(void **state)
{
    static const char *planted[] = {"shadow.tmp", "shadow+", "shadow.new",
                                    ".pam.shadow", "nshadow", ".shadow.kdfhash-short"};
    char p[400], outside[400], err[256];
    struct buf exp = {0};
    (void)state;

    write_file(g_path, base_file, sizeof base_file - 1, 0640);
    for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", g_dir, planted[i]);
        write_file(p, "planted\n", 8, 0666);
    }
    snprintf(outside, sizeof outside, "%s/outside", g_dir);
    write_file(outside, "outside\n", 8, 0644);
    snprintf(p, sizeof p, "%s/.shadow.kdfhash-AAAAAAAAAAAA", g_dir);
    assert_int_equal(symlink(outside, p), 0);
    snprintf(p, sizeof p, "%s/.shadow.kdfhash-Zz09Zz09Zz09", g_dir); /* stale temp */
    write_file(p, "stale\n", 6, 0600);
    /* A planted "shadow-" symlink is replaced, never written through. */
    snprintf(p, sizeof p, "%s/shadow-", g_dir);
    assert_int_equal(symlink(outside, p), 0);

    assert_int_equal(kdf_write_hash(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                    sizeof err),
                     KDF_WRITE_OK);
    for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", g_dir, planted[i]);
        assert_file_is(p, "planted\n", 8);
        unlink(p);
    }
    assert_file_is(outside, "outside\n", 8);
    unlink(outside);
    /* "shadow-" now holds the content before the write, mode of the file,
     * as shadow-utils leaves it. */
    {
        struct stat bst;
        snprintf(p, sizeof p, "%s/shadow-", g_dir);
        assert_int_equal(lstat(p, &bst), 0);
        assert_true(S_ISREG(bst.st_mode));
        assert_int_equal(bst.st_mode & 0777, 0640);
        assert_file_is(p, base_file, sizeof base_file - 1);
    }
    snprintf(p, sizeof p, "%s/.shadow.kdfhash-AAAAAAAAAAAA", g_dir);
    assert_int_equal(unlink(p), 0); /* the symlink itself was left alone */
    snprintf(p, sizeof p, "%s/.shadow.kdfhash-Zz09Zz09Zz09", g_dir);
    assert_int_equal(access(p, F_OK), -1); /* swept */
    assert_no_temp();
    b_str(&exp, "root:*:19000:0:99999:7:::\n# the admin's comment\nalice:");
    b_str(&exp, NEWH);
    b_str(&exp, strchr(strstr(base_file, "alice:") + 6, ':'));
    assert_file_is(g_path, exp.p, exp.n);
    free(exp.p);
}

/* A POSIX ACL and other extended attributes of the file survive a rewrite,
 * on the file and on its backup; so does a last line "user:hash\r" without
 * a final newline, whose CR is the line end (the lookup reads the hash
 * without it, so the compare-and-swap must too). */
static void
test_xattrs_and_last_crlf(void **state)
{
    /* system.posix_acl_access, version 2: user::rw-, user:1000:r--,
     * group::r--, mask::r--, other::--- (struct posix_acl_xattr_entry:
     * tag u16, perm u16, id u32, little endian). */
    static const unsigned char acl[] = {
        2, 0, 0, 0,                            /* version */
        0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff, /* USER_OBJ rw- */
        0x02, 0, 4, 0, 0xe8, 0x03, 0, 0,       /* USER 1000 r-- */
        0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff, /* GROUP_OBJ r-- */
        0x10, 0, 4, 0, 0xff, 0xff, 0xff, 0xff, /* MASK r-- */
        0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, /* OTHER --- */
    };
    static const char crlf[] = "root:*:19000:0:99999:7:::\nalice:$6$salt$oldhash\r";
    char err[256], bak[400], got[256];
    const char *which[2];
    struct buf exp = {0};
    ssize_t n;
    (void)state;

    write_file(g_path, base_file, sizeof base_file - 1, 0640);
    if (setxattr(g_path, "user.kdftest", "tag", 3, 0) != 0 ||
        setxattr(g_path, "system.posix_acl_access", acl, sizeof acl, 0) != 0) {
        print_message("extended attributes not supported on %s: %s\n", g_dir, strerror(errno));
        skip();
    }
    assert_int_equal(kdf_write_hash(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                    sizeof err),
                     KDF_WRITE_OK);
    snprintf(bak, sizeof bak, "%s-", g_path);
    which[0] = g_path;
    which[1] = bak;
    for (int i = 0; i < 2; i++) {
        n = getxattr(which[i], "user.kdftest", got, sizeof got);
        assert_int_equal(n, 3);
        assert_memory_equal(got, "tag", 3);
        n = getxattr(which[i], "system.posix_acl_access", got, sizeof got);
        assert_int_equal(n, (ssize_t)sizeof acl);
        assert_memory_equal(got, acl, sizeof acl);
    }
    unlink(bak);

    write_file(g_path, crlf, sizeof crlf - 1, 0640);
    assert_int_equal(kdf_write_hash(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                    sizeof err),
                     KDF_WRITE_OK);
    b_str(&exp, "root:*:19000:0:99999:7:::\nalice:");
    b_str(&exp, NEWH);
    b_str(&exp, "\r");
    assert_file_is(g_path, exp.p, exp.n);
    free(exp.p);
}

static void
test_same_hash_no_rewrite_and_default_lock(void **state)
{
    struct stat before, after;
    char err[256];
    (void)state;

    write_file(g_path, base_file, sizeof base_file - 1, 0640);
    assert_int_equal(stat(g_path, &before), 0);
    assert_int_equal(access(g_lock, F_OK), -1);
    assert_int_equal(kdf_write_hash(g_path, NULL, "alice", "$6$salt$oldhash", "$6$salt$oldhash",
                                    500, err, sizeof err),
                     KDF_WRITE_OK);
    assert_int_equal(stat(g_path, &after), 0);
    assert_true(after.st_ino == before.st_ino);
    assert_file_is(g_path, base_file, sizeof base_file - 1);
    /* lock_path NULL means "<path>.lock", the writer's own: removed after
     * use whatever the outcome, so that no empty lock file is left for
     * another program to take for a stale one. */
    assert_int_equal(access(g_lock, F_OK), -1);
    assert_int_equal(kdf_write_hash(g_path, NULL, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                    sizeof err),
                     KDF_WRITE_OK);
    assert_int_equal(access(g_lock, F_OK), -1);
    assert_int_equal(kdf_write_hash(g_path, NULL, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                    sizeof err),
                     KDF_WRITE_CAS_FAILED);
    assert_int_equal(access(g_lock, F_OK), -1);
    assert_int_equal(kdf_write_hash(g_path, NULL, "nobody-here", "x", NEWH, 500, err,
                                    sizeof err),
                     KDF_WRITE_NOT_FOUND);
    assert_int_equal(access(g_lock, F_OK), -1);
    {
        char hl[340];

        /* A refusal (a second hard link) removes it too. */
        snprintf(hl, sizeof hl, "%s.hardlink", g_path);
        assert_int_equal(link(g_path, hl), 0);
        assert_int_equal(kdf_write_hash(g_path, NULL, "alice", NEWH, "$6$salt$oldhash", 500,
                                        err, sizeof err),
                         KDF_WRITE_REFUSED);
        assert_int_equal(unlink(hl), 0);
        assert_int_equal(access(g_lock, F_OK), -1);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_byte_preservation_generated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cas_and_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_new_hash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuse_symlink_hardlink_special, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_planted_and_stale_temps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_xattrs_and_last_crlf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_hash_no_rewrite_and_default_lock, setup,
                                        teardown),
    };
    /* KDF_TEST_SEED=<n> replays a run. */
    if (getenv("KDF_TEST_SEED") != NULL)
        g_rng = strtoull(getenv("KDF_TEST_SEED"), NULL, 10);
    else
        g_rng ^= (uint64_t)time(NULL) * 0x2545f4914f6cdd1du;
    if (g_rng == 0)
        g_rng = 1;
    printf("# seed %llu\n", (unsigned long long)g_rng);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
