/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_audit.c - `kdfhash audit [--conf FILE] [--format text|json|prometheus]
 * [--output FILE] [FILE]`: one line per account of a shadow-style file
 * (default /etc/shadow) and a summary, so that an admin can watch a
 * migration progress; or the summary's counts alone for Prometheus.  With
 * --offline-cache the file is pam_kdfhash's offline cache ("user:hash:day",
 * default KDF_OFFLINE_CACHE), and each entry's age since its last online
 * login is judged against offline.max-age as cache=validate judges it.
 *
 * Lines are read as the PAM module reads them (kdf_shadow_read_fd() and
 * kdf_shadow_split(), accounts/), so an account reported here is the entry
 * a login would use.  The file is streamed through one wiped line buffer:
 * a line over KDF_SHADOW_MAX_LINE is reported as malformed and skipped to
 * its end, never held whole.  Output
 * carries user names, scheme names, costs and statuses only: never a hash,
 * a salt or a digest (tests/cli/test_cli.sh greps for every such substring).
 * User names are escaped (\xNN in text, \u00NN in JSON) so that a crafted
 * name cannot forge output lines or terminal escapes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#include "cli.h"
#include "keystore.h"
#include "shadow_line.h"

#define AUDIT_MAX_GROUPS 512 /* distinct scheme+cost pairs counted by name */
#define AUDIT_MAX_KEYS 64    /* distinct keyid= values counted by name */

enum audit_status { A_OK, A_REHASH, A_LOCKED, A_EMPTY, A_MALFORMED, A_UNSUPPORTED,
                    A_OVERCAP, A_COUNT };
static const char *const g_status_names[A_COUNT] = {
    "ok", "rehash", "locked", "empty", "malformed", "unsupported", "over-cap",
};
#define REHASH_REASONS (KDF_REHASH_LAST + 1) /* enum kdf_rehash values */

struct audit_group {
    char key[96];
    unsigned long n;
};

enum audit_format { F_TEXT, F_JSON, F_PROM };

struct audit {
    const struct kdf_policy *pol;
    int json;               /* format F_JSON */
    int prom;               /* format F_PROM: the summary only */
    FILE *out;              /* standard output, or --output's temporary file */
    const char *path;       /* the file audited */
    double started;         /* the run's start, seconds since the epoch */
    struct timespec t0;     /* and on the monotonic clock, for its duration */
    unsigned long accounts;
    unsigned long status[A_COUNT];
    unsigned long reasons[REHASH_REASONS];
    struct audit_group groups[AUDIT_MAX_GROUPS];
    size_t ngroups;
    unsigned long other_groups; /* beyond AUDIT_MAX_GROUPS */
    /* Entries per key (keyid=), and those keyed with none. */
    struct {
        char id[KDF_KEYID_CAP];
        unsigned long n;
        enum kdf_key_state state;
    } keys[AUDIT_MAX_KEYS];
    size_t nkeys;
    unsigned long unkeyed, other_keys;
    unsigned long key_unusable; /* entries keyed with a key that cannot be used */
    unsigned long not_unix;     /* entries pam_unix (libxcrypt) cannot verify */
    int quiet;                  /* disable: count and name, print nothing */
    char stranded[1024];        /* disable: the first names of not_unix */
    size_t stranded_len;
    struct seen *seen;          /* names met so far (open addressing) */
    size_t nseen, seen_cap;
    /* --offline-cache: the line's age in days (-1: no day), today, and
     * the entries refused for their day (expired, none, in the future). */
    int offline;
    long age, today;
    unsigned long expired, undated;
};

/* A user name met on an earlier line. */
struct seen {
    char *name; /* NULL: empty slot */
    size_t len;
    unsigned long lineno;
};

static void
usage(FILE *f)
{
    fputs("Usage: kdfhash audit [--conf FILE] [--keys DIR] [--format text|json|prometheus]\n"
          "                     [--output FILE] [--offline-cache] [FILE|-]\n"
          "Report every account of a shadow-style FILE (default /etc/shadow):\n"
          "  USER SCHEME PARAMS STATUS\n"
          "STATUS is ok, rehash:REASON, locked, empty, malformed, unsupported or\n"
          "over-cap; then a summary per status, per scheme and cost, per key with its\n"
          "state (\"keyed with ID (missing): N\", \"unkeyed: N\"), and the number of\n"
          "entries pam_unix cannot verify (`kdfhash schemes --foreign-prefixes` lists\n"
          "their kinds).\n"
          "Hashes, salts and digests are never printed.  Lines over 64 KiB are\n"
          "malformed.\n"
          "  --conf FILE   policy file (default: the system kdfhash.conf if present)\n"
          "  --keys DIR    the key directory (default " KDF_KEYS_DIR ")\n"
          "  --format json (or --json)  one JSON document (accounts array and summary)\n"
          "  --format prometheus  the summary's counts in Prometheus's text format, for\n"
          "                node exporter's textfile collector (no user names)\n"
          "  --output FILE write to FILE through FILE.tmp.PID, fsync and rename; on an\n"
          "                error FILE is left as it was (prometheus: a run that cannot\n"
          "                read its input writes kdfhash_audit_up 0)\n"
          "  --offline-cache  FILE is pam_kdfhash's offline cache (default\n"
          "                " KDF_OFFLINE_CACHE "): each line also gets age:DAYS or\n"
          "                expired:DAYS (offline.max-age), or undated\n"
          "Exit status: 0 every account ok, locked or empty; 1 some account needs\n"
          "a rehash or is malformed, unsupported or over the caps, or is keyed with a\n"
          "key that cannot be used (missing, unreadable, refused); 2 error.\n",
          f);
}

/* Text: printable ASCII but space and backslash as is, the rest \xNN. */
static void
put_text(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c > 0x20 && c < 0x7f && c != '\\')
            fputc(c, f);
        else
            fprintf(f, "\\x%02x", c);
    }
}

/* JSON string: quotes, backslash and every byte outside printable ASCII
 * escaped as \u00XX (a byte-for-byte, always valid rendering). */
static void
put_json(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            fputc(c, f);
        else
            fprintf(f, "\\u%04x", c);
    }
    fputc('"', f);
}

/* One more entry keyed with h's key, or with none. */
static void
count_key(struct audit *a, const struct kdf_hash *h)
{
    size_t i = 0;

    if (h->keyid.len == 0 || h->keyid.len >= KDF_KEYID_CAP) {
        a->unkeyed++;
        return;
    }
    while (i < a->nkeys && !(strlen(a->keys[i].id) == h->keyid.len &&
                             memcmp(a->keys[i].id, h->keyid.ptr, h->keyid.len) == 0))
        i++;
    if (i == a->nkeys) {
        if (a->nkeys == AUDIT_MAX_KEYS) {
            a->other_keys++;
            return;
        }
        memcpy(a->keys[i].id, h->keyid.ptr, h->keyid.len);
        a->keys[i].id[h->keyid.len] = '\0';
        a->nkeys++;
    }
    a->keys[i].n++;
}

static void
count_group(struct audit *a, const char *scheme, const char *costs)
{
    char key[96];

    snprintf(key, sizeof key, "%s %s", scheme, costs);
    for (size_t i = 0; i < a->ngroups; i++) {
        if (strcmp(a->groups[i].key, key) == 0) {
            a->groups[i].n++;
            return;
        }
    }
    if (a->ngroups == AUDIT_MAX_GROUPS) {
        a->other_groups++;
        return;
    }
    memcpy(a->groups[a->ngroups].key, key, sizeof key);
    a->groups[a->ngroups++].n = 1;
}

/* Would cache=validate refuse the current line for its day (pam_module/
 * cache.c: older than offline.max-age, or more than a day ahead)? */
static int
offline_refused(const struct audit *a)
{
    return a->age < -1 || (a->pol->offline_max_age != 0 && a->age > (long)a->pol->offline_max_age);
}

/* --offline-cache: the age of an entry line from its field 3, counted. */
static void
offline_age(struct audit *a, const struct kdf_shadow_line *l)
{
    const struct kdf_span *f = &l->field[2];
    long day = 0;
    size_t i;

    for (i = 0; l->nfields >= 3 && i < f->len && i < 9 && f->ptr[i] >= '0' && f->ptr[i] <= '9';
         i++)
        day = day * 10 + (f->ptr[i] - '0');
    if (l->nfields < 3 || f->len == 0 || i != f->len) {
        a->age = -1;
        a->undated++;
        return;
    }
    a->age = a->today - day;
    /* More than a day ahead is refused too (-2); one day is slack. */
    if (a->age < 0)
        a->age = a->age < -1 ? -2 : 0;
    if (offline_refused(a))
        a->expired++;
}

static void
emit(struct audit *a, unsigned long lineno, const char *user, size_t ulen,
     const char *scheme, const char *params, enum audit_status st, enum kdf_rehash r,
     const char *reason)
{
    a->accounts++;
    a->status[st]++;
    if (st == A_REHASH && (unsigned)r < REHASH_REASONS)
        a->reasons[r]++;
    if (a->quiet || a->prom)
        return;
    if (a->json) {
        fprintf(a->out, "%s\n    {\"line\": %lu, \"user\": ", a->accounts > 1 ? "," : "", lineno);
        put_json(a->out, user, ulen);
        fprintf(a->out, ", \"scheme\": ");
        put_json(a->out, scheme, strlen(scheme));
        fprintf(a->out, ", \"params\": ");
        put_json(a->out, params, strlen(params));
        fprintf(a->out, ", \"status\": \"%s\"", g_status_names[st]);
        if (st == A_REHASH || reason != NULL)
            fprintf(a->out, ", \"reason\": \"%s\"",
                   st == A_REHASH ? kdf_rehash_reason(r) : reason);
        if (a->offline && a->age >= 0)
            fprintf(a->out, ", \"age_days\": %ld, \"expired\": %s", a->age,
                   offline_refused(a) ? "true" : "false");
        else if (a->offline && a->age < -1)
            fprintf(a->out, ", \"age_days\": null, \"future\": true, \"expired\": true");
        else if (a->offline)
            fprintf(a->out, ", \"age_days\": null, \"expired\": true");
        fputc('}', a->out);
        return;
    }
    put_text(a->out, user, ulen);
    fprintf(a->out, " %s %s ", scheme, params);
    if (st == A_REHASH)
        fprintf(a->out, "rehash:%s", kdf_rehash_reason(r));
    else
        fprintf(a->out, "%s", g_status_names[st]);
    if (a->offline && a->age == -1)
        fprintf(a->out, " undated");
    else if (a->offline && a->age < -1)
        fprintf(a->out, " future");
    else if (a->offline)
        fprintf(a->out, " %s:%ld", offline_refused(a) ? "expired" : "age", a->age);
    fputc('\n', a->out);
}

/* Can pam_unix, through the system's libxcrypt, verify this field?  The
 * scheme table answers (kdf_hash_crypt_reads(): every crypt(3) scheme yes;
 * a scheme of ours only where libxcrypt has it too).  A lock marker does
 * not count: unlocked, the entry behind it is what pam_unix gets. */
static int
unix_can_verify(const char *f, size_t n)
{
    struct kdf_hash h;

    while (n > 0 && (f[0] == '!' || f[0] == '*')) {
        f++;
        n--;
    }
    if (n == 0 || kdf_parse(f, n, &h, NULL) != KDF_OK)
        return 1; /* nothing, or nothing we know: not ours to count */
    if (h.scheme == KDF_SCHEME_EMPTY || h.scheme == KDF_SCHEME_LOCKED)
        return 1;
    return kdf_hash_crypt_reads(&h);
}

/* Is the user named in the policy's xcrypt-only list?  Names only: the
 * audit reads a file, and the groups of its accounts are the host's
 * business (the module asks them at login). */
static int
xcrypt_only_by_name(const struct kdf_policy *pol, const char *user, size_t ulen)
{
    const char *l = pol->xcrypt_only;

    while (*l != '\0') {
        size_t n = strcspn(l, ",");
        if (l[0] != '@' && n == ulen && memcmp(l, user, ulen) == 0)
            return 1;
        l += n + (l[n] == ',');
    }
    return 0;
}

static size_t
name_slot(const struct seen *t, size_t cap, const char *p, size_t n)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    size_t i;

    for (i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211u;
    for (i = (size_t)h & (cap - 1); t[i].name != NULL; i = (i + 1) & (cap - 1))
        if (t[i].len == n && memcmp(t[i].name, p, n) == 0)
            break;
    return i;
}

/* The line on which this name was first met, or 0 (and remember it here).
 * Out of memory: 0, so the worst case is a duplicate left unreported. */
static unsigned long
first_seen(struct audit *a, const char *p, size_t n, unsigned long lineno)
{
    size_t i;

    if (a->nseen + 1 > a->seen_cap / 2) {
        size_t ncap = a->seen_cap ? a->seen_cap * 2 : 256;
        struct seen *nt = calloc(ncap, sizeof *nt);

        if (nt == NULL)
            return 0;
        for (size_t j = 0; j < a->seen_cap; j++)
            if (a->seen[j].name != NULL)
                nt[name_slot(nt, ncap, a->seen[j].name, a->seen[j].len)] = a->seen[j];
        free(a->seen);
        a->seen = nt;
        a->seen_cap = ncap;
    }
    i = name_slot(a->seen, a->seen_cap, p, n);
    if (a->seen[i].name != NULL)
        return a->seen[i].lineno;
    a->seen[i].name = malloc(n);
    if (a->seen[i].name == NULL)
        return 0;
    memcpy(a->seen[i].name, p, n);
    a->seen[i].len = n;
    a->seen[i].lineno = lineno;
    a->nseen++;
    return 0;
}

static void
free_seen(struct audit *a)
{
    for (size_t i = 0; i < a->seen_cap; i++)
        free(a->seen[i].name);
    free(a->seen);
}

/* Blank but for spaces and tabs, or a comment indented by them: nothing
 * to report (such a line holds no ':', so it is no entry either). */
static int
quiet_line(const struct kdf_span *t)
{
    size_t i = 0;

    while (i < t->len && (t->ptr[i] == ' ' || t->ptr[i] == '\t'))
        i++;
    return i == t->len || t->ptr[i] == '#';
}

/* The module's refusals of a line before its hash is read: a NIS compat
 * line, a user name that is empty, refused or on several lines, a password
 * field too long or holding a NUL byte.  1 when the line is one of them
 * (reported), else 0. */
static int
entry_refused(struct audit *a, unsigned long lineno, const char *user, size_t ulen,
              const struct kdf_span *pwfield)
{
    if (ulen > 0 && (user[0] == '+' || user[0] == '-')) {
        emit(a, lineno, user, ulen, "-", "-", A_UNSUPPORTED, KDF_REHASH_NO,
             "NIS compat entry");
        return 1;
    }
    if (ulen == 0) {
        emit(a, lineno, "-", 1, "-", "-", A_MALFORMED, KDF_REHASH_NO, "empty user name");
        return 1;
    }
    if (!kdf_shadow_name_span_ok(user, ulen)) {
        /* A name the module refuses to look up: no login uses this line. */
        emit(a, lineno, user, ulen, "-", "-", A_MALFORMED, KDF_REHASH_NO,
             "user name the module refuses");
        return 1;
    }
    if (first_seen(a, user, ulen, lineno) != 0) {
        /* The module refuses a name on several lines (login and rewrite
         * alike); the first of them was reported before this one was met. */
        emit(a, lineno, user, ulen, "-", "-", A_MALFORMED, KDF_REHASH_NO,
             "user name on several lines: the module refuses all of them");
        return 1;
    }
    if (!kdf_shadow_field_ok(pwfield)) {
        /* The module refuses such an entry without parsing it (even one that
         * starts with a lock marker), and so does the audit. */
        emit(a, lineno, user, ulen, "-", "-", A_MALFORMED, KDF_REHASH_NO,
             "password field too long or holding a NUL byte");
        return 1;
    }
    return 0;
}

/* One line of the file (kdf_shadow_line_fn; a line over the bound comes
 * cut, as OVERLONG). */
static void
audit_line(void *arg, unsigned long lineno, const struct kdf_shadow_line *l)
{
    struct audit *a = arg;
    const char *user, *hash, *why = NULL;
    size_t ulen, hlen;
    struct kdf_hash h;
    char params[96], costs[80];
    enum kdf_status st;
    enum kdf_rehash r;

    a->age = -1; /* a line without a day, unless offline_age() finds one */

    switch (l->kind) {
    case KDF_SHADOW_BLANK:
    case KDF_SHADOW_COMMENT:
        return;
    case KDF_SHADOW_NO_COLON:
        if (quiet_line(&l->text))
            return;
        /* No user field: the line may be anything, even a bare hash; print
         * nothing of it. */
        emit(a, lineno, "-", 1, "-", "-", A_MALFORMED, KDF_REHASH_NO, "no ':' in line");
        return;
    case KDF_SHADOW_OVERLONG:
        if (l->nfields == 0)
            emit(a, lineno, "-", 1, "-", "-", A_MALFORMED, KDF_REHASH_NO, "no ':' in line");
        else
            emit(a, lineno, l->field[0].ptr, l->field[0].len, "-", "-", A_MALFORMED,
                 KDF_REHASH_NO, "line longer than 64 KiB");
        return;
    case KDF_SHADOW_ENTRY:
        break;
    }
    user = l->field[0].ptr;
    ulen = l->field[0].len;
    if (a->offline)
        offline_age(a, l);
    if (entry_refused(a, lineno, user, ulen, &l->field[1]))
        return;
    hash = l->field[1].ptr;
    hlen = l->field[1].len;
    if (!unix_can_verify(hash, hlen)) {
        a->not_unix++;
        /* Names are [a-z0-9_.-] and a few more (kdf_shadow_name_ok()):
         * nothing a terminal would take for a command. */
        if (a->stranded_len + ulen + 2 < sizeof a->stranded) {
            memcpy(a->stranded + a->stranded_len, user, ulen);
            a->stranded_len += ulen;
            a->stranded[a->stranded_len++] = ' ';
            a->stranded[a->stranded_len] = '\0';
        }
    }
    st = kdf_parse(hash, hlen, &h, &why);
    if (st != KDF_OK) {
        emit(a, lineno, user, ulen, "-", "-",
             st == KDF_UNSUPPORTED ? A_UNSUPPORTED : A_MALFORMED, KDF_REHASH_NO,
             why ? why : kdf_status_str(st));
        return;
    }
    if (h.scheme == KDF_SCHEME_LOCKED || h.scheme == KDF_SCHEME_EMPTY) {
        emit(a, lineno, user, ulen, kdf_scheme_name(h.scheme), "-",
             h.scheme == KDF_SCHEME_LOCKED ? A_LOCKED : A_EMPTY, KDF_REHASH_NO, NULL);
        return;
    }
    cli_format_params(&h, params, sizeof params);
    cli_format_costs(&h, costs, sizeof costs);
    count_group(a, kdf_scheme_name(h.scheme), costs);
    count_key(a, &h);
    if (kdf_check_caps(&h, 0, a->pol, &why) != KDF_OK) {
        emit(a, lineno, user, ulen, kdf_scheme_name(h.scheme), params, A_OVERCAP,
             KDF_REHASH_NO, why);
        return;
    }
    r = kdf_needs_rehash(&h, a->pol);
    /* The module moves such an entry to a libxcrypt scheme at the next
     * login (xcrypt-only); until then sulogin cannot verify it. */
    if (r == KDF_REHASH_NO && xcrypt_only_by_name(a->pol, user, ulen) &&
        !unix_can_verify(hash, hlen))
        r = KDF_REHASH_MIGRATE;
    emit(a, lineno, user, ulen, kdf_scheme_name(h.scheme), params,
         r == KDF_REHASH_NO ? A_OK : A_REHASH, r, NULL);
}

static int
cmp_groups(const void *x, const void *y)
{
    return strcmp(((const struct audit_group *)x)->key, ((const struct audit_group *)y)->key);
}

/* Each key's state, asked as a login asks it (a TPM key within the
 * deadline), and the entries that no password can open meanwhile. */
static void
key_states(struct audit *a)
{
    char why[KDF_KEYSTORE_ERR];

    for (size_t i = 0; i < a->nkeys; i++) {
        a->keys[i].state = kdf_keystore_state(cli_keys_dir(), a->keys[i].id, &cli_tpm, why,
                                              sizeof why);
        if (a->keys[i].state != KDF_KEY_FILE && a->keys[i].state != KDF_KEY_TPM)
            a->key_unusable += a->keys[i].n;
    }
}

/* Seconds since the run started. */
static double
elapsed(const struct audit *a)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - a->t0.tv_sec) + (double)(t.tv_nsec - a->t0.tv_nsec) / 1e9;
}

/* The metrics of --format prometheus, in the order printed: their one
 * home (kdfhash(1), AUDIT, has the table; tests/cli/test_cli_metrics.sh
 * holds it to the output).  All are gauges; every series has the label
 * file, so that the files of several runs can sit side by side.  Counts
 * only: a user name in a label would be a series per account. */
enum metric { M_UP, M_TIME, M_DURATION, M_ACCOUNTS, M_STATUS, M_OUTDATED, M_SCHEME,
              M_OTHER_SCHEMES, M_KEY, M_OTHER_KEYS, M_UNKEYED, M_KEY_UNUSABLE, M_NOT_UNIX,
              M_OFF_MAX_AGE, M_OFF_EXPIRED, M_OFF_UNDATED, M_COUNT };
static const struct {
    const char *name, *help;
} g_metrics[M_COUNT] = {
    [M_UP] = {"kdfhash_audit_up",
              "1 when the policy and the whole file were read; 0 when the run failed "
              "(and only this, the timestamp and the duration are given)"},
    [M_TIME] = {"kdfhash_audit_timestamp_seconds", "Start of the run, seconds since the epoch"},
    [M_DURATION] = {"kdfhash_audit_duration_seconds", "How long the run took"},
    [M_ACCOUNTS] = {"kdfhash_audit_accounts", "Entries of the file (every line but comments "
                                              "and blank ones)"},
    [M_STATUS] = {"kdfhash_audit_entries", "Entries by status"},
    [M_OUTDATED] = {"kdfhash_audit_outdated_entries",
                    "Entries of status rehash by reason: what the next login rewrites"},
    [M_SCHEME] = {"kdfhash_audit_scheme_entries",
                  "Entries by scheme and costs (locked, empty and unparsed ones aside)"},
    [M_OTHER_SCHEMES] = {"kdfhash_audit_other_scheme_entries",
                         "Entries beyond the scheme and costs pairs counted by name"},
    [M_KEY] = {"kdfhash_audit_key_entries",
               "Entries keyed with a key, by key id and the key's state as a login finds it"},
    [M_OTHER_KEYS] = {"kdfhash_audit_other_key_entries",
                      "Keyed entries beyond the keys counted by id"},
    [M_UNKEYED] = {"kdfhash_audit_unkeyed_entries", "Entries keyed with no key"},
    [M_KEY_UNUSABLE] = {"kdfhash_audit_key_unusable_entries",
                        "Entries keyed with a key that cannot be used: no password opens them"},
    [M_NOT_UNIX] = {"kdfhash_audit_pam_unix_unverifiable_entries",
                    "Entries (locked or not) pam_unix cannot verify: locked out without "
                    "pam_kdfhash"},
    [M_OFF_MAX_AGE] = {"kdfhash_audit_offline_max_age_days",
                       "offline.max-age of the policy, 0 when off (--offline-cache)"},
    [M_OFF_EXPIRED] = {"kdfhash_audit_offline_expired_entries",
                       "Offline cache entries refused for their day (--offline-cache)"},
    [M_OFF_UNDATED] = {"kdfhash_audit_offline_undated_entries",
                       "Offline cache entries without a day (--offline-cache)"},
};

/* A label value in the exposition format: backslash, quote and line feed
 * escaped; other control bytes and bytes outside ASCII (which would have
 * to be valid UTF-8) as '?'. */
static void
put_label(FILE *f, const char *name, const char *v, size_t n)
{
    fprintf(f, "%s=\"", name);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c == '\\' || c == '"')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else
            fputc(c >= 0x20 && c < 0x7f ? c : '?', f);
    }
    fputc('"', f);
}

/* HELP and TYPE of metric m. */
static void
prom_head(const struct audit *a, enum metric m)
{
    fprintf(a->out, "# HELP %s %s\n# TYPE %s gauge\n", g_metrics[m].name, g_metrics[m].help,
            g_metrics[m].name);
}

/* "NAME{file=\"...\"": the caller adds its labels, then prom_end(). */
static void
prom_start(const struct audit *a, enum metric m)
{
    fprintf(a->out, "%s{", g_metrics[m].name);
    put_label(a->out, "file", a->path, strlen(a->path));
}

static void
prom_end(const struct audit *a, unsigned long v)
{
    fprintf(a->out, "} %lu\n", v);
}

/* A metric of one series, labelled with the file only. */
static void
prom_one(const struct audit *a, enum metric m, unsigned long v)
{
    prom_head(a, m);
    prom_start(a, m);
    prom_end(a, v);
}

static void
prom_keys(const struct audit *a)
{
    prom_head(a, M_KEY);
    for (size_t i = 0; i < a->nkeys; i++) {
        const char *st = kdf_key_state_name(a->keys[i].state);

        prom_start(a, M_KEY);
        fputc(',', a->out);
        put_label(a->out, "keyid", a->keys[i].id, strlen(a->keys[i].id));
        fputc(',', a->out);
        put_label(a->out, "state", st, strlen(st));
        prom_end(a, a->keys[i].n);
    }
    prom_one(a, M_OTHER_KEYS, a->other_keys);
    prom_one(a, M_UNKEYED, a->unkeyed);
    prom_one(a, M_KEY_UNUSABLE, a->key_unusable);
}

/* The counts of the run for node exporter's textfile collector; ok 0:
 * the run failed, say so and when. */
static void
print_prom(struct audit *a, int ok)
{
    prom_one(a, M_UP, (unsigned long)ok);
    prom_head(a, M_TIME);
    prom_start(a, M_TIME);
    fprintf(a->out, "} %.3f\n", a->started);
    prom_head(a, M_DURATION);
    prom_start(a, M_DURATION);
    fprintf(a->out, "} %.6f\n", elapsed(a));
    if (!ok)
        return;
    prom_one(a, M_ACCOUNTS, a->accounts);
    prom_head(a, M_STATUS);
    for (int s = 0; s < A_COUNT; s++) {
        prom_start(a, M_STATUS);
        fputc(',', a->out);
        put_label(a->out, "status", g_status_names[s], strlen(g_status_names[s]));
        prom_end(a, a->status[s]);
    }
    prom_head(a, M_OUTDATED);
    for (int r = 1; r < REHASH_REASONS; r++) {
        const char *why = kdf_rehash_reason((enum kdf_rehash)r);

        prom_start(a, M_OUTDATED);
        fputc(',', a->out);
        put_label(a->out, "reason", why, strlen(why));
        prom_end(a, a->reasons[r]);
    }
    prom_head(a, M_SCHEME);
    for (size_t i = 0; i < a->ngroups; i++) {
        const char *k = a->groups[i].key, *sp = strchr(k, ' ');

        prom_start(a, M_SCHEME);
        fputc(',', a->out);
        put_label(a->out, "scheme", k, (size_t)(sp - k));
        fputc(',', a->out);
        put_label(a->out, "costs", sp + 1, strlen(sp + 1));
        prom_end(a, a->groups[i].n);
    }
    prom_one(a, M_OTHER_SCHEMES, a->other_groups);
    prom_keys(a);
    prom_one(a, M_NOT_UNIX, a->not_unix);
    if (a->offline) {
        prom_one(a, M_OFF_MAX_AGE, a->pol->offline_max_age);
        prom_one(a, M_OFF_EXPIRED, a->expired);
        prom_one(a, M_OFF_UNDATED, a->undated);
    }
}

static void
print_json_summary(struct audit *a)
{
    FILE *o = a->out;

    fprintf(o, "\n  ],\n  \"summary\": {\n    \"accounts\": %lu,\n    \"status\": {", a->accounts);
    for (int s = 0; s < A_COUNT; s++)
        fprintf(o, "%s\"%s\": %lu", s ? ", " : "", g_status_names[s], a->status[s]);
    fprintf(o, "},\n    \"rehash\": {");
    for (int r = 1; r < REHASH_REASONS; r++)
        fprintf(o, "%s\"%s\": %lu", r > 1 ? ", " : "", kdf_rehash_reason((enum kdf_rehash)r),
                a->reasons[r]);
    fprintf(o, "},\n    \"schemes\": [");
    for (size_t i = 0; i < a->ngroups; i++) {
        const char *sp = strchr(a->groups[i].key, ' ');
        fprintf(o, "%s\n      {\"scheme\": \"%.*s\", \"costs\": \"%s\", \"count\": %lu}",
                i ? "," : "", (int)(sp - a->groups[i].key), a->groups[i].key, sp + 1,
                a->groups[i].n);
    }
    fprintf(o, "%s],\n    \"keys\": {", a->ngroups ? "\n    " : "");
    for (size_t i = 0; i < a->nkeys; i++) {
        put_json(o, a->keys[i].id, strlen(a->keys[i].id));
        fprintf(o, ": %lu, ", a->keys[i].n);
    }
    fprintf(o, "\"none\": %lu},\n    \"key_states\": {", a->unkeyed);
    for (size_t i = 0; i < a->nkeys; i++) {
        fputs(i ? ", " : "", o);
        put_json(o, a->keys[i].id, strlen(a->keys[i].id));
        fprintf(o, ": \"%s\"", kdf_key_state_name(a->keys[i].state));
    }
    fprintf(o,
            "},\n    \"other_keys\": %lu,\n    \"unkeyed\": %lu,\n    \"key_unusable\": %lu,\n"
            "    \"other_schemes\": %lu,\n    \"pam_unix_cannot_verify\": %lu",
            a->other_keys, a->unkeyed, a->key_unusable, a->other_groups, a->not_unix);
    if (a->offline)
        fprintf(o, ",\n    \"offline\": {\"max_age\": %u, \"expired\": %lu, \"undated\": %lu}",
                (unsigned)a->pol->offline_max_age, a->expired, a->undated);
    fprintf(o, ",\n    \"duration_seconds\": %.6f\n  }\n}\n", elapsed(a));
}

static void
print_summary(struct audit *a)
{
    key_states(a);
    qsort(a->groups, a->ngroups, sizeof a->groups[0], cmp_groups);
    if (a->prom) {
        print_prom(a, 1);
        return;
    }
    if (a->json) {
        print_json_summary(a);
        return;
    }
    fprintf(a->out, "\n# summary: %lu accounts\n", a->accounts);
    for (int s = 0; s < A_COUNT; s++) {
        fprintf(a->out, "%s: %lu\n", g_status_names[s], a->status[s]);
        if (s == A_REHASH)
            for (int r = 1; r < REHASH_REASONS; r++)
                if (a->reasons[r])
                    fprintf(a->out, "rehash:%s: %lu\n", kdf_rehash_reason((enum kdf_rehash)r),
                           a->reasons[r]);
    }
    fprintf(a->out, "# by scheme and cost\n");
    for (size_t i = 0; i < a->ngroups; i++)
        fprintf(a->out, "%s: %lu\n", a->groups[i].key, a->groups[i].n);
    if (a->other_groups)
        fprintf(a->out, "(more than %d kinds): %lu\n", AUDIT_MAX_GROUPS, a->other_groups);
    /* The keys entries name (kdfhash keys retire refuses while one does). */
    fprintf(a->out, "# by key\n");
    for (size_t i = 0; i < a->nkeys; i++)
        fprintf(a->out, "keyed with %s (%s): %lu\n", a->keys[i].id,
               kdf_key_state_name(a->keys[i].state), a->keys[i].n);
    if (a->other_keys)
        fprintf(a->out, "(more than %d keys): %lu\n", AUDIT_MAX_KEYS, a->other_keys);
    fprintf(a->out, "unkeyed: %lu\n", a->unkeyed);
    /* A login refuses these whatever the password (kdfhash keys list). */
    fprintf(a->out, "keyed with a key that cannot be used: %lu\n", a->key_unusable);
    /* What removing the module would lock out (bcrypt, yescrypt, sha-crypt
     * and the older crypt(3) schemes are pam_unix's too). */
    fprintf(a->out, "# without pam_kdfhash\npam_unix cannot verify: %lu\n", a->not_unix);
    if (a->offline) {
        /* What cache=validate refuses for its day whatever the password. */
        if (a->pol->offline_max_age != 0)
            fprintf(a->out, "# offline cache (offline.max-age %u days)\n",
                   (unsigned)a->pol->offline_max_age);
        else
            fprintf(a->out, "# offline cache (offline.max-age off)\n");
        fprintf(a->out, "expired: %lu\nundated: %lu\n", a->expired, a->undated);
    }
}

/* Read the file open on fd (closed after, unless standard input) through
 * the audit a, with the module's reader (its buffer holds hashes: it is
 * wiped before it goes back to the heap). */
static int
audit_file(struct audit *a, int fd, const char *path)
{
    int rc = CLI_OK;

    switch (kdf_shadow_read_fd(fd, audit_line, a)) {
    case KDF_SHADOW_READ_OK:
        break;
    case KDF_SHADOW_READ_ERR:
        cli_error("%s: read error: %s", path, strerror(errno));
        rc = CLI_ERR;
        break;
    case KDF_SHADOW_READ_NOMEM:
        cli_error("out of memory");
        rc = CLI_ERR;
        break;
    }
    if (fd != STDIN_FILENO)
        close(fd);
    return rc;
}

struct audit_args {
    const char *conf, *path, *output;
    int format, offline;
};

/* audit's command line into o: CLI_OK, CLI_ERR (usage said), or -1 for
 * --help (printed). */
static int
audit_args(int argc, char **argv, struct audit_args *o)
{
    static const struct option opts[] = {{"conf", required_argument, NULL, 'c'},
                                         {"keys", required_argument, NULL, 'k'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"output", required_argument, NULL, 'O'},
                                         {"offline-cache", no_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    static const char *const formats[] = {[F_TEXT] = "text", [F_JSON] = "json",
                                          [F_PROM] = "prometheus"};
    int c, f;

    memset(o, 0, sizeof *o);
    o->path = "/etc/shadow";
    optind = 1;
    while ((c = getopt_long(argc, argv, "c:jh", opts, NULL)) != -1) {
        if (c == 'c')
            o->conf = optarg;
        else if (c == 'k')
            cli_set_keys_dir(optarg);
        else if (c == 'j')
            o->format = F_JSON;
        else if (c == 'O')
            o->output = optarg;
        else if (c == 'o')
            o->offline = 1;
        else if (c == 'h') {
            usage(stdout);
            return -1;
        } else if (c == 'f') {
            for (f = F_TEXT; f <= F_PROM && strcmp(optarg, formats[f]) != 0; f++)
                ;
            if (f > F_PROM) {
                cli_error("audit: --format %s: text, json or prometheus", optarg);
                return CLI_ERR;
            }
            o->format = f;
        } else {
            usage(stderr);
            return CLI_ERR;
        }
    }
    if (argc - optind > 1 || (o->output != NULL && o->output[0] == '\0')) {
        usage(stderr);
        return CLI_ERR;
    }
    if (o->offline)
        o->path = KDF_OFFLINE_CACHE;
    if (argc - optind == 1)
        o->path = argv[optind];
    return CLI_OK;
}

/* --output DEST: a new file DEST.tmp.PID beside it (the same file system,
 * for the rename; not *.prom, so the textfile collector skips it), of
 * mode whatever the umask: node exporter reads metrics as its own user;
 * a report of names is for root alone.  NULL on error (said). */
static FILE *
out_open(const char *dest, char **tmp, mode_t mode)
{
    size_t n = strlen(dest) + sizeof ".tmp." + 3 * sizeof(long);
    FILE *f = NULL;
    int fd = -1;

    *tmp = malloc(n);
    if (*tmp == NULL) {
        cli_error("out of memory");
        return NULL;
    }
    snprintf(*tmp, n, "%s.tmp.%ld", dest, (long)getpid());
    for (int again = 1; fd < 0; again = 0) {
        fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        /* One left by a killed run that had our pid: ours to replace. */
        if (fd < 0 && (errno != EEXIST || !again || unlink(*tmp) != 0))
            break;
    }
    if (fd >= 0 && fchmod(fd, mode) == 0 && (f = fdopen(fd, "w")) != NULL)
        return f;
    cli_error("audit: cannot write %s: %s", *tmp, strerror(errno));
    if (fd >= 0) {
        close(fd);
        unlink(*tmp);
    }
    free(*tmp);
    *tmp = NULL;
    return NULL;
}

/* Close --output's temporary file and, when install, put it in place of
 * dest (fsync, rename, fsync of the directory); otherwise, or when any
 * step fails, remove it and leave dest as it was.  CLI_OK/CLI_ERR. */
static int
out_close(FILE *f, const char *tmp, const char *dest, int install)
{
    int ok = fflush(f) == 0 && fsync(fileno(f)) == 0;

    if (fclose(f) != 0)
        ok = 0;
    if (!ok)
        cli_error("audit: cannot write %s: %s", tmp, strerror(errno));
    else if (install && rename(tmp, dest) != 0) {
        cli_error("audit: cannot rename %s to %s: %s", tmp, dest, strerror(errno));
        ok = 0;
    }
    if (!ok || !install) {
        unlink(tmp);
        return ok ? CLI_OK : CLI_ERR;
    }
    cli_sync_dir(dest);
    return CLI_OK;
}

/* The audit of a->path under the policy conf: CLI_OK, CLI_NO, CLI_ERR. */
static int
audit_run(struct audit *a, struct kdf_policy *pol, const char *conf)
{
    int fd, rc;

    if (cli_load_policy(pol, conf) != CLI_OK)
        return CLI_ERR;
    a->pol = pol;
    if (strcmp(a->path, "-") == 0)
        fd = STDIN_FILENO;
    else
        fd = open(a->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        cli_error("cannot open %s: %s", a->path, strerror(errno));
        return CLI_ERR;
    }
    if (a->json) {
        fprintf(a->out, "{\n  \"file\": ");
        put_json(a->out, a->path, strlen(a->path));
        fprintf(a->out, ",\n  \"timestamp\": %.3f,\n  \"accounts\": [", a->started);
    }
    rc = audit_file(a, fd, a->path);
    if (rc != CLI_OK)
        return rc;
    print_summary(a);
    return (a->status[A_REHASH] | a->status[A_MALFORMED] | a->status[A_UNSUPPORTED] |
            a->status[A_OVERCAP] | a->key_unusable)
               ? CLI_NO
               : CLI_OK;
}

int
cli_cmd_audit(int argc, char **argv)
{
    struct audit_args o;
    struct kdf_policy pol;
    struct timespec now;
    struct audit *a;
    char *tmp = NULL;
    int rc = audit_args(argc, argv, &o);

    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    a = calloc(1, sizeof *a);
    if (a == NULL) {
        cli_error("out of memory");
        return CLI_ERR;
    }
    a->json = o.format == F_JSON;
    a->prom = o.format == F_PROM;
    a->offline = o.offline;
    a->path = o.path;
    clock_gettime(CLOCK_MONOTONIC, &a->t0);
    clock_gettime(CLOCK_REALTIME, &now);
    a->started = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
    a->today = (long)(now.tv_sec / 86400);
    a->out = stdout;
    if (o.output != NULL &&
        (a->out = out_open(o.output, &tmp, o.format == F_PROM ? 0644 : 0600)) == NULL) {
        free(a);
        return CLI_ERR;
    }
    rc = audit_run(a, &pol, o.conf);
    /* A failed run is a result too for the collector: up 0, and when. */
    if (rc == CLI_ERR && a->prom)
        print_prom(a, 0);
    free_seen(a);
    if (o.output != NULL) {
        /* A report cut short by an error does not replace a whole one. */
        if (out_close(a->out, tmp, o.output, rc != CLI_ERR || a->prom) != CLI_OK)
            rc = CLI_ERR;
    } else if (fflush(stdout) != 0) {
        cli_error("write error");
        rc = CLI_ERR;
    }
    free(tmp);
    free(a);
    return rc;
}

/* ---- disable ---------------------------------------------------------- */

static void
disable_usage(FILE *f)
{
    fputs("Usage: kdfhash disable [--force] [--dry-run] [--history drop|keep]\n"
          "                       [--history-file FILE] [SHADOW-FILE]\n"
          "Turn pam_kdfhash off (pam-auth-update --disable kdfhash) only when no\n"
          "account of SHADOW-FILE (default /etc/shadow) holds a hash that pam_unix\n"
          "cannot verify; otherwise name them, say how to move them, and change\n"
          "nothing.  Entries of the password history that pam_unix cannot read\n"
          "(Argon2, PBKDF2, keyed ones) are counted per user: choose what becomes of\n"
          "them with --history.\n"
          "  --force              disable all the same (those accounts lose their password;\n"
          "                       the history is kept unless --history drop)\n"
          "  --dry-run            say what would be done, change nothing\n"
          "  --history drop       remove those history entries after disabling\n"
          "  --history keep       keep them (pam_unix never matches them: the passwords\n"
          "                       they remember may be used again)\n"
          "  --history-file FILE  the history of remember=N (default " CLI_HISTORY_FILE ")\n",
          f);
    cli_print_exit_codes(f);
}

/* The history entries pam_unix cannot read: per user, in file order (one
 * line per user), the first HIST_USERS of them by name. */
#define HIST_USERS 32
struct hist_foreign {
    unsigned long n, users;
    struct {
        char name[33];
        unsigned long n;
    } u[HIST_USERS];
    char last[33];
};

static int
hist_foreign(void *arg, const char *user, size_t ulen, const char *e, size_t n)
{
    struct hist_foreign *h = arg;
    char name[sizeof h->last];

    if (unix_can_verify(e, n))
        return 0;
    h->n++;
    snprintf(name, sizeof name, "%.*s", (int)(ulen < 32 ? ulen : 32), user);
    /* A name is printed: nothing a terminal would take for a command. */
    for (char *c = name; *c != '\0'; c++)
        if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f)
            *c = '?';
    if (h->users == 0 || strcmp(h->last, name) != 0) {
        h->users++;
        memcpy(h->last, name, sizeof name);
        if (h->users <= HIST_USERS)
            memcpy(h->u[h->users - 1].name, name, sizeof name);
    }
    if (h->users <= HIST_USERS)
        h->u[h->users - 1].n++;
    return 1;
}

static int
hist_drop(void *arg, const char *user, size_t ulen, const char *e, size_t n)
{
    (void)arg;
    (void)user;
    (void)ulen;
    return !unix_can_verify(e, n);
}

/* Report the history entries pam_unix cannot read (never a hash). */
static void
hist_report(const struct hist_foreign *h, const char *path)
{
    fprintf(stderr,
            "kdfhash disable: %lu entr%s of the password history %s (remember=N) %s "
            "that pam_unix cannot read (Argon2, PBKDF2 or keyed):",
            h->n, h->n == 1 ? "y" : "ies", path, h->n == 1 ? "is a hash" : "are hashes");
    for (unsigned long i = 0; i < h->users && i < HIST_USERS; i++)
        fprintf(stderr, " %s (%lu)", h->u[i].name, h->u[i].n);
    if (h->users > HIST_USERS)
        fprintf(stderr, " and %lu more users", h->users - HIST_USERS);
    fprintf(stderr, "\nWithout pam_kdfhash pam_unix never matches them: the passwords they "
                    "remember may be used again.\n");
}

/* Run TOOL --disable kdfhash and wait for it: CLI_OK when it exits 0. */
static int
run_disable(const char *tool)
{
    char *const args[] = {(char *)tool, (char *)"--disable", (char *)"kdfhash", NULL};
    pid_t pid;
    int ws;

    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        cli_error("disable: fork: %s", strerror(errno));
        return CLI_ERR;
    }
    if (pid == 0) {
        execv(tool, args);
        fprintf(stderr, "kdfhash: disable: cannot run %s: %s\n", tool, strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR) {
            cli_error("disable: waitpid: %s", strerror(errno));
            return CLI_ERR;
        }
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        cli_error("disable: %s --disable kdfhash failed", tool);
        return CLI_ERR;
    }
    return CLI_OK;
}

/* disable's check of the shadow-style file path: CLI_OK when no account
 * there has a hash pam_unix cannot verify, or --force; CLI_NO when one
 * has (said, with the way out); CLI_ERR when the file cannot be read. */
static int
disable_shadow_check(const char *path, int force, int dry)
{
    struct kdf_policy pol;
    struct audit *a;
    int fd, rc;
    unsigned long n;

    kdf_policy_default(&pol);
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        /* Not knowing who would be stranded is no answer: refuse. */
        cli_error("disable: cannot read %s: %s: nothing changed", path, strerror(errno));
        return CLI_ERR;
    }
    a = calloc(1, sizeof *a);
    if (a == NULL) {
        cli_error("out of memory");
        close(fd);
        return CLI_ERR;
    }
    a->pol = &pol;
    a->quiet = 1;
    rc = audit_file(a, fd, path);
    n = a->not_unix;
    if (rc == CLI_OK && n > 0) {
        fprintf(stderr,
                "kdfhash disable: %lu account%s in %s %s a hash that pam_unix cannot "
                "verify: %.*s%s\n"
                "Without pam_kdfhash %s cannot log in with %s password%s. Move %s to a "
                "scheme pam_unix reads first: set \"target = yescrypt\" and \"migrate = "
                "yes\" in /etc/security/kdfhash.conf and have each log in once, or reset "
                "the password (passwd USER); \"kdfhash audit %s\" then ends with \"pam_unix "
                "cannot verify: 0\". See pam_kdfhash(8), THE WAY BACK.\n",
                n, n == 1 ? "" : "s", path, n == 1 ? "has" : "have",
                (int)(a->stranded_len > 0 ? a->stranded_len - 1 : 0), a->stranded,
                a->stranded_len + 2 >= sizeof a->stranded ? "..." : "",
                n == 1 ? "it" : "they", n == 1 ? "its" : "their", n == 1 ? "" : "s",
                n == 1 ? "it" : "them", path);
        if (!force) {
            /* --dry-run says what would happen without --force. */
            fprintf(stderr, "kdfhash disable: %s (--force disables all the same)\n",
                    dry ? "would refuse" : "nothing changed");
            rc = CLI_NO;
        }
    }
    free_seen(a);
    free(a);
    return rc;
}

int
cli_cmd_disable(int argc, char **argv)
{
    static const struct option opts[] = {{"force", no_argument, NULL, 'f'},
                                         {"dry-run", no_argument, NULL, 'n'},
                                         {"history", required_argument, NULL, 'H'},
                                         {"history-file", required_argument, NULL, 'F'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *path = "/etc/shadow", *history = CLI_HISTORY_FILE, *hist_mode = NULL;
    struct hist_foreign hf;
    const char *tool = getenv("KDFHASH_PAM_AUTH_UPDATE"); /* the tests' stand-in */
    int c, rc, force = 0, dry = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "fnh", opts, NULL)) != -1) {
        if (c == 'f')
            force = 1;
        else if (c == 'n')
            dry = 1;
        else if (c == 'H' && (strcmp(optarg, "drop") == 0 || strcmp(optarg, "keep") == 0))
            hist_mode = optarg;
        else if (c == 'F')
            history = optarg;
        else if (c == 'h') {
            disable_usage(stdout);
            return CLI_OK;
        } else {
            disable_usage(stderr);
            return CLI_ERR;
        }
    }
    if (argc - optind > 1) {
        disable_usage(stderr);
        return CLI_ERR;
    }
    if (argc - optind == 1)
        path = argv[optind];
    if (tool == NULL || tool[0] != '/')
        tool = "/usr/sbin/pam-auth-update";
    rc = disable_shadow_check(path, force, dry);
    if (rc != CLI_OK)
        return rc;
    /* --force disables all the same: the history as it is. */
    if (hist_mode == NULL && force)
        hist_mode = "keep";
    memset(&hf, 0, sizeof hf);
    if (cli_history_each(history, hist_foreign, &hf, NULL) != CLI_OK) {
        /* As for the shadow file: unless they are kept whatever they are. */
        if (hist_mode == NULL || strcmp(hist_mode, "keep") != 0) {
            cli_error("disable: %s: nothing changed (--history keep disables all the same)",
                      history);
            return CLI_ERR;
        }
    } else if (hf.n > 0) {
        hist_report(&hf, history);
        if (hist_mode == NULL) {
            fprintf(stderr, "kdfhash disable: %s (--history drop removes them, --history "
                            "keep keeps them)\n",
                    dry ? "would refuse" : "nothing changed");
            return CLI_NO;
        }
    }
    if (dry) {
        printf("kdfhash disable: would run %s --disable kdfhash\n", tool);
        if (hf.n > 0)
            printf("kdfhash disable: would %s %lu history entr%s (%s)\n", hist_mode,
                   hf.n, hf.n == 1 ? "y" : "ies", history);
        return CLI_OK;
    }
    if (run_disable(tool) != CLI_OK)
        return CLI_ERR;
    printf("kdfhash disable: pam_kdfhash is off (%s --disable kdfhash)\n", tool);
    if (hf.n > 0 && strcmp(hist_mode, "drop") == 0) {
        unsigned long gone = 0;

        /* After the switch: were it refused, the module would still be
         * the one that reads them. */
        if (cli_history_drop(history, path, hist_drop, NULL, &gone) != CLI_OK)
            return CLI_ERR;
        printf("kdfhash disable: dropped %lu history entr%s pam_unix cannot read (%s)\n",
               gone, gone == 1 ? "y" : "ies", history);
    } else if (hf.n > 0)
        printf("kdfhash disable: kept %lu history entr%s pam_unix cannot read (%s)\n", hf.n,
               hf.n == 1 ? "y" : "ies", history);
    return CLI_OK;
}
