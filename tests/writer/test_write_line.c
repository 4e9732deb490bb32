/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_write_line.c - kdf_write_line(), the offline cache's writer: add,
 * replace and delete a user's whole line under the lock, every other byte
 * kept (comments, CRLF, a last line without '\n'), a missing file created
 * 0600, duplicates of the user dropped, no rewrite when nothing changes,
 * no "FILE-" backup (a dropped entry must not live on), refusals that
 * leave the file as it was.
 */
#include "upgrade_testutil.h"

#define H1 "$argon2id$v=19$m=256,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo"
#define H2 "$argon2id$v=19$m=256,t=1,p=1$b3RoZXJzYWx0$b3RoZXJoYXNo"

static enum kdf_write_status
wl(const char *user, const char *line)
{
    char err[256];
    enum kdf_write_status st = kdf_write_line(g_path, user, line, 500, err, sizeof err);

    /* The reason never carries a hash. */
    assert_null(strstr(err, "$argon2"));
    return st;
}

static void
assert_no_backup(void)
{
    char b[400];

    snprintf(b, sizeof b, "%s-", g_path);
    assert_int_equal(access(b, F_OK), -1);
    assert_int_equal(access(g_lock, F_OK), -1);
}

/* A missing file is created 0600 with the one line; a second user is
 * appended; a user's line is replaced in place. */
static void
test_add_create_replace(void **state)
{
    static const char want1[] = "alice:" H1 ":20000\n";
    static const char want2[] = "alice:" H1 ":20000\nbob:" H2 ":20001\n";
    static const char want3[] = "alice:" H2 ":20002\nbob:" H2 ":20001\n";
    struct stat st;

    (void)state;
    assert_int_equal(wl("alice", "alice:" H1 ":20000"), KDF_WRITE_OK);
    assert_file_is(g_path, want1, sizeof want1 - 1);
    assert_int_equal(stat(g_path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal(wl("bob", "bob:" H2 ":20001"), KDF_WRITE_OK);
    assert_file_is(g_path, want2, sizeof want2 - 1);
    assert_int_equal(wl("alice", "alice:" H2 ":20002"), KDF_WRITE_OK);
    assert_file_is(g_path, want3, sizeof want3 - 1);
    assert_no_backup();
    assert_no_temp();
}

/* Other bytes survive; duplicates of the user are dropped by a replace
 * and all of them by a delete; a last line without '\n' keeps its form. */
static void
test_bytes_kept_and_duplicates(void **state)
{
    static const char before[] = "# comment alice:x\r\n"
                                 "alice:" H1 ":1\n"
                                 "\n"
                                 "zed:" H1 ":2\r\n"
                                 "alice:" H2 ":3\n"
                                 "alicia:" H1 ":4";
    static const char replaced[] = "# comment alice:x\r\n"
                                   "alice:" H2 ":9\n"
                                   "\n"
                                   "zed:" H1 ":2\r\n"
                                   "alicia:" H1 ":4";
    static const char deleted[] = "# comment alice:x\r\n"
                                  "\n"
                                  "zed:" H1 ":2\r\n"
                                  "alicia:" H1 ":4";
    static const char appended[] = "# comment alice:x\r\n"
                                   "\n"
                                   "zed:" H1 ":2\r\n"
                                   "alicia:" H1 ":4\n"
                                   "bob:" H1 ":5\n";
    static const char last_replaced[] = "# comment alice:x\r\n"
                                        "\n"
                                        "zed:" H1 ":2\r\n"
                                        "alicia:" H2 ":6";
    (void)state;
    write_file(g_path, before, sizeof before - 1, 0600);
    assert_int_equal(wl("alice", "alice:" H2 ":9"), KDF_WRITE_OK);
    assert_file_is(g_path, replaced, sizeof replaced - 1);
    assert_int_equal(wl("alice", NULL), KDF_WRITE_OK);
    assert_file_is(g_path, deleted, sizeof deleted - 1);
    write_file(g_path, before, sizeof before - 1, 0600);
    assert_int_equal(wl("alice", NULL), KDF_WRITE_OK);
    assert_file_is(g_path, deleted, sizeof deleted - 1);
    assert_int_equal(wl("bob", "bob:" H1 ":5"), KDF_WRITE_OK);
    assert_file_is(g_path, appended, sizeof appended - 1);
    write_file(g_path, deleted, sizeof deleted - 1, 0600);
    assert_int_equal(wl("alicia", "alicia:" H2 ":6"), KDF_WRITE_OK);
    assert_file_is(g_path, last_replaced, sizeof last_replaced - 1);
    assert_no_backup();
    assert_no_temp();
}

/* The same line, or deleting an absent user: no rewrite (same inode and
 * mtime), and no file made for a delete. */
static void
test_no_rewrite(void **state)
{
    static const char text[] = "alice:" H1 ":20000\n";
    struct stat a, b;

    (void)state;
    assert_int_equal(wl("alice", NULL), KDF_WRITE_OK);
    assert_int_equal(access(g_path, F_OK), -1);
    write_file(g_path, text, sizeof text - 1, 0600);
    assert_int_equal(stat(g_path, &a), 0);
    assert_int_equal(wl("alice", "alice:" H1 ":20000"), KDF_WRITE_OK);
    assert_int_equal(wl("bob", NULL), KDF_WRITE_OK);
    assert_int_equal(stat(g_path, &b), 0);
    assert_true(a.st_ino == b.st_ino && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
                a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);
    assert_file_is(g_path, text, sizeof text - 1);
}

/* Lines that are not the user's, bad hashes, bad bytes, bad names, a
 * symlink, a second hard link: refused, the file as it was. */
static void
test_refusals(void **state)
{
    static const char text[] = "alice:" H1 ":20000\n";
    static const char *const bad[] = {("bob:" H1 ":1"),
                                      "alice:",
                                      "alice",
                                      ("alice:!" H1 ":1"),
                                      "alice:*:1",
                                      ("alice:" H1 ":1\nroot::0"),
                                      ("alice:" H1 "\r"),
                                      ("alice:" H1 ":\x01"),
                                      ("alicex:" H1),
                                      "alice:a b:1"};
    char link_path[400];

    (void)state;
    write_file(g_path, text, sizeof text - 1, 0600);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(wl("alice", bad[i]), KDF_WRITE_REFUSED);
    assert_int_equal(wl("al:ice", NULL), KDF_WRITE_REFUSED);
    assert_int_equal(wl("+alice", "+alice:" H1), KDF_WRITE_REFUSED);
    assert_file_is(g_path, text, sizeof text - 1);
    snprintf(link_path, sizeof link_path, "%s.hl", g_path);
    assert_int_equal(link(g_path, link_path), 0);
    assert_int_equal(wl("alice", NULL), KDF_WRITE_REFUSED);
    assert_int_equal(unlink(link_path), 0);
    assert_int_equal(rename(g_path, link_path), 0);
    assert_int_equal(symlink(link_path, g_path), 0);
    assert_int_equal(wl("alice", NULL), KDF_WRITE_REFUSED);
    assert_int_equal(wl("bob", "bob:" H1 ":1"), KDF_WRITE_REFUSED);
    assert_file_is(link_path, text, sizeof text - 1);
    assert_int_equal(unlink(g_path), 0);
    assert_int_equal(unlink(link_path), 0);
    assert_no_backup();
    assert_no_temp();
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_add_create_replace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bytes_kept_and_duplicates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_rewrite, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
