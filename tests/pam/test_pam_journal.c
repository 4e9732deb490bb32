/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pam_journal.c - what pam_kdfhash.so tells the machine's log watchers,
 * through the real libpam (pam_host.c):
 * - pam_unix's lines word for word: the first refusal on a handle as
 *   pam_unix's "authentication failure; logname= uid= euid= tty= ruser=
 *   rhost=  user=", with the items the application set; later refusals
 *   counted in libpam's "PAM N more authentication failures; ..." at
 *   pam_end; none after a success; an unknown user as "check pass; user
 *   unknown" and a failure line without user= (the name never logged);
 * - each journal event (events.h) through a stand-in journald (a datagram
 *   socket bound where pam_host.c points the module): its MESSAGE_ID,
 *   KDFHASH_EVENT, the fields of the case, PRIORITY, SYSLOG_FACILITY and a
 *   MESSAGE in pam_syslog's shape; no field holding the password or any
 *   part of the stored hash; a value with a newline in the native
 *   protocol's binary form (the busy event, sent by kdf_pam_event() itself:
 *   a machine-wide memory budget cannot be exhausted from here);
 * - with no journald, the same events as syslog lines;
 * - pam_kdfhash(8) lists every event with its MESSAGE_ID.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include <security/pam_appl.h>

#define PAM_HASHES_STATIC_TABLE
#include "events.h"
#include "journal.h"
#include "pam_hashes.h"
#include "pam_host.h"

#define PW "S3cret-p4ss!"
#define WRONG "S3cret-p4ss?"
#define TARGET "target=argon2id:m=256,t=1,p=1"
#define RHOST "203.0.113.7"
#define PREFIX "pam_kdfhash(" HOST_SERVICE ":auth): "

static void write_shadow(void);

static char *g_dir;
static char g_shadow[512], g_conf[512], g_keys[512], g_sock[512];
static int g_fd = -1;

/* ---- the stand-in journald ---------------------------------------------- */

#define MAX_REC 16
#define MAX_FIELDS 24

struct jfield {
    char key[64];
    char val[1400];
    int binary;
};

struct jrec {
    struct jfield f[MAX_FIELDS];
    int n;
    unsigned char raw[4096];
    size_t raw_len;
};

static struct jrec g_rec[MAX_REC];
static int g_nrec;

/* One datagram of the native protocol: "KEY=value\n", or "KEY\n" + 64-bit
 * little-endian length + value + "\n". */
static void
parse(struct jrec *r, const unsigned char *p, size_t n)
{
    size_t i = 0;

    r->n = 0;
    while (i < n) {
        size_t k = i, vlen;
        struct jfield *f;

        while (k < n && p[k] != '=' && p[k] != '\n')
            k++;
        assert_true(k < n);
        assert_true(r->n < MAX_FIELDS);
        f = &r->f[r->n++];
        assert_true(k - i < sizeof f->key);
        memcpy(f->key, p + i, k - i);
        f->key[k - i] = '\0';
        if (p[k] == '=') {
            const unsigned char *e = memchr(p + k + 1, '\n', n - k - 1);

            assert_non_null(e);
            vlen = (size_t)(e - (p + k + 1));
            assert_true(vlen < sizeof f->val);
            memcpy(f->val, p + k + 1, vlen);
            f->binary = 0;
            i = (size_t)(e - p) + 1;
        } else {
            uint64_t len = 0;

            assert_true(k + 9 <= n);
            for (size_t b = 8; b-- > 0;)
                len = len << 8 | p[k + 1 + b];
            assert_true(len < sizeof f->val && k + 9 + len + 1 <= n);
            vlen = (size_t)len;
            memcpy(f->val, p + k + 9, vlen);
            assert_int_equal(p[k + 9 + vlen], '\n');
            f->binary = 1;
            i = k + 9 + vlen + 1;
        }
        f->val[vlen] = '\0';
    }
}

static void
drain(void)
{
    unsigned char buf[8192];
    ssize_t n;

    g_nrec = 0;
    while ((n = recv(g_fd, buf, sizeof buf, MSG_DONTWAIT)) > 0) {
        assert_true(g_nrec < MAX_REC);
        assert_true((size_t)n <= sizeof g_rec[0].raw);
        memcpy(g_rec[g_nrec].raw, buf, (size_t)n);
        g_rec[g_nrec].raw_len = (size_t)n;
        parse(&g_rec[g_nrec], buf, (size_t)n);
        g_nrec++;
    }
    assert_true(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
}

static const char *
get(const struct jrec *r, const char *key)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->f[i].key, key) == 0)
            return r->f[i].val;
    return NULL;
}

static void
point_at(const char *path)
{
    size_t n = strlen(path);

    assert_true(n < sizeof host_journal_socket);
    memcpy(host_journal_socket, path, n + 1);
}

static void
journal_on(void)
{
    point_at(g_sock);
}

static void
journal_off(void)
{
    char none[600];

    snprintf(none, sizeof none, "%s/none", g_dir);
    point_at(none);
}

/* ---- logins ------------------------------------------------------------- */

static void
service(const char *args)
{
    char line[2048];
    const char *lines[1] = {line};

    snprintf(line, sizeof line,
             "auth required %%M shadow=%s conf=%s keys=%s nodelay " TARGET " %s", g_shadow,
             g_conf, g_keys, args);
    host_service(g_dir, lines, 1);
}

/* n logins on one handle with the items an sshd sets; pws[i] the i-th
 * password.  Returns the last result. */
static int
session(const char *user, const char *const *pws, int n)
{
    struct host_conv c;
    struct pam_conv pc = {host_conv_fn, &c};
    pam_handle_t *pamh = NULL;
    int rc = PAM_SUCCESS;

    host_log_reset();
    assert_int_equal(pam_start_confdir(HOST_SERVICE, user, &pc, g_dir, &pamh), PAM_SUCCESS);
    assert_int_equal(pam_set_item(pamh, PAM_RHOST, RHOST), PAM_SUCCESS);
    assert_int_equal(pam_set_item(pamh, PAM_TTY, "ssh"), PAM_SUCCESS);
    for (int i = 0; i < n; i++) {
        memset(&c, 0, sizeof c);
        c.pw = pws[i];
        c.pw_len = strlen(pws[i]);
        rc = pam_authenticate(pamh, 0);
    }
    pam_end(pamh, rc);
    return rc;
}

static int
login(const char *user, const char *pw)
{
    return session(user, &pw, 1);
}

static size_t
lines_with(const char *needle)
{
    size_t k = 0;

    for (size_t i = 0; i < host_log_count(); i++)
        if (strstr(host_log_get(i)->text, needle) != NULL)
            k++;
    return k;
}

static void
dump_log(void)
{
    for (size_t i = 0; i < host_log_count(); i++)
        print_error("  log %d: %s\n", host_log_get(i)->prio, host_log_get(i)->text);
}

/* ---- pam_unix's lines --------------------------------------------------- */

static void
test_unix_lines(void **state)
{
    const char *three[3] = {WRONG, WRONG, WRONG};
    const char *two[2] = {WRONG, PW};
    char want[512];
    (void)state;

    journal_off();
    service("upgrade=off");

    /* One refusal: pam_unix's line, exactly, then ours. */
    assert_int_equal(login("alice", WRONG), PAM_AUTH_ERR);
    snprintf(want, sizeof want,
             "pam_kdfhash(" HOST_SERVICE ":auth): authentication failure; logname= uid=%d "
             "euid=%d tty=ssh ruser= rhost=" RHOST "  user=alice",
             (int)getuid(), (int)geteuid());
    if (host_log_count() != 2 || strcmp(host_log_get(0)->text, want) != 0) {
        dump_log();
        fail_msg("want \"%s\" then the module's line", want);
    }
    assert_int_equal(host_log_get(0)->prio, LOG_NOTICE);
    assert_non_null(strstr(host_log_get(1)->text, "authentication failure for alice (argon2id)"));

    /* Three on one handle: one line, and libpam's count at pam_end. */
    assert_int_equal(session("alice", three, 3), PAM_AUTH_ERR);
    assert_int_equal(lines_with("authentication failure; "), 1);
    snprintf(want, sizeof want,
             "PAM 2 more authentication failures; logname= uid=%d euid=%d tty=ssh ruser= "
             "rhost=" RHOST "  user=alice",
             (int)getuid(), (int)geteuid());
    if (lines_with(want) != 1 || strcmp(host_log_get(host_log_count() - 1)->text, want) != 0) {
        dump_log();
        fail_msg("want \"%s\" last", want);
    }

    /* A success after a refusal clears the count: no line at pam_end. */
    assert_int_equal(session("alice", two, 2), PAM_SUCCESS);
    assert_int_equal(lines_with("authentication failure; "), 1);
    assert_int_equal(lines_with("more authentication failure"), 0);

    /* An unknown user: pam_unix's two lines, no user=, the name nowhere. */
    assert_int_equal(login("nosuchuser", WRONG), PAM_USER_UNKNOWN);
    snprintf(want, sizeof want,
             "pam_kdfhash(" HOST_SERVICE ":auth): authentication failure; logname= uid=%d "
             "euid=%d tty=ssh ruser= rhost=" RHOST " ",
             (int)getuid(), (int)geteuid());
    assert_int_equal(lines_with("): check pass; user unknown"), 1);
    if (lines_with(want) != 1) {
        dump_log();
        fail_msg("want \"%s\"", want);
    }
    {
        int exact = 0;

        for (size_t i = 0; i < host_log_count(); i++)
            exact += strcmp(host_log_get(i)->text, want) == 0;
        if (exact != 1)
            fail_msg("the unknown user's line has more after rhost=");
    }
    assert_false(host_log_contains("nosuchuser", 10));

    /* The other refusals a watcher bans for: locked, empty. */
    assert_int_equal(login("locked", PW), PAM_AUTH_ERR);
    assert_int_equal(lines_with("authentication failure; "), 1);
    assert_int_equal(lines_with("rhost=" RHOST "  user=locked"), 1);
    /* Not a refusal of the user's making: a broken entry is the admin's
     * to mend, and banning its owner's address would not mend it. */
    assert_int_equal(login("overcap", PW), PAM_AUTH_ERR);
    assert_int_equal(lines_with("authentication failure; "), 0);
}

/* ---- the events --------------------------------------------------------- */

/* The one record of this login: its event, its fields, nothing secret. */
static const struct jrec *
one_event(enum kdf_pam_event ev, const char *user, int prio)
{
    const struct jrec *r;
    char num[16];

    drain();
    if (g_nrec != 1) {
        dump_log();
        fail_msg("want one journal record (%s), got %d", kdf_pam_event_name(ev), g_nrec);
    }
    r = &g_rec[0];
    assert_string_equal(get(r, "MESSAGE_ID"), kdf_pam_event_id(ev));
    assert_int_equal(strlen(get(r, "MESSAGE_ID")), 32);
    assert_string_equal(get(r, "KDFHASH_EVENT"), kdf_pam_event_name(ev));
    snprintf(num, sizeof num, "%d", prio);
    assert_string_equal(get(r, "PRIORITY"), num);
    assert_string_equal(get(r, "SYSLOG_FACILITY"), "10"); /* authpriv */
    assert_string_equal(get(r, "PAM_SERVICE"), HOST_SERVICE);
    assert_string_equal(get(r, "RHOST"), RHOST);
    assert_non_null(get(r, "SYSLOG_IDENTIFIER"));
    assert_true(strncmp(get(r, "MESSAGE"), PREFIX, strlen(PREFIX)) == 0);
    if (user != NULL)
        assert_string_equal(get(r, "USER_NAME"), user);
    else
        assert_null(get(r, "USER_NAME"));
    /* Nothing secret: the passwords, nor any stored hash's salt or digest
     * (its last 16 characters and the 16 after the last parameter). */
    for (size_t i = 0; i + 8 <= r->raw_len; i++) {
        assert_true(memcmp(r->raw + i, PW, 8) != 0);
        assert_true(memcmp(r->raw + i, WRONG, 8) != 0);
    }
    for (int h = 0; h < H_COUNT; h++) {
        size_t n = strlen(g_hash[h]);

        for (size_t i = 0; i + 16 <= r->raw_len; i++)
            assert_true(memcmp(r->raw + i, g_hash[h] + n - 16, 16) != 0);
    }
    /* Sent to the journal alone: no syslog line beside it. */
    for (size_t i = 0; i < host_log_count(); i++)
        assert_string_not_equal(get(r, "MESSAGE"), host_log_get(i)->text);
    return r;
}

static void
test_events(void **state)
{
    const struct jrec *r;
    (void)state;

    journal_on();
    service("upgrade=off");

    /* refusal: a wrong password, then an unknown user (never named). */
    assert_int_equal(login("alice", WRONG), PAM_AUTH_ERR);
    r = one_event(KDF_PAM_EV_REFUSAL, "alice", LOG_NOTICE);
    assert_string_equal(get(r, "KDFHASH_SCHEME"), "argon2id");
    assert_string_equal(get(r, "KDFHASH_REASON"), "mismatch");
    assert_string_equal(get(r, "MESSAGE"), PREFIX "authentication failure for alice (argon2id)");
    /* pam_unix's line stays a syslog line, where fail2ban reads it. */
    assert_int_equal(lines_with("authentication failure; "), 1);
    assert_int_equal(lines_with("authentication failure for alice"), 0);

    assert_int_equal(login("nosuchuser", WRONG), PAM_USER_UNKNOWN);
    r = one_event(KDF_PAM_EV_REFUSAL, NULL, LOG_NOTICE);
    assert_string_equal(get(r, "KDFHASH_REASON"), "unknown-user");
    assert_null(memmem(r->raw, r->raw_len, "nosuchuser", 10));

    /* over-cap: bcrypt cost 17 against max.bcrypt. */
    assert_int_equal(login("overcap", PW), PAM_AUTH_ERR);
    r = one_event(KDF_PAM_EV_OVER_CAP, "overcap", LOG_ERR);
    assert_string_equal(get(r, "KDFHASH_SCHEME"), "bcrypt");
    assert_non_null(get(r, "KDFHASH_REASON"));

    /* key-missing: keyed with a key the key directory does not hold. */
    assert_int_equal(login("keyed", PW), PAM_AUTH_ERR);
    r = one_event(KDF_PAM_EV_KEY_MISSING, "keyed", LOG_ERR);
    assert_string_equal(get(r, "KDFHASH_SCHEME"), "argon2id");

    /* degraded: a bad argument; the login goes on. */
    service("upgrade=off frobnicate");
    assert_int_equal(login("alice", PW), PAM_SUCCESS);
    r = one_event(KDF_PAM_EV_DEGRADED, NULL, LOG_ERR);
    assert_string_equal(get(r, "KDFHASH_REASON"), "bad-argument");
    assert_non_null(strstr(get(r, "MESSAGE"), "frobnicate"));

    /* upgrade: bcrypt to the target at a right password. */
    service("");
    assert_int_equal(login("bob", PW), PAM_SUCCESS);
    r = one_event(KDF_PAM_EV_UPGRADE, "bob", LOG_NOTICE);
    assert_string_equal(get(r, "KDFHASH_SCHEME"), "bcrypt");
    assert_string_equal(get(r, "KDFHASH_TARGET"), "argon2id");
    assert_non_null(strstr(get(r, "MESSAGE"), "upgraded bob from bcrypt to argon2id"));

    /* upgrade-failed: the same, with the file's directory not writable
     * (root writes anyway: then the case says nothing). */
    if (geteuid() != 0) {
        write_shadow();
        assert_int_equal(chmod(g_dir, 0500), 0);
        assert_int_equal(login("bob", PW), PAM_SUCCESS);
        assert_int_equal(chmod(g_dir, 0700), 0);
        r = one_event(KDF_PAM_EV_UPGRADE_FAILED, "bob", LOG_WARNING);
        assert_string_equal(get(r, "KDFHASH_SCHEME"), "bcrypt");
    }
    write_shadow();
    drain();
}

/* busy: sent by kdf_pam_event() as check_entry() sends it, with a user
 * name holding a newline to see the binary form. */
static void
test_event_direct(void **state)
{
    struct host_conv c = {PW, 0, PAM_SUCCESS, 0};
    struct pam_conv pc = {host_conv_fn, &c};
    struct kdf_pam_event_fields f = {"a\nb", "argon2id", NULL, "busy"};
    pam_handle_t *pamh = NULL;
    const struct jrec *r;
    int binary = 0;
    (void)state;

    journal_on();
    drain();
    assert_int_equal(pam_start_confdir(HOST_SERVICE, "x", &pc, g_dir, &pamh), PAM_SUCCESS);
    assert_int_equal(pam_set_item(pamh, PAM_RHOST, RHOST), PAM_SUCCESS);
    host_log_reset();
    kdf_pam_event(pamh, "auth", KDF_PAM_EV_BUSY, LOG_ERR, &f, "cannot verify %s (%s): %s",
                  "x", "argon2id", "busy");
    pam_end(pamh, PAM_SUCCESS);
    r = one_event(KDF_PAM_EV_BUSY, "a\nb", LOG_ERR);
    assert_string_equal(get(r, "KDFHASH_REASON"), "busy");
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->f[i].key, "USER_NAME") == 0)
            binary = r->f[i].binary;
    assert_true(binary);
}

/* Without journald every event of a login is its syslog line. */
static void
test_no_journal(void **state)
{
    (void)state;

    journal_off();
    service("upgrade=off");
    assert_int_equal(login("overcap", PW), PAM_AUTH_ERR);
    assert_int_equal(lines_with("parameters exceed policy"), 1);
    assert_int_equal(login("alice", WRONG), PAM_AUTH_ERR);
    assert_int_equal(lines_with("authentication failure for alice (argon2id)"), 1);
    drain();
    assert_int_equal(g_nrec, 0);
}

/* ---- the man page ------------------------------------------------------- */

/* pam_kdfhash(8) lists each event of events.h as "*NAME*: MESSAGE_ID=ID",
 * once, and names no MESSAGE_ID that is not in the list. */
static void
test_man_page(void **state)
{
    size_t n;
    char *page = host_read(TOP_SRCDIR "/doc/pam_kdfhash.8.scd", &n);
    char *line, *save = NULL;
    int seen[KDF_PAM_EV_COUNT] = {0};
    (void)state;

    assert_non_null(page);
    for (line = strtok_r(page, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        for (char *m = strstr(line, "MESSAGE_ID="); m != NULL; m = strstr(m + 1, "MESSAGE_ID=")) {
            int known = 0;

            if (strspn(m + 11, "0123456789abcdef") != 32)
                continue; /* the field's name in prose */
            for (int e = 0; e < KDF_PAM_EV_COUNT; e++) {
                const char *id = kdf_pam_event_id((enum kdf_pam_event)e);
                char head[64];

                if (strncmp(m + 11, id, 32) != 0)
                    continue;
                known = 1;
                snprintf(head, sizeof head, "*%s*: MESSAGE_ID=%s",
                         kdf_pam_event_name((enum kdf_pam_event)e), id);
                seen[e] += strcmp(line, head) == 0;
            }
            if (!known)
                fail_msg("pam_kdfhash.8.scd names a MESSAGE_ID not in events.h: %.43s", m);
        }
    }
    free(page);
    for (int e = 0; e < KDF_PAM_EV_COUNT; e++)
        if (seen[e] != 1)
            fail_msg("pam_kdfhash.8.scd lists \"*%s*: MESSAGE_ID=...\" %d times, want 1",
                     kdf_pam_event_name((enum kdf_pam_event)e), seen[e]);
}

/* ---- fixture ------------------------------------------------------------ */

static void
write_shadow(void)
{
    char *text;

    /* The keyed entry: pam_fixture.c's (libargon2 with the secret set). */
    if (asprintf(&text,
                 "alice:%s:19000:0:99999:7:::\nbob:%s:19000:0:99999:7:::\n"
                 "locked:!%s:19000:0:99999:7:::\novercap:%s:19000:0:99999:7:::\n"
                 "keyed:$argon2id$v=19$m=8,t=1,p=1,keyid=5ykChnXa$BytvzpWziZWqIKa7mpE2Rw$"
                 "qu4LCeWlzVNz1lcWXnreAvp2DWorDMGLmlwz17U0e40:19000:0:99999:7:::\n",
                 g_hash[H_a2id], g_hash[H_bc2b], g_hash[H_a2id], g_hash[H_cap_bcrypt]) < 0)
        fail();
    host_write(g_shadow, text, strlen(text));
    free(text);
}

static int
setup(void **state)
{
    struct sockaddr_un sa;
    int rcvbuf = 1 << 20;
    (void)state;

    g_dir = host_tmpdir();
    snprintf(g_shadow, sizeof g_shadow, "%s/shadow", g_dir);
    snprintf(g_conf, sizeof g_conf, "%s/kdfhash.conf", g_dir);
    snprintf(g_keys, sizeof g_keys, "%s/keys", g_dir);
    snprintf(g_sock, sizeof g_sock, "%s/journal", g_dir);
    host_write(g_conf, "", 0);
    write_shadow();
    g_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (g_fd < 0)
        return -1;
    (void)setsockopt(g_fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(g_sock) >= sizeof sa.sun_path)
        return -1;
    memcpy(sa.sun_path, g_sock, strlen(g_sock));
    return bind(g_fd, (struct sockaddr *)&sa, sizeof sa);
}

static int
teardown(void **state)
{
    (void)state;
    if (g_fd >= 0)
        close(g_fd);
    host_rmtree(g_dir);
    free(g_dir);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unix_lines), cmocka_unit_test(test_events),
        cmocka_unit_test(test_event_direct), cmocka_unit_test(test_no_journal),
        cmocka_unit_test(test_man_page),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
