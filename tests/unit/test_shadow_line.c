/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_shadow_line.c - the shared reading of shadow-style lines
 * (accounts/shadow_line.c) and the agreement of its three users.
 *   - kdf_shadow_split(): fields, CR, missing and surplus fields, empty and
 *     locked field 2, comments, lines without ':', NUL bytes, the
 *     KDF_SHADOW_MAX_LINE bound
 *   - kdf_shadow_next()/kdf_shadow_find(): line ends, a last line without
 *     newline, duplicates
 *   - kdf_shadow_name_ok(), kdf_shadow_hash_ok() and kdf_shadow_field_ok()
 *   - kdf_shadow_read_fd(), the stream reader of the lookup and the audit:
 *     the lines kdf_shadow_next() finds in the same bytes, from a file and
 *     from a pipe that hands them over in odd pieces; lines over the bound
 *     once and cut; a read error
 *   - one fixture of tricky lines read by the module's lookup
 *     (kdf_lookup_user), rewritten by its writer (kdf_write_hash) and
 *     reported by `kdfhash audit --json`: for every user, all three pick
 *     the same line or none; a field 2 too long or holding a NUL, which the
 *     lookup refuses and the audit reports as malformed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "kdfhash.h"
#include "lookup.h"
#include "shadow_line.h"
#include "upgrade.h"

#define S(lit) (lit), sizeof(lit) - 1

static void
assert_span(const struct kdf_span *sp, const char *want, size_t want_len)
{
    assert_int_equal(sp->len, want_len);
    assert_memory_equal(sp->ptr, want, want_len);
}
#define assert_span_str(sp, lit) assert_span((sp), S(lit))

/* ---- kdf_shadow_split ---- */

static void
test_split_full_line(void **state)
{
    static const char line[] = "alice:$6$salt$hash:19000:0:99999:7:30:20000:";
    static const char *const want[] = {"alice", "$6$salt$hash", "19000", "0", "99999",
                                       "7",     "30",           "20000", ""};
    struct kdf_shadow_line l;

    (void)state;
    kdf_shadow_split(S(line), &l);
    assert_int_equal(l.kind, KDF_SHADOW_ENTRY);
    assert_int_equal(l.nfields, 9);
    assert_span(&l.text, S(line));
    for (unsigned i = 0; i < 9; i++)
        assert_span(&l.field[i], want[i], strlen(want[i]));
    assert_true(kdf_shadow_is(&l, S("alice")));
    assert_false(kdf_shadow_is(&l, S("alic")));
    assert_false(kdf_shadow_is(&l, S("alice:")));
    assert_false(kdf_shadow_is(&l, S("Alice")));
}

static void
test_split_cr(void **state)
{
    struct kdf_shadow_line l;

    (void)state;
    /* One CR before the line end is the line end, not field data. */
    kdf_shadow_split(S("bob:hash\r"), &l);
    assert_int_equal(l.kind, KDF_SHADOW_ENTRY);
    assert_span_str(&l.text, "bob:hash");
    assert_span_str(&l.field[1], "hash");
    kdf_shadow_split(S("bob:hash:1:2:3:4:5:6:\r"), &l);
    assert_int_equal(l.nfields, 9);
    assert_span_str(&l.field[1], "hash");
    assert_span_str(&l.field[8], "");
    /* Only one: a second CR is data (the lookup never dropped more). */
    kdf_shadow_split(S("bob:hash\r\r"), &l);
    assert_span_str(&l.field[1], "hash\r");
    /* A CR inside a line is data too, and in field 1 it makes a name no
     * accepted user name can equal. */
    kdf_shadow_split(S("bo\rb:hash"), &l);
    assert_int_equal(l.kind, KDF_SHADOW_ENTRY);
    assert_span_str(&l.field[0], "bo\rb");
    assert_false(kdf_shadow_name_span_ok(l.field[0].ptr, l.field[0].len));
    kdf_shadow_split(S("\r"), &l);
    assert_int_equal(l.kind, KDF_SHADOW_BLANK);
    kdf_shadow_split(S("bob\r"), &l);
    assert_int_equal(l.kind, KDF_SHADOW_NO_COLON);
}

static void
test_split_missing_and_surplus_fields(void **state)
{
    struct kdf_shadow_line l;

    (void)state;
    kdf_shadow_split(S("carol:hash"), &l);
    assert_int_equal(l.kind, KDF_SHADOW_ENTRY);
    assert_int_equal(l.nfields, 2);
    assert_span_str(&l.field[1], "hash");
    /* Absent fields: empty, at the end of the text (never NULL). */
    for (unsigned i = 2; i < KDF_SHADOW_FIELDS; i++) {
        assert_int_equal(l.field[i].len, 0);
        assert_ptr_equal(l.field[i].ptr, l.text.ptr + l.text.len);
    }
    kdf_shadow_split(S("carol:"), &l);
    assert_int_equal(l.nfields, 2);
    assert_span_str(&l.field[1], "");
    kdf_shadow_split(S("carol:h:"), &l);
    assert_int_equal(l.nfields, 3);
    assert_span_str(&l.field[2], "");
    /* Field 9 runs to the line end, later ':' included. */
    kdf_shadow_split(S("c:h:1:2:3:4:5:6:7:8:9"), &l);
    assert_int_equal(l.nfields, 9);
    assert_span_str(&l.field[7], "6");
    assert_span_str(&l.field[8], "7:8:9");
    /* An empty name is an entry of nobody. */
    kdf_shadow_split(S(":hash"), &l);
    assert_int_equal(l.kind, KDF_SHADOW_ENTRY);
    assert_span_str(&l.field[0], "");
    assert_false(kdf_shadow_name_span_ok(l.field[0].ptr, l.field[0].len));
}

static void
test_split_empty_and_locked_hash(void **state)
{
    struct kdf_shadow_line l;

    (void)state;
    kdf_shadow_split(S("nopw::19000::::::"), &l);
    assert_int_equal(l.kind, KDF_SHADOW_ENTRY);
    assert_span_str(&l.field[1], "");
    assert_span_str(&l.field[2], "19000");
    /* Lock markers are field data to the scanner; the verdict reads them. */
    kdf_shadow_split(S("root:!$6$x$y:1"), &l);
    assert_span_str(&l.field[1], "!$6$x$y");
    kdf_shadow_split(S("daemon:*:1"), &l);
    assert_span_str(&l.field[1], "*");
    kdf_shadow_split(S("gone:!:1"), &l);
    assert_span_str(&l.field[1], "!");
}

static void
test_split_kinds(void **state)
{
    struct kdf_shadow_line l;

    (void)state;
    kdf_shadow_split("", 0, &l);
    assert_int_equal(l.kind, KDF_SHADOW_BLANK);
    assert_int_equal(l.nfields, 0);
    kdf_shadow_split(S("# alice:x:1"), &l);
    assert_int_equal(l.kind, KDF_SHADOW_COMMENT);
    assert_false(kdf_shadow_is(&l, S("# alice")));
    kdf_shadow_split(S("#alice:x"), &l);
    assert_int_equal(l.kind, KDF_SHADOW_COMMENT);
    assert_false(kdf_shadow_is(&l, S("#alice")));
    kdf_shadow_split(S("no colon here"), &l);
    assert_int_equal(l.kind, KDF_SHADOW_NO_COLON);
    assert_int_equal(l.nfields, 0);
    /* Only a '#' in the first byte makes a comment. */
    kdf_shadow_split(S(" #x:y"), &l);
    assert_int_equal(l.kind, KDF_SHADOW_ENTRY);
    assert_span_str(&l.field[0], " #x");
    kdf_shadow_split(S("+nis::::::::"), &l);
    assert_int_equal(l.kind, KDF_SHADOW_ENTRY);
    assert_false(kdf_shadow_name_span_ok(l.field[0].ptr, l.field[0].len));
}

static void
test_split_nul_bytes(void **state)
{
    static const char line[] = "ev\0il:ha\0sh:1";
    struct kdf_shadow_line l;

    (void)state;
    kdf_shadow_split(line, sizeof line - 1, &l);
    assert_int_equal(l.kind, KDF_SHADOW_ENTRY);
    assert_span(&l.field[0], "ev\0il", 5);
    assert_span(&l.field[1], "ha\0sh", 5);
    assert_false(kdf_shadow_is(&l, S("ev")));
    assert_false(kdf_shadow_name_span_ok(l.field[0].ptr, l.field[0].len));
}

static void
test_split_bound(void **state)
{
    size_t max = KDF_SHADOW_MAX_LINE;
    char *b = malloc(max + 2);
    struct kdf_shadow_line l;

    (void)state;
    assert_non_null(b);
    memcpy(b, "big:h:", 6);
    memset(b + 6, '0', max + 2 - 6);
    /* Exactly at the bound: an entry. */
    kdf_shadow_split(b, max, &l);
    assert_int_equal(l.kind, KDF_SHADOW_ENTRY);
    assert_true(kdf_shadow_is(&l, S("big")));
    assert_int_equal(l.field[2].len, max - 6);
    /* A CR counts: the bound is on the bytes before the '\n'. */
    b[max] = '\r';
    kdf_shadow_split(b, max + 1, &l);
    assert_int_equal(l.kind, KDF_SHADOW_OVERLONG);
    b[max] = '0';
    /* One over: nobody's entry; field 1 is kept for reports only. */
    kdf_shadow_split(b, max + 1, &l);
    assert_int_equal(l.kind, KDF_SHADOW_OVERLONG);
    assert_int_equal(l.nfields, 1);
    assert_span_str(&l.field[0], "big");
    assert_false(kdf_shadow_is(&l, S("big")));
    /* No ':' within the bound: not even a name. */
    memset(b, 'x', max + 2);
    b[max] = ':';
    kdf_shadow_split(b, max + 2, &l);
    assert_int_equal(l.kind, KDF_SHADOW_OVERLONG);
    assert_int_equal(l.nfields, 0);
    free(b);
}

/* ---- kdf_shadow_next, kdf_shadow_find ---- */

static size_t
count_lines(const char *buf, size_t len)
{
    struct kdf_shadow_line l;
    size_t pos = 0, n = 0;

    while (kdf_shadow_next(buf, len, &pos, &l))
        n++;
    assert_int_equal(pos, len);
    return n;
}

static void
test_next_line_ends(void **state)
{
    static const char f[] = "a:1\r\n\n#c\nlast:2";
    struct kdf_shadow_line l;
    size_t pos = 0;

    (void)state;
    assert_int_equal(count_lines("", 0), 0);
    assert_int_equal(count_lines(S("\n")), 1);
    assert_int_equal(count_lines(S("a:1\n")), 1);
    assert_int_equal(count_lines(S("a:1")), 1);
    assert_int_equal(count_lines(S("a\n\nb")), 3);

    assert_true(kdf_shadow_next(S(f), &pos, &l));
    assert_int_equal(l.kind, KDF_SHADOW_ENTRY);
    assert_span_str(&l.field[1], "1");
    assert_true(kdf_shadow_next(S(f), &pos, &l));
    assert_int_equal(l.kind, KDF_SHADOW_BLANK);
    assert_true(kdf_shadow_next(S(f), &pos, &l));
    assert_int_equal(l.kind, KDF_SHADOW_COMMENT);
    /* The last line has no newline and still counts. */
    assert_true(kdf_shadow_next(S(f), &pos, &l));
    assert_true(kdf_shadow_is(&l, S("last")));
    assert_span_str(&l.field[1], "2");
    assert_false(kdf_shadow_next(S(f), &pos, &l));
    /* A last line ending in CR without LF: the CR is still the line end. */
    pos = 0;
    assert_true(kdf_shadow_next(S("z:h\r"), &pos, &l));
    assert_span_str(&l.field[1], "h");
}

static void
test_find_duplicates(void **state)
{
    static const char f[] = "a:1\nb:2\na:3\n#a:4\nab:5\na\n";
    struct kdf_shadow_line l;

    (void)state;
    assert_int_equal(kdf_shadow_find(S(f), S("a"), &l), 2);
    assert_span_str(&l.field[1], "1"); /* the first */
    assert_int_equal(kdf_shadow_find(S(f), S("b"), &l), 1);
    assert_span_str(&l.field[1], "2");
    assert_int_equal(kdf_shadow_find(S(f), S("ab"), NULL), 1);
    assert_int_equal(kdf_shadow_find(S(f), S("c"), NULL), 0);
    assert_int_equal(kdf_shadow_find(S(f), S("#a"), NULL), 0);
}

/* ---- the checks ---- */

static void
test_name_ok(void **state)
{
    char name[KDF_SHADOW_MAX_NAME + 2];

    (void)state;
    assert_true(kdf_shadow_name_ok("alice"));
    assert_true(kdf_shadow_name_ok("a b"));           /* space: an odd but plain byte */
    assert_true(kdf_shadow_name_ok("\xc3\xa9t\xc3\xa9")); /* non-ASCII */
    assert_true(kdf_shadow_name_ok("a-b+c#d"));
    assert_false(kdf_shadow_name_ok(NULL));
    assert_false(kdf_shadow_name_ok(""));
    assert_false(kdf_shadow_name_ok("a:b"));
    assert_false(kdf_shadow_name_ok("a\nb"));
    assert_false(kdf_shadow_name_ok("a\rb"));
    assert_false(kdf_shadow_name_ok("alice\r"));
    assert_false(kdf_shadow_name_ok("+nis"));
    assert_false(kdf_shadow_name_ok("-nis"));
    assert_false(kdf_shadow_name_ok("#comment"));
    memset(name, 'n', sizeof name);
    name[KDF_SHADOW_MAX_NAME] = '\0';
    assert_true(kdf_shadow_name_ok(name));
    name[KDF_SHADOW_MAX_NAME] = 'n';
    name[KDF_SHADOW_MAX_NAME + 1] = '\0';
    assert_false(kdf_shadow_name_ok(name)); /* over-long */
    assert_true(kdf_shadow_name_span_ok(S("alice")));
    assert_false(kdf_shadow_name_span_ok("al\0ce", 5));
    assert_false(kdf_shadow_name_span_ok("alice", 0));
}

static void
test_hash_ok(void **state)
{
    char h[KDF_SHADOW_MAX_HASH + 2];

    (void)state;
    assert_true(kdf_shadow_hash_ok("$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA"));
    assert_true(kdf_shadow_hash_ok("$2b$05$abcdefghijklmnopqrstuu"));
    assert_false(kdf_shadow_hash_ok(NULL));
    assert_false(kdf_shadow_hash_ok(""));
    assert_false(kdf_shadow_hash_ok("a:b"));
    assert_false(kdf_shadow_hash_ok("ab\n"));
    assert_false(kdf_shadow_hash_ok("ab\r"));
    assert_false(kdf_shadow_hash_ok("a b"));
    assert_false(kdf_shadow_hash_ok("a\tb"));
    assert_false(kdf_shadow_hash_ok("a\x7f"));
    assert_false(kdf_shadow_hash_ok("\xc3\xa9"));
    assert_false(kdf_shadow_hash_ok("!$6$x$y"));
    assert_false(kdf_shadow_hash_ok("*"));
    assert_true(kdf_shadow_hash_ok("x!*")); /* only a leading marker locks */
    memset(h, 'h', sizeof h);
    h[KDF_SHADOW_MAX_HASH] = '\0';
    assert_true(kdf_shadow_hash_ok(h));
    h[KDF_SHADOW_MAX_HASH] = 'h';
    h[KDF_SHADOW_MAX_HASH + 1] = '\0';
    assert_false(kdf_shadow_hash_ok(h));
}

static void
test_field_ok(void **state)
{
    static char h[KDF_SHADOW_MAX_HASH + 1];
    struct kdf_span f = {"$6$salt$hash", 12};

    (void)state;
    assert_true(kdf_shadow_field_ok(&f));
    f.len = 0;
    assert_true(kdf_shadow_field_ok(&f)); /* empty: the parser's case */
    f.ptr = "!lo\0cked";
    f.len = 9;
    assert_false(kdf_shadow_field_ok(&f)); /* a lock marker first changes nothing */
    memset(h, '!', sizeof h);
    f.ptr = h;
    f.len = KDF_SHADOW_MAX_HASH;
    assert_true(kdf_shadow_field_ok(&f));
    f.len = KDF_SHADOW_MAX_HASH + 1;
    assert_false(kdf_shadow_field_ok(&f));
}

/* ---- lookup, writer and audit on one file ---- */

#define NEWH "NEWHASH"

static char g_dir[PATH_MAX];

static int
setup_dir(void **state)
{
    const char *tmp = getenv("TMPDIR");

    (void)state;
    snprintf(g_dir, sizeof g_dir, "%s/test_shadow_line.XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    return mkdtemp(g_dir) != NULL ? 0 : -1;
}

static int
teardown_dir(void **state)
{
    char cmd[PATH_MAX + 16];

    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

struct buf {
    char *p;
    size_t len, cap;
};

static void
put(struct buf *b, const char *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void
put_fill(struct buf *b, char c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(b, &c, 1);
}

static void
write_file(const char *path, const char *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, p, n), (ssize_t)n);
    assert_int_equal(close(fd), 0);
}

static char *
read_file(const char *path, size_t *len)
{
    struct buf b = {NULL, 0, 0};
    char chunk[65536];
    ssize_t r;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    assert_true(fd >= 0);
    while ((r = read(fd, chunk, sizeof chunk)) > 0)
        put(&b, chunk, (size_t)r);
    assert_int_equal(r, 0);
    close(fd);
    put(&b, "", 1);
    *len = b.len - 1;
    return b.p;
}

/* The tricky lines, one per row (the file is their concatenation). */
static void
build_fixture(struct buf *b)
{
    size_t max = KDF_SHADOW_MAX_LINE;

    put(b, S("# comment:with:colons\n"));                     /* 1 */
    put(b, S("alice:HA:19000:0:99999:7:::\n"));               /* 2 */
    put(b, S("bob:HB\r\n"));                                  /* 3 CRLF */
    put(b, S("carol:HC:1:2:3:4:5:6:7:extra:more\n"));         /* 4 */
    put(b, S("dave:HD\n"));                                   /* 5 two fields */
    put(b, S("dup:H1:1\n"));                                  /* 6 */
    put(b, S("dup:H2:1\n"));                                  /* 7 */
    put(b, S("erin:"));                                       /* 8 over-long */
    put_fill(b, 'A', 70000);
    put(b, S(":1\n"));
    put(b, S("erin:HE:1\n"));                                 /* 9 */
    put(b, S("+nis::::::::\n"));                              /* 10 */
    put(b, S("sp ace:HS\n"));                                 /* 11 */
    put(b, S("r\r:HR\n"));                                    /* 12 CR in name */
    put(b, S("\xc3\xa9t\xc3\xa9:HU\n"));                      /* 13 */
    put(b, "nul\0x:HN\n", 9);                                 /* 14 NUL in name */
    put(b, S("empty::1\n"));                                  /* 15 */
    put(b, S("locked:!HL:1\n"));                              /* 16 */
    put(b, S("frank\n"));                                     /* 17 */
    put(b, S("#hash:HX\n"));                                  /* 18 */
    put(b, S(":nobody\n"));                                   /* 19 */
    put(b, S("big:HBIG:"));                                   /* 20 at the bound */
    put_fill(b, '0', max - 9);
    put(b, S("\n"));
    put(b, S("big2:HBIG2:"));                                 /* 21 one over */
    put_fill(b, '0', max + 1 - 11);
    put(b, S("\n"));
    put(b, S("big3:HBIG3:"));                                 /* 22 over with its CR */
    put_fill(b, '0', max - 11);
    put(b, S("\r\n"));
    put(b, S("\n"));                                          /* 23 */
    put(b, S("last:HZ"));                                     /* 24 no newline */
}

struct expect {
    const char *user;
    unsigned long line; /* 0: nobody's line */
    const char *hash;   /* field 2 of that line */
};
static const struct expect g_expect[] = {
    {"alice", 2, "HA"},
    {"bob", 3, "HB"},
    {"carol", 4, "HC"},
    {"dave", 5, "HD"},
    {"dup", 0, NULL},
    {"erin", 9, "HE"},
    {"+nis", 0, NULL},
    {"sp ace", 11, "HS"},
    {"r\r", 0, NULL},
    {"r", 0, NULL},
    {"\xc3\xa9t\xc3\xa9", 13, "HU"},
    {"nul", 0, NULL},
    {"empty", 15, ""},
    {"locked", 16, "!HL"},
    {"frank", 0, NULL},
    {"#hash", 0, NULL},
    {"# comment", 0, NULL},
    {"big", 20, "HBIG"},
    {"big2", 0, NULL},
    {"big3", 0, NULL},
    {"last", 24, "HZ"},
    {"nobody", 0, NULL},
};

/* The 1-based number of the one line that differs between a and b (the
 * rewritten one), 0 if none; fails when several do. */
static unsigned long
changed_line(const char *a, size_t alen, const char *b, size_t blen)
{
    struct kdf_shadow_line la, lb;
    size_t pa = 0, pb = 0;
    unsigned long n = 0, found = 0;

    for (;;) {
        int ha = kdf_shadow_next(a, alen, &pa, &la), hb = kdf_shadow_next(b, blen, &pb, &lb);

        assert_int_equal(ha, hb);
        if (!ha)
            return found;
        n++;
        if (la.text.len != lb.text.len || memcmp(la.text.ptr, lb.text.ptr, la.text.len) != 0) {
            assert_int_equal(found, 0);
            found = n;
        }
    }
}

/* Which line the writer rewrites for user, 0 when it refuses to: the file
 * is restored after each run. */
static unsigned long
writer_line(const char *path, const char *orig, size_t olen, const char *user,
            const char *old_hash)
{
    char err[256];
    char *got;
    size_t glen;
    unsigned long line;
    enum kdf_write_status st;

    write_file(path, orig, olen);
    st = kdf_write_hash(path, NULL, user, old_hash != NULL ? old_hash : "none", NEWH, 500,
                        err, sizeof err);
    got = read_file(path, &glen);
    if (st != KDF_WRITE_OK) {
        /* Refused: nothing found, never "found but changed" (that would be
         * a line the lookup did not pick). */
        assert_int_equal(st, KDF_WRITE_NOT_FOUND);
        assert_int_equal(glen, olen);
        assert_memory_equal(got, orig, olen);
        free(got);
        return 0;
    }
    line = changed_line(orig, olen, got, glen);
    free(got);
    write_file(path, orig, olen);
    return line;
}

/* Decode the JSON string at *p (after its opening quote) into out. */
static size_t
json_string(const char **p, char *out, size_t cap)
{
    size_t n = 0;
    const char *s = *p;

    while (*s != '"') {
        unsigned v;
        char c = *s++;

        assert_int_not_equal(c, '\0');
        if (c == '\\') {
            c = *s++;
            if (c == 'u') {
                assert_int_equal(sscanf(s, "%4x", &v), 1);
                c = (char)v;
                s += 4;
            }
        }
        assert_true(n < cap);
        out[n++] = c;
    }
    *p = s + 1;
    return n;
}

/* The lines `kdfhash audit --json` gives as user's usable account: a line
 * reported with the name, unless the report says the module refuses it
 * (a name it never looks up, NIS, a duplicate, a line over the bound).  A
 * duplicate reported makes every line of the name unusable.  Returns the
 * one line, 0 for none; -1 when audit cannot run here. */
static long
audit_line_of(const char *json, const char *user)
{
    const char *p = json;
    long line = 0;
    int n = 0, dup = 0;

    while ((p = strstr(p, "{\"line\": ")) != NULL) {
        unsigned long ln = strtoul(p + 9, NULL, 10);
        char name[KDF_SHADOW_MAX_NAME * 2 + 8];
        size_t nlen;
        const char *reason;

        p = strstr(p, "\"user\": \"");
        assert_non_null(p);
        p += 9;
        nlen = json_string(&p, name, sizeof name);
        if (nlen != strlen(user) || memcmp(name, user, nlen) != 0)
            continue;
        reason = strstr(p, "\"reason\": \"");
        if (reason != NULL && reason < strchr(p, '}')) {
            if (strncmp(reason + 11, "user name on several lines", 26) == 0) {
                dup = 1;
                continue;
            }
            if (strncmp(reason + 11, "user name the module refuses", 28) == 0 ||
                strncmp(reason + 11, "NIS compat entry", 16) == 0 ||
                strncmp(reason + 11, "line longer than", 16) == 0)
                continue;
        }
        n++;
        line = (long)ln;
    }
    if (dup)
        return 0;
    assert_true(n <= 1);
    return line;
}

static char *
run_audit(const char *path)
{
    const char *top = getenv("top_builddir"), *src = getenv("top_srcdir");
    char cmd[3 * PATH_MAX];
    struct buf b = {NULL, 0, 0};
    char chunk[4096];
    size_t r;
    FILE *f;

    if (top == NULL || src == NULL)
        return NULL;
    snprintf(cmd, sizeof cmd, "'%s/cli/kdfhash' audit --json --conf '%s/packaging/kdfhash.conf' '%s'",
             top, src, path);
    f = popen(cmd, "r");
    assert_non_null(f);
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0)
        put(&b, chunk, r);
    /* Exit 1: the fixture holds malformed lines on purpose. */
    assert_int_equal(pclose(f), 1 << 8);
    put(&b, "", 1);
    return b.p;
}

/* ---- kdf_shadow_read_fd ---- */

/* What the stream reader hands on, checked line by line against
 * kdf_shadow_next() over the same bytes held whole. */
struct stream_check {
    const char *buf;
    size_t len, pos;
    unsigned long lines, overlong;
};

static void
span_equal(const struct kdf_span *a, const struct kdf_span *b)
{
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->ptr, b->ptr, a->len);
}

static void
check_line(void *arg, unsigned long lineno, const struct kdf_shadow_line *l)
{
    struct stream_check *c = arg;
    struct kdf_shadow_line w;

    assert_true(kdf_shadow_next(c->buf, c->len, &c->pos, &w));
    assert_int_equal(lineno, ++c->lines);
    assert_int_equal(l->kind, w.kind);
    assert_int_equal(l->nfields, w.nfields);
    if (w.kind == KDF_SHADOW_OVERLONG) {
        /* Cut to one byte over the bound, never held whole. */
        assert_true(l->text.len == KDF_SHADOW_MAX_LINE + 1 ||
                    (l->text.len == KDF_SHADOW_MAX_LINE &&
                     l->text.ptr[KDF_SHADOW_MAX_LINE] == '\r'));
        c->overlong++;
    } else {
        span_equal(&l->text, &w.text);
    }
    for (unsigned i = 0; i < w.nfields; i++)
        span_equal(&l->field[i], &w.field[i]);
}

/* The fixture of the agreement test behind lines that stress the buffer:
 * one three buffers long, one filling it exactly without a ':', NUL bytes. */
static void
build_stream_fixture(struct buf *b)
{
    size_t cap = KDF_SHADOW_MAX_LINE + 1;

    put(b, S("huge:"));
    put_fill(b, 'h', 3 * cap);
    put(b, S(":1\n"));
    put_fill(b, 'x', cap);
    put(b, S("\n"));
    put(b, "n\0l:h\0:\0\n", 9);
    put(b, S("after:HA\n"));
    build_fixture(b);
}

static void
expect_stream(const struct buf *fx, const struct stream_check *c)
{
    struct kdf_shadow_line l;
    size_t pos = c->pos;

    assert_false(kdf_shadow_next(fx->p, fx->len, &pos, &l)); /* every line came */
    assert_int_equal(c->overlong, 5); /* huge, the x line, erin, big2, big3 */
}

static void
test_read_fd_file(void **state)
{
    struct buf fx = {NULL, 0, 0};
    struct stream_check c = {0};
    char path[PATH_MAX + 16];
    int fd;

    (void)state;
    build_stream_fixture(&fx);
    snprintf(path, sizeof path, "%s/stream", g_dir);
    write_file(path, fx.p, fx.len);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    c.buf = fx.p;
    c.len = fx.len;
    assert_int_equal(kdf_shadow_read_fd(fd, check_line, &c), KDF_SHADOW_READ_OK);
    close(fd);
    expect_stream(&fx, &c);
    free(fx.p);
}

static void
test_read_fd_pipe(void **state)
{
    struct buf fx = {NULL, 0, 0};
    struct stream_check c = {0};
    int p[2], ws;
    pid_t pid;

    (void)state;
    build_stream_fixture(&fx);
    assert_int_equal(pipe(p), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* Pieces of a size that divides nothing: every line end and the
         * buffer's edge fall inside some piece. */
        close(p[0]);
        for (size_t off = 0; off < fx.len;) {
            size_t n = fx.len - off < 4093 ? fx.len - off : 4093;
            ssize_t w = write(p[1], fx.p + off, n);
            if (w <= 0)
                _exit(1);
            off += (size_t)w;
        }
        _exit(0);
    }
    close(p[1]);
    c.buf = fx.p;
    c.len = fx.len;
    assert_int_equal(kdf_shadow_read_fd(p[0], check_line, &c), KDF_SHADOW_READ_OK);
    close(p[0]);
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    expect_stream(&fx, &c);
    free(fx.p);
}

static void
no_line(void *arg, unsigned long lineno, const struct kdf_shadow_line *l)
{
    (void)arg;
    (void)lineno;
    (void)l;
    fail_msg("a line from a read that failed");
}

static void
test_read_fd_error(void **state)
{
    int fd = open(g_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    (void)state;
    assert_true(fd >= 0);
    errno = 0;
    assert_int_equal(kdf_shadow_read_fd(fd, no_line, NULL), KDF_SHADOW_READ_ERR);
    assert_int_equal(errno, EISDIR);
    close(fd);
}

static void
test_lookup_writer_audit_agree(void **state)
{
    struct buf fx = {NULL, 0, 0};
    char path[PATH_MAX + 16];
    char *json;

    (void)state;
    build_fixture(&fx);
    snprintf(path, sizeof path, "%s/shadow", g_dir);
    write_file(path, fx.p, fx.len);
    json = run_audit(path);
    if (json == NULL)
        print_message("top_builddir/top_srcdir unset: audit not compared\n");

    for (size_t i = 0; i < sizeof g_expect / sizeof g_expect[0]; i++) {
        const struct expect *x = &g_expect[i];
        struct kdf_lookup_entry e;
        enum kdf_lookup_status ls = kdf_lookup_user(path, x->user, &e);
        unsigned long wl;

        if (x->line != 0) {
            assert_int_equal(ls, KDF_LOOKUP_FOUND);
            assert_string_equal(e.hash, x->hash);
        } else {
            assert_true(ls == KDF_LOOKUP_NOT_FOUND || ls == KDF_LOOKUP_DUPLICATE);
        }
        wl = writer_line(path, fx.p, fx.len, x->user, ls == KDF_LOOKUP_FOUND ? e.hash : NULL);
        assert_int_equal(wl, x->line);
        if (json != NULL)
            assert_int_equal(audit_line_of(json, x->user), (long)x->line);
        kdf_wipe(e.hash, sizeof e.hash);
    }
    free(json);
    free(fx.p);
}

/* The entry of user in the audit's JSON holds status and reason. */
static void
assert_audit_says(const char *json, const char *user, const char *status,
                  const char *reason)
{
    char key[128], want[256];
    const char *p, *end;

    snprintf(key, sizeof key, "\"user\": \"%s\"", user);
    p = strstr(json, key);
    assert_non_null(p);
    end = strchr(p, '}');
    assert_non_null(end);
    snprintf(want, sizeof want, "\"status\": \"%s\", \"reason\": \"%s\"", status, reason);
    p = strstr(p, want);
    assert_true(p != NULL && p < end);
}

/* A field 2 the lookup refuses (over KDF_SHADOW_MAX_HASH, or a NUL) is a
 * malformed entry for the audit too, even after a lock marker. */
static void
test_bad_field_lookup_audit_agree(void **state)
{
    static const char *const why = "password field too long or holding a NUL byte";
    struct buf fx = {NULL, 0, 0};
    struct kdf_lookup_entry e;
    char path[PATH_MAX + 16];
    char *json;

    (void)state;
    put(&fx, "nulh:$6$s\0lt$h:1\n", 17);
    put(&fx, S("longlock:!"));
    put_fill(&fx, 'x', KDF_SHADOW_MAX_HASH);
    put(&fx, S(":1\n"));
    put(&fx, S("fine:!HL:1\n"));
    snprintf(path, sizeof path, "%s/badfield", g_dir);
    write_file(path, fx.p, fx.len);

    assert_int_equal(kdf_lookup_user(path, "nulh", &e), KDF_LOOKUP_BAD_FIELD);
    assert_int_equal(kdf_lookup_user(path, "longlock", &e), KDF_LOOKUP_BAD_FIELD);
    assert_int_equal(kdf_lookup_user(path, "fine", &e), KDF_LOOKUP_FOUND);
    assert_string_equal(e.hash, "!HL");
    kdf_wipe(e.hash, sizeof e.hash);
    json = run_audit(path);
    if (json == NULL) {
        print_message("top_builddir/top_srcdir unset: audit not compared\n");
    } else {
        assert_audit_says(json, "nulh", "malformed", why);
        assert_audit_says(json, "longlock", "malformed", why);
        assert_non_null(strstr(json, "\"user\": \"fine\", \"scheme\": \"locked\""));
    }
    free(json);
    free(fx.p);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_full_line),
        cmocka_unit_test(test_split_cr),
        cmocka_unit_test(test_split_missing_and_surplus_fields),
        cmocka_unit_test(test_split_empty_and_locked_hash),
        cmocka_unit_test(test_split_kinds),
        cmocka_unit_test(test_split_nul_bytes),
        cmocka_unit_test(test_split_bound),
        cmocka_unit_test(test_next_line_ends),
        cmocka_unit_test(test_find_duplicates),
        cmocka_unit_test(test_name_ok),
        cmocka_unit_test(test_hash_ok),
        cmocka_unit_test(test_field_ok),
        cmocka_unit_test_setup_teardown(test_read_fd_file, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_read_fd_pipe, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_read_fd_error, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_lookup_writer_audit_agree, setup_dir,
                                        teardown_dir),
        cmocka_unit_test_setup_teardown(test_bad_field_lookup_audit_agree, setup_dir,
                                        teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
