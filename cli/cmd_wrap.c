/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_wrap.c - `kdfhash wrap`: wrap (kdf_wrap()) the outdated entries of a
 * shadow-style file and of the password history, for the accounts whose
 * owners never log in, so that no stored digest cracks at the legacy speed.
 * The next login unwraps an entry (the module's usual upgrade, reason
 * "wrapped").
 *
 * The entries are read once, as the audit reads them (shadow_line.h); the
 * hashes are made outside any lock by --jobs threads, a batch at a time,
 * and each batch is written by the module's writer (kdf_write_hashes(),
 * kdf_write_opasswd_replace()), which compares and swaps every entry on its
 * own: one changed meanwhile (a login upgraded it, passwd changed it) is
 * counted and left alone.  A wrapped entry is skipped, so a rerun after a
 * kill wraps what is left.  The backup "FILE-" gets the new content, so no
 * legacy digest lives on in it.  Nothing printed or logged holds a hash.
 *
 * --values is the same judgement and the same hashes as a filter, for the
 * stores this command cannot write itself (kdfhash-ds-wrap's directory):
 * hash strings or directory values in, one answer per line out, in order.
 * Its caller swaps each value on its own; here nothing is written.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <syslog.h>
#include <unistd.h>

#include "audit_rec.h"
#include "cli.h"
#include "keystore.h"
#include "shadow_line.h"
#include "write.h"
#include "xcrypt_only.h"

#define WRAP_MAX_JOBS 64     /* --jobs cap: more threads only add memory */
#define WRAP_NICE 10         /* --nice default: a bulk job yields to logins */
#define WRAP_BATCH 64        /* --batch default */
#define WRAP_BATCH_MS 2000.0 /* a batch is also cut after this long */
#define WRAP_LOCK_WAIT_MS 5000u
#define WRAP_REASONS 16 /* distinct refusal reasons counted by name */
#define WRAP_SCHEMES 32 /* distinct schemes counted by --dry-run */

/* Why an entry is not wrapped (the order of the summary). */
enum skip { SK_EMPTY, SK_LOCKED, SK_WRAPPED, SK_KEYED, SK_XCRYPT_ONLY, SK_CURRENT,
            SK_HEAVY, SK_MIGRATE, SK_FORM, SK_UNREADABLE, SK_COUNT };
static const char *const g_skip_names[SK_COUNT] = {
    "empty", "locked", "wrapped", "keyed", "xcrypt-only", "current", "heavy", "migrate",
    "form", "unreadable",
};

struct item {
    char *user;
    char *old;       /* the stored field (lock markers included); wiped */
    size_t bangs;    /* leading '!' kept on the new entry */
    int unkeyed;     /* the admins' rule: made without the pepper */
    char *repl;      /* the new field, NULL when refused; wiped */
    const char *why; /* kdf_wrap()'s reason for a refusal */
};

struct counted {
    const char *name;
    unsigned long n;
};

/* One file's work and its counts. */
struct part {
    const char *path;
    int history;
    struct item *it;
    size_t n, cap;
    unsigned long skipped[SK_COUNT];
    unsigned long done, locked, cas, gone, failed, refused;
    struct counted refusals[WRAP_REASONS], schemes[WRAP_SCHEMES];
    unsigned long other_refusals, other_schemes;
    int oom;
};

struct wrap {
    const struct kdf_policy *pol;
    struct kdf_policy unkeyed; /* pol without its pepper (admins) */
    int drop_history, dry, quiet, tty;
    unsigned jobs;
    unsigned nice; /* --nice: the workers' niceness, at least */
    size_t batch;
    unsigned long total, progress; /* entries to wrap, and handled so far */
    double t0;
    /* The batch the workers share. */
    pthread_mutex_t mu;
    struct part *cur;
    size_t next, end, start;
    double batch_t0;
};

static void
usage(FILE *f)
{
    fputs("Usage: kdfhash wrap [--shadow FILE] [--opasswd FILE | --no-opasswd]\n"
          "                    [--history wrap|drop] [--dry-run] [--jobs N] [--batch N]\n"
          "                    [--conf FILE] [--keys DIR] [--nice N] [--quiet]\n"
          "       kdfhash wrap --values [--dry-run] [--jobs N] [--batch N] [--conf FILE]\n"
          "                    [--keys DIR] [--nice N]\n"
          "Wrap every outdated entry of FILE (default /etc/shadow) and of the password\n"
          "history: the legacy hash is hashed again at the policy's target\n"
          "(\"$kdfw$...\"), which the same password opens; the next login rewrites it as\n"
          "a direct hash.  Empty, locked-only, wrapped, keyed, current, heavy and\n"
          "xcrypt-only entries (root) are left as they are; \"!\" lock markers are kept.\n"
          "A rerun wraps what is left.  Hashes are never printed.\n"
          "  --shadow FILE    the shadow-style file (default /etc/shadow)\n"
          "  --opasswd FILE   the password history (default " CLI_HISTORY_FILE ")\n"
          "  --no-opasswd     leave the history alone\n"
          "  --history drop   drop the outdated history entries instead (default wrap)\n"
          "  --dry-run        count what would be wrapped, per scheme; write nothing\n"
          "  --jobs N         threads that make the hashes (default: the CPUs online)\n"
          "  --batch N        entries written at once (default 64; a batch is also cut\n"
          "                   after 2 s of hashing)\n"
          "  --conf FILE      policy file (default: the system kdfhash.conf if present;\n"
          "                   --config is the same)\n"
          "  --keys DIR       the key directory of the pepper (default " KDF_KEYS_DIR ")\n"
          "  --nice N         run at niceness N at least (0 to 19, default 10), so that\n"
          "                   logins meanwhile go first\n"
          "  --quiet          no progress line on a terminal\n"
          "  --values         a filter: hash strings or directory values (\"{NAME}...\")\n"
          "                   on stdin, one a line; one answer a line on stdout, in\n"
          "                   order: wrapped<TAB>NEW, keep<TAB>WHY or refused<TAB>WHY\n"
          "                   (--dry-run: would-wrap<TAB>SCHEME, no hash made)\n"
          "Exit status: 0 every entry to wrap was wrapped or had changed meanwhile;\n"
          "1 some were refused or a batch could not be written; 2 usage or error.\n"
          "With --values: 0 every line answered; 2 usage, read or write error.\n",
          f);
}

/* ---- the keyring, one caller at a time ---------------------------------- */

/* The CLI's key store keeps its last error in itself: the workers ask it for
 * the pepper one after another (a key is read in microseconds). */
struct locked_ring {
    struct kdf_keyring ring;
    const struct kdf_keyring *inner;
    pthread_mutex_t mu;
};

static enum kdf_status
locked_get(void *ctx, const struct kdf_key_request *rq, uint8_t *key, size_t *key_len)
{
    struct locked_ring *l = ctx;
    enum kdf_status st;

    pthread_mutex_lock(&l->mu);
    st = l->inner->get(l->inner->ctx, rq, key, key_len);
    pthread_mutex_unlock(&l->mu);
    return st;
}

/* ---- counting ----------------------------------------------------------- */

static void
count_name(struct counted *t, size_t cap, unsigned long *other, const char *name)
{
    size_t i;

    for (i = 0; i < cap && t[i].name != NULL; i++)
        if (strcmp(t[i].name, name) == 0)
            break;
    if (i == cap) {
        (*other)++;
        return;
    }
    t[i].name = name;
    t[i].n++;
}

static void
wipe_free(char *s)
{
    if (s != NULL) {
        kdf_wipe(s, strlen(s));
        free(s);
    }
}

static void
free_part(struct part *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->it[i].user);
        wipe_free(p->it[i].old);
        wipe_free(p->it[i].repl);
    }
    free(p->it);
}

/* ---- choosing the entries ----------------------------------------------- */

/* Is field f[0..n) of user one to wrap?  SK_COUNT yes (*unkeyed set for an
 * admin under a pepper, *scheme its scheme's name), else why not.  user
 * NULL (--values): no account, so no xcrypt-only or admin rule.  *why
 * (may be NULL) gets the parser's reason for an unreadable one. */
static enum skip
classify(struct wrap *w, const char *user, const char *f, size_t n, size_t *bangs,
         int *unkeyed, const char **scheme, const char **why)
{
    const struct kdf_policy *pol = w->pol;
    struct kdf_hash h;
    enum kdf_rehash r;
    int xo;

    *bangs = 0;
    *unkeyed = 0;
    if (n == 0)
        return SK_EMPTY;
    while (*bangs < n && f[*bangs] == '!')
        (*bangs)++;
    if (*bangs == n || f[*bangs] == '*')
        return SK_LOCKED;
    if (kdf_parse(f + *bangs, n - *bangs, &h, why) != KDF_OK)
        return SK_UNREADABLE;
    if (h.scheme == KDF_SCHEME_EMPTY)
        return SK_EMPTY;
    if (h.scheme == KDF_SCHEME_LOCKED)
        return SK_LOCKED;
    if (h.scheme == KDF_SCHEME_WRAPPED)
        return SK_WRAPPED;
    /* Keyed: nothing cracks without the key, and kdf_wrap() takes none;
     * the next login moves it as the policy says. */
    if (h.keyid.len != 0)
        return SK_KEYED;
    /* Over the caps: the module refuses it at login, and the proof that
     * its setting stands alone would cost what the caps forbid. */
    if (kdf_check_caps(&h, 0, pol, NULL) != KDF_OK)
        return SK_UNREADABLE;
    /* sulogin and rescue media read these accounts through libxcrypt; an
     * account database that fails keeps the entry as it is (fail-safe). */
    xo = user != NULL ? kdf_pam_xcrypt_only(pol, user) : 0;
    if (xo != 0)
        return SK_XCRYPT_ONLY;
    if (user != NULL && pol->pepper[0] != '\0' && kdf_pam_admin(pol, user) != 0) {
        *unkeyed = 1;
        pol = &w->unkeyed;
    }
    r = kdf_needs_rehash(&h, pol);
    switch (r) {
    case KDF_REHASH_NO: return SK_CURRENT;
    case KDF_REHASH_HEAVY: return SK_HEAVY;
    case KDF_REHASH_MIGRATE: return SK_MIGRATE;
    case KDF_REHASH_FORM: return SK_FORM;
    case KDF_REHASH_WRAPPED: return SK_WRAPPED;
    default: break;
    }
    *scheme = kdf_hash_scheme_name(&h);
    return SK_COUNT;
}

/* Room for one more item in p: 0, or -1 (p->oom set). */
static int
grow_items(struct part *p)
{
    size_t ncap = p->cap ? p->cap * 2 : 64;
    struct item *nt = realloc(p->it, ncap * sizeof *nt);

    if (nt == NULL) {
        p->oom = 1;
        return -1;
    }
    p->it = nt;
    p->cap = ncap;
    return 0;
}

/* Note field f[0..n) of user[0..ulen) in p: skipped, or an item. */
static void
consider(struct wrap *w, struct part *p, const char *user, size_t ulen, const char *f,
         size_t n)
{
    char name[KDF_SHADOW_MAX_NAME + 1];
    const char *scheme = NULL;
    struct item *it;
    size_t bangs;
    int unkeyed;
    enum skip s;

    if (ulen > KDF_SHADOW_MAX_NAME || !kdf_shadow_name_span_ok(user, ulen)) {
        p->skipped[SK_UNREADABLE]++;
        return;
    }
    memcpy(name, user, ulen);
    name[ulen] = '\0';
    s = classify(w, name, f, n, &bangs, &unkeyed, &scheme, NULL);
    if (s == SK_COUNT && p->history && bangs > 0)
        s = SK_LOCKED; /* no history entry is locked: not ours to guess */
    if (s != SK_COUNT) {
        p->skipped[s]++;
        return;
    }
    count_name(p->schemes, WRAP_SCHEMES, &p->other_schemes, scheme);
    if (w->dry)
        return;
    if (p->n == p->cap && grow_items(p) != 0)
        return;
    it = &p->it[p->n];
    memset(it, 0, sizeof *it);
    it->user = strdup(name);
    it->old = malloc(n + 1);
    if (it->user == NULL || it->old == NULL) {
        free(it->user);
        free(it->old);
        p->oom = 1;
        return;
    }
    memcpy(it->old, f, n);
    it->old[n] = '\0';
    it->bangs = bangs;
    it->unkeyed = unkeyed;
    p->n++;
}

struct collect {
    struct wrap *w;
    struct part *p;
};

static void
shadow_line(void *arg, unsigned long lineno, const struct kdf_shadow_line *l)
{
    struct collect *c = arg;

    (void)lineno;
    if (l->kind != KDF_SHADOW_ENTRY)
        return;
    if (!kdf_shadow_field_ok(&l->field[1])) {
        c->p->skipped[SK_UNREADABLE]++;
        return;
    }
    consider(c->w, c->p, l->field[0].ptr, l->field[0].len, l->field[1].ptr, l->field[1].len);
}

static int
history_entry(void *arg, const char *user, size_t ulen, const char *e, size_t n)
{
    struct collect *c = arg;

    consider(c->w, c->p, user, ulen, e, n);
    return 0;
}

/* ---- making the hashes -------------------------------------------------- */

static void
wrap_one(struct wrap *w, struct item *it)
{
    const struct kdf_policy *pol = it->unkeyed ? &w->unkeyed : w->pol;
    char out[KDF_MAX_HASH_STR + 1];
    size_t on;

    if (kdf_wrap(it->old + it->bangs, strlen(it->old) - it->bangs, &pol->target, pol, out,
                 sizeof out, &it->why) != KDF_OK) {
        if (it->why == NULL)
            it->why = "failed";
        kdf_wipe(out, sizeof out);
        return;
    }
    on = strlen(out);
    it->repl = malloc(it->bangs + on + 1);
    if (it->repl == NULL)
        it->why = "out of memory";
    else {
        memset(it->repl, '!', it->bangs);
        memcpy(it->repl + it->bangs, out, on + 1);
    }
    kdf_wipe(out, sizeof out);
}

/* Take the next entry of the batch until it ends or its time is up. */
static void *
worker(void *arg)
{
    struct wrap *w = arg;

    for (;;) {
        size_t i;

        pthread_mutex_lock(&w->mu);
        if (w->next >= w->end ||
            (w->next > w->start && cli_now_ms() - w->batch_t0 > WRAP_BATCH_MS)) {
            pthread_mutex_unlock(&w->mu);
            return NULL;
        }
        i = w->next++;
        pthread_mutex_unlock(&w->mu);
        wrap_one(w, &w->cur->it[i]);
    }
}

/* Hash the items [start, ...) of p: *end gets where the batch stopped. */
static void
hash_batch(struct wrap *w, struct part *p, size_t start, size_t *end)
{
    pthread_t tid[WRAP_MAX_JOBS];
    unsigned started = 0;

    w->cur = p;
    w->start = w->next = start;
    w->end = start + w->batch < p->n ? start + w->batch : p->n;
    w->batch_t0 = cli_now_ms();
    for (unsigned j = 1; j < w->jobs; j++) {
        if (pthread_create(&tid[started], NULL, worker, w) != 0)
            break;
        started++;
    }
    (void)worker(w); /* this thread works too: a failed create only slows */
    for (unsigned j = 0; j < started; j++)
        pthread_join(tid[j], NULL);
    *end = w->next;
}

static void
show_progress(struct wrap *w)
{
    double secs = (cli_now_ms() - w->t0) / 1000.0;
    double rate = secs > 0 ? (double)w->progress / secs : 0;
    unsigned long left = w->total - w->progress;

    if (!w->tty)
        return;
    fprintf(stderr, "\rwrap: %lu/%lu entries, %.0f/s, about %.0f s left   ", w->progress,
            w->total, rate, rate > 0 ? (double)left / rate : 0.0);
    fflush(stderr);
}

/* A user name for a message: what a terminal would act on becomes '?'. */
static const char *
shown(const char *user, char *buf, size_t cap)
{
    size_t i = 0;

    for (; user[i] != '\0' && i + 1 < cap; i++)
        buf[i] = (unsigned char)user[i] > 0x20 && (unsigned char)user[i] < 0x7f ? user[i] : '?';
    buf[i] = '\0';
    return buf;
}

/* One audit record per entry of a batch (audit_rec.h), once its outcome
 * is known: ws for all when the batch was not written, else each entry's
 * own.  Per entry, as chpasswd writes them, so that ausearch -ua USER
 * finds the user's.  new-scheme: the target the old hash is wrapped in. */
static void
record_batch(int afd, const struct wrap *w, const struct part *p,
             const struct kdf_write_change *ch, size_t k, enum kdf_write_status ws)
{
    char err[160] = "";

    for (size_t i = 0; i < k; i++) {
        struct kdf_audit_rec r = {
            .op = p->history ? KDF_AUDIT_WRAP_HISTORY : KDF_AUDIT_WRAP,
            .user = ch[i].user,
            .old_scheme = kdf_audit_scheme_of(ch[i].old_hash),
            .new_scheme = ch[i].new_hash != NULL ? kdf_target_name(&w->pol->target) : NULL,
        };

        if (kdf_audit_log(afd, &r, ws == KDF_WRITE_OK ? ch[i].st : ws, err, sizeof err) != 0) {
            cli_error("wrap: %s", err);
            return;
        }
    }
}

/* Hash and write p, a batch at a time. */
static void
run_part(struct wrap *w, struct part *p, const char *lock_for)
{
    struct kdf_write_change *ch = calloc(w->batch, sizeof *ch);
    char err[256], u1[40], u2[40];
    int afd;

    if (ch == NULL) {
        p->oom = 1;
        return;
    }
    err[0] = '\0';
    afd = p->n > 0 ? kdf_audit_open(err, sizeof err) : -1;
    if (afd == -2)
        cli_error("wrap: %s", err);
    for (size_t s = 0, e; s < p->n; s = e) {
        enum kdf_write_status ws;
        size_t k = 0;

        if (p->history && w->drop_history)
            e = s + w->batch < p->n ? s + w->batch : p->n;
        else
            hash_batch(w, p, s, &e);
        for (size_t i = s; i < e; i++) {
            struct item *it = &p->it[i];

            if (!(p->history && w->drop_history) && it->repl == NULL) {
                p->refused++;
                count_name(p->refusals, WRAP_REASONS, &p->other_refusals, it->why);
                continue;
            }
            ch[k].user = it->user;
            ch[k].old_hash = it->old;
            ch[k].new_hash = it->repl; /* NULL: dropped (--history drop) */
            ch[k].st = KDF_WRITE_IO_ERROR;
            k++;
        }
        err[0] = '\0';
        if (k == 0)
            ws = KDF_WRITE_OK;
        else if (p->history)
            ws = kdf_write_opasswd_replace(p->path, lock_for, ch, k, WRAP_LOCK_WAIT_MS, err,
                                           sizeof err);
        else
            ws = kdf_write_hashes(p->path, NULL, ch, k, KDF_BACKUP_NEW, WRAP_LOCK_WAIT_MS,
                                  err, sizeof err);
        if (ws != KDF_WRITE_OK) {
            if (w->tty)
                fputc('\n', stderr);
            cli_error("wrap: %s: a batch of %zu entries (%s to %s) was not written: %s%s%s",
                      p->path, k, shown(ch[0].user, u1, sizeof u1),
                      shown(ch[k - 1].user, u2, sizeof u2), kdf_write_status_str(ws),
                      err[0] ? ": " : "", err);
            p->failed += k;
        } else {
            /* Written, with a word to say (the backup not refreshed, the
             * directory not synced): a rerun repairs it. */
            if (err[0] != '\0')
                cli_error("wrap: %s: %s", p->path, err);
            for (size_t i = 0, j = s; i < k; i++) {
                while (!(p->history && w->drop_history) && p->it[j].repl == NULL)
                    j++;
                if (ch[i].st == KDF_WRITE_OK) {
                    p->done++;
                    p->locked += p->it[j].bangs > 0;
                } else if (ch[i].st == KDF_WRITE_CAS_FAILED)
                    p->cas++;
                else
                    p->gone++;
                j++;
            }
        }
        record_batch(afd, w, p, ch, k, ws);
        w->progress += e - s;
        show_progress(w);
    }
    kdf_audit_close(afd);
    free(ch);
}

/* ---- the report --------------------------------------------------------- */

static void
print_part(const struct wrap *w, const struct part *p)
{
    const char *verb = p->history && w->drop_history ? "drop" : "wrap";

    printf("# %s%s\n", p->history ? "history " : "", p->path);
    if (w->dry) {
        unsigned long n = p->other_schemes;

        for (size_t i = 0; i < WRAP_SCHEMES && p->schemes[i].name != NULL; i++)
            n += p->schemes[i].n;
        printf("would %s: %lu\n", verb, n);
        for (size_t i = 0; i < WRAP_SCHEMES && p->schemes[i].name != NULL; i++)
            printf("would %s %s: %lu\n", verb, p->schemes[i].name, p->schemes[i].n);
        if (p->other_schemes)
            printf("would %s (other schemes): %lu\n", verb, p->other_schemes);
    } else {
        printf("%s: %lu\n", p->history && w->drop_history ? "dropped" : "wrapped", p->done);
        if (!p->history)
            printf("wrapped locked: %lu\n", p->locked);
    }
    for (int s = 0; s < SK_COUNT; s++)
        printf("skipped %s: %lu\n", g_skip_names[s], p->skipped[s]);
    if (w->dry)
        return;
    printf("refused: %lu\n", p->refused);
    for (size_t i = 0; i < WRAP_REASONS && p->refusals[i].name != NULL; i++)
        printf("refused (%s): %lu\n", p->refusals[i].name, p->refusals[i].n);
    if (p->other_refusals)
        printf("refused (other reasons): %lu\n", p->other_refusals);
    printf("changed meanwhile: %lu\n", p->cas + p->gone);
    printf("not written (batch failed): %lu\n", p->failed);
}

static void
log_run(const struct wrap *w, const struct part *sh, const struct part *hi)
{
    char hist[256] = "";

    if (hi != NULL)
        snprintf(hist, sizeof hist, "; history %s: %s %lu, refused %lu, changed %lu, "
                                    "failed %lu",
                 hi->path, w->drop_history ? "dropped" : "wrapped", hi->done, hi->refused,
                 hi->cas + hi->gone, hi->failed);
    openlog("kdfhash", LOG_PID, LOG_AUTHPRIV);
    syslog(LOG_NOTICE, "wrap %s: wrapped %lu (locked %lu), refused %lu, changed %lu, "
                       "failed %lu%s",
           sh->path, sh->done, sh->locked, sh->refused, sh->cas + sh->gone, sh->failed, hist);
    closelog();
}

/* ---- the command -------------------------------------------------------- */

static int
parse_count(const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || v == 0 || v > max)
        return -1;
    *out = v;
    return 0;
}

static int
cmp_item_user(const void *a, const void *b)
{
    return strcmp((*(const struct item *const *)a)->user, (*(const struct item *const *)b)->user);
}

/* A user on several lines: the module refuses every one of them (and the
 * writer a batch that names a user twice), so none is wrapped. */
static void
drop_duplicates(struct part *p)
{
    struct item **by = p->n > 1 ? malloc(p->n * sizeof *by) : NULL;
    size_t k = 0;

    if (by == NULL) {
        p->oom = p->n > 1;
        return;
    }
    for (size_t i = 0; i < p->n; i++)
        by[i] = &p->it[i];
    qsort(by, p->n, sizeof *by, cmp_item_user);
    for (size_t i = 0; i + 1 < p->n; i++)
        if (strcmp(by[i]->user, by[i + 1]->user) == 0)
            by[i]->bangs = by[i + 1]->bangs = SIZE_MAX; /* marked */
    free(by);
    for (size_t i = 0; i < p->n; i++) {
        if (p->it[i].bangs == SIZE_MAX) {
            p->skipped[SK_UNREADABLE]++;
            free(p->it[i].user);
            wipe_free(p->it[i].old);
            continue;
        }
        p->it[k++] = p->it[i];
    }
    p->n = k;
}

static int
read_shadow(struct wrap *w, struct part *p)
{
    struct collect c = {w, p};
    int fd = open(p->path, O_RDONLY | O_CLOEXEC | O_NOCTTY), rc = CLI_OK;

    if (fd < 0) {
        cli_error("wrap: cannot open %s: %s", p->path, strerror(errno));
        return CLI_ERR;
    }
    switch (kdf_shadow_read_fd(fd, shadow_line, &c)) {
    case KDF_SHADOW_READ_OK: break;
    case KDF_SHADOW_READ_ERR:
        cli_error("wrap: %s: read error: %s", p->path, strerror(errno));
        rc = CLI_ERR;
        break;
    case KDF_SHADOW_READ_NOMEM: p->oom = 1; break;
    }
    close(fd);
    return rc;
}

/* A wrap is background work: at niceness n at least, set before the
 * workers start (Linux threads, the core's lane threads too, inherit it),
 * so that a login meanwhile is not slowed by it more than need be. */
static void
lower_priority(unsigned n)
{
    int cur;

    errno = 0;
    cur = getpriority(PRIO_PROCESS, 0);
    if (errno == 0 && cur >= (int)n)
        return;
    if (setpriority(PRIO_PROCESS, 0, (int)n) != 0)
        cli_error("wrap: cannot lower the priority to %u: %s", n, strerror(errno));
}

/* ---- --values: a filter of hash strings -------------------------------- */

/* The longest input line read as a value ({NAME} and all): longer ones are
 * no hash string of ours, and are refused without being kept. */
#define WRAP_VALUE_MAX (2 * KDF_MAX_HASH_STR)
#define WRAP_READ_BUF (64 * 1024)

/* stdin read by hand: a batch ends when no more input is ready (poll), so
 * that a caller writing a batch and then reading its answers never waits
 * for input it has not sent; stdio would hide what it holds from poll. */
struct lreader {
    char buf[WRAP_READ_BUF];
    size_t start, end;
    int eof, skipping;
};

enum { LR_LINE, LR_NONE, LR_EOF, LR_ERR };

/* The next line of r into *line (NUL-terminated in place, *len; *toolong
 * for a line over WRAP_VALUE_MAX, whose text is dropped).  block: wait for
 * input; else LR_NONE when none is ready. */
static int
next_line(struct lreader *r, int block, char **line, size_t *len, int *toolong)
{
    for (;;) {
        char *nl = r->end > r->start ? memchr(r->buf + r->start, '\n', r->end - r->start) : NULL;
        ssize_t got;

        if (nl != NULL || (r->eof && r->end > r->start)) {
            size_t n = nl != NULL ? (size_t)(nl - (r->buf + r->start)) : r->end - r->start;

            *line = r->buf + r->start;
            (*line)[n] = '\0'; /* the '\n', or the byte after a last line */
            *len = n;
            *toolong = r->skipping || n > WRAP_VALUE_MAX;
            r->skipping = 0;
            r->start += n + (nl != NULL);
            return LR_LINE;
        }
        if (r->eof)
            return LR_EOF;
        if (r->end - r->start > WRAP_VALUE_MAX) {
            /* No line ends within the limit: drop what is read of it. */
            kdf_wipe(r->buf, r->end);
            r->start = r->end = 0;
            r->skipping = 1;
        }
        if (r->start > 0) {
            memmove(r->buf, r->buf + r->start, r->end - r->start);
            r->end -= r->start;
            kdf_wipe(r->buf + r->end, r->start);
            r->start = 0;
        }
        if (!block) {
            struct pollfd pfd = {STDIN_FILENO, POLLIN, 0};

            if (poll(&pfd, 1, 0) <= 0)
                return LR_NONE;
        }
        /* One byte kept for the NUL after a last line without '\n'. */
        got = read(STDIN_FILENO, r->buf + r->end, sizeof r->buf - 1 - r->end);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return LR_ERR;
        }
        if (got == 0)
            r->eof = 1;
        r->end += (size_t)got;
    }
}

/* One input line's answer. */
struct vline {
    enum { V_HASH, V_WOULD, V_KEEP, V_REFUSED } kind;
    int ds;          /* a directory value: answered "{KDF-WRAPPED}..." */
    const char *why; /* the reason; V_WOULD (--dry-run): the scheme */
    size_t item;     /* V_HASH: its item in the part */
};

/* Note the value v[0..n) as line l: an item to wrap, or its answer. */
static void
consider_value(struct wrap *w, struct part *p, struct vline *l, const char *v, size_t n,
               int toolong)
{
    char core[KDF_MAX_HASH_STR + 1];
    const char *f = v, *scheme = NULL, *why = NULL;
    struct item *it;
    size_t bangs, cn = n;
    int unkeyed, tagged = 0;
    enum skip s;

    memset(l, 0, sizeof *l);
    l->kind = V_REFUSED;
    if (toolong) {
        l->why = "too long for a hash string";
        return;
    }
    if (n > 0 && v[0] == '{') {
        /* A directory value: what the core reads of it; a wrap of ours is
         * its body (the name in any case, as 389-ds matches it). */
        l->ds = 1;
        tagged = n > sizeof KDF_DS_WRAPPED_TAG - 1 &&
                 strncasecmp(v, KDF_DS_WRAPPED_TAG, sizeof KDF_DS_WRAPPED_TAG - 1) == 0;
        if (kdf_ds_value_string(v, n, core, sizeof core, &cn, &why) != KDF_OK) {
            l->why = why != NULL ? why : "not a directory value the core reads";
            kdf_wipe(core, sizeof core);
            return;
        } else
            f = core;
    }
    why = NULL;
    s = classify(w, NULL, f, cn, &bangs, &unkeyed, &scheme, &why);
    /* A lock marker belongs to a shadow field; in a directory value the
     * "!" would be taken for part of the hash. */
    if (s == SK_COUNT && l->ds && bangs > 0)
        s = SK_LOCKED;
    if (s == SK_UNREADABLE) {
        l->why = why != NULL ? why : "over the caps";
    } else if (tagged && s != SK_WRAPPED) {
        l->why = KDF_DS_WRAPPED_TAG " holding no wrapped hash";
    } else if (s != SK_COUNT) {
        l->kind = V_KEEP;
        l->why = g_skip_names[s];
    } else if (w->dry) {
        l->kind = V_WOULD;
        l->why = scheme;
    } else if (p->n == p->cap && grow_items(p) != 0) {
        l->why = "out of memory";
    } else {
        it = &p->it[p->n];
        memset(it, 0, sizeof *it);
        it->old = malloc(cn + 1);
        if (it->old == NULL) {
            l->why = "out of memory";
        } else {
            memcpy(it->old, f, cn);
            it->old[cn] = '\0';
            it->bangs = bangs;
            l->kind = V_HASH;
            l->item = p->n++;
        }
    }
    kdf_wipe(core, sizeof core);
}

/* Write the answers of lines[0..n) and flush: the caller reads them before
 * it sends more.  0, or -1 when standard output failed. */
static int
answer_values(const struct part *p, const struct vline *lines, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct vline *l = &lines[i];
        const struct item *it = l->kind == V_HASH ? &p->it[l->item] : NULL;

        if (it != NULL && it->repl != NULL)
            printf("wrapped\t%s%s\n", l->ds ? KDF_DS_WRAPPED_TAG : "", it->repl);
        else if (it != NULL)
            printf("refused\t%s\n", it->why != NULL ? it->why : "failed");
        else
            printf("%s\t%s\n",
                   l->kind == V_WOULD  ? "would-wrap"
                   : l->kind == V_KEEP ? "keep"
                                       : "refused",
                   l->why);
    }
    return fflush(stdout) == 0 ? 0 : -1;
}

/* --values: stdin to stdout, one answer per line, in order; each batch is
 * what is ready (at most --batch lines), hashed by the --jobs workers. */
static int
run_values(struct wrap *w)
{
    struct lreader *rd = calloc(1, sizeof *rd);
    struct vline *lines = calloc(w->batch, sizeof *lines);
    struct part p;
    int rc = CLI_OK, eof = 0;

    memset(&p, 0, sizeof p);
    if (rd == NULL || lines == NULL) {
        free(rd);
        free(lines);
        cli_error("out of memory");
        return CLI_ERR;
    }
    lower_priority(w->nice);
    while (!eof && rc == CLI_OK) {
        size_t n = 0;

        while (n < w->batch) {
            char *v;
            size_t len;
            int toolong, r = next_line(rd, n == 0, &v, &len, &toolong);

            if (r == LR_NONE)
                break;
            if (r == LR_EOF) {
                eof = 1;
                break;
            }
            if (r == LR_ERR) {
                cli_error("wrap: read error: %s", strerror(errno));
                rc = CLI_ERR;
                break;
            }
            consider_value(w, &p, &lines[n++], v, len, toolong);
            kdf_wipe(v, len);
        }
        for (size_t s = 0, e; s < p.n; s = e)
            hash_batch(w, &p, s, &e); /* cut by time: the rest next round */
        if (n > 0 && answer_values(&p, lines, n) != 0) {
            cli_error("wrap: write error: %s", strerror(errno));
            rc = CLI_ERR;
        }
        free_part(&p);
        memset(&p, 0, sizeof p);
    }
    kdf_wipe(rd->buf, sizeof rd->buf);
    free(rd);
    free(lines);
    return rc;
}

int
cli_cmd_wrap(int argc, char **argv)
{
    static const struct option opts[] = {{"shadow", required_argument, NULL, 's'},
                                         {"opasswd", required_argument, NULL, 'o'},
                                         {"no-opasswd", no_argument, NULL, 'O'},
                                         {"history", required_argument, NULL, 'H'},
                                         {"dry-run", no_argument, NULL, 'n'},
                                         {"jobs", required_argument, NULL, 'j'},
                                         {"batch", required_argument, NULL, 'b'},
                                         {"conf", required_argument, NULL, 'c'},
                                         {"config", required_argument, NULL, 'c'},
                                         {"keys", required_argument, NULL, 'k'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"nice", required_argument, NULL, 'N'},
                                         {"values", no_argument, NULL, 'V'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *conf = NULL, *bad = NULL, *hist = CLI_HISTORY_FILE;
    struct kdf_policy pol;
    struct locked_ring lr;
    struct wrap w;
    struct part sh, hi;
    unsigned long v;
    long cpus;
    int c, rc = CLI_OK, no_hist = 0, missing = 0, values = 0, files = 0;

    memset(&w, 0, sizeof w);
    memset(&sh, 0, sizeof sh);
    memset(&hi, 0, sizeof hi);
    sh.path = "/etc/shadow";
    cpus = sysconf(_SC_NPROCESSORS_ONLN);
    w.jobs = cpus < 1 ? 1 : cpus > WRAP_MAX_JOBS ? WRAP_MAX_JOBS : (unsigned)cpus;
    w.batch = WRAP_BATCH;
    w.nice = WRAP_NICE;
    optind = 1;
    while ((c = cli_getopt(argc, argv, ":nqh", opts, &bad)) != -1) {
        switch (c) {
        case 's': sh.path = optarg; files = 1; break;
        case 'o': hist = optarg; files = 1; break;
        case 'O': no_hist = 1; files = 1; break;
        case 'V': values = 1; break;
        case 'H':
            files = 1;
            if (strcmp(optarg, "wrap") == 0)
                w.drop_history = 0;
            else if (strcmp(optarg, "drop") == 0)
                w.drop_history = 1;
            else {
                cli_error("wrap: --history takes wrap or drop, not '%.40s'", optarg);
                return CLI_ERR;
            }
            break;
        case 'n': w.dry = 1; break;
        case 'j':
            if (parse_count(optarg, WRAP_MAX_JOBS, &v) != 0) {
                cli_error("wrap: --jobs takes 1 to %d", WRAP_MAX_JOBS);
                return CLI_ERR;
            }
            w.jobs = (unsigned)v;
            break;
        case 'b':
            if (parse_count(optarg, 100000, &v) != 0) {
                cli_error("wrap: --batch takes 1 to 100000");
                return CLI_ERR;
            }
            w.batch = v;
            break;
        case 'c': conf = optarg; break;
        case 'k': cli_set_keys_dir(optarg); break;
        case 'q': w.quiet = 1; files = 1; break;
        case 'N':
            if (strcmp(optarg, "0") == 0)
                v = 0;
            else if (parse_count(optarg, 19, &v) != 0) {
                cli_error("wrap: --nice takes 0 to 19");
                return CLI_ERR;
            }
            w.nice = (unsigned)v;
            break;
        case 'h': usage(stdout); return CLI_OK;
        default:
            cli_error("wrap: unknown or incomplete option '%.40s'", bad ? bad : "?");
            usage(stderr);
            return CLI_ERR;
        }
    }
    if (optind != argc) {
        cli_error("wrap: unexpected argument '%.40s'", argv[optind]);
        usage(stderr);
        return CLI_ERR;
    }
    if (values && files) {
        cli_error("wrap: --values takes no --shadow, --opasswd, --no-opasswd, --history "
                  "or --quiet");
        usage(stderr);
        return CLI_ERR;
    }
    if (cli_load_policy(&pol, conf) != CLI_OK)
        return CLI_ERR;
    lr.inner = pol.keys;
    lr.ring.get = locked_get;
    lr.ring.ctx = &lr;
    pthread_mutex_init(&lr.mu, NULL);
    pthread_mutex_init(&w.mu, NULL);
    if (pol.keys != NULL)
        pol.keys = &lr.ring;
    w.pol = &pol;
    w.unkeyed = pol;
    w.unkeyed.pepper[0] = '\0';
    w.tty = !w.quiet && !w.dry && isatty(STDERR_FILENO);
    if (values) {
        rc = run_values(&w);
        pthread_mutex_destroy(&w.mu);
        pthread_mutex_destroy(&lr.mu);
        return rc;
    }

    rc = read_shadow(&w, &sh);
    if (rc == CLI_OK)
        drop_duplicates(&sh);
    hi.path = hist;
    hi.history = 1;
    if (rc == CLI_OK && !no_hist) {
        struct collect cc = {&w, &hi};

        if (cli_history_each(hist, history_entry, &cc, &missing) != CLI_OK)
            rc = CLI_ERR;
    }
    if (sh.oom || hi.oom) {
        cli_error("out of memory");
        rc = CLI_ERR;
    }
    if (rc == CLI_OK && !w.dry) {
        w.total = (unsigned long)(sh.n + hi.n);
        lower_priority(w.nice);
        w.t0 = cli_now_ms();
        run_part(&w, &sh, NULL);
        if (!no_hist && !missing)
            run_part(&w, &hi, sh.path);
        if (w.tty && w.total > 0)
            fputc('\n', stderr); /* the progress line stays */
        if (sh.oom || hi.oom) {
            cli_error("out of memory");
            rc = CLI_ERR;
        }
        log_run(&w, &sh, no_hist || missing ? NULL : &hi);
    }
    if (rc == CLI_OK) {
        print_part(&w, &sh);
        if (!no_hist && !missing)
            print_part(&w, &hi);
        else if (!no_hist)
            printf("# history %s: none\n", hist);
        if (sh.refused || sh.failed || hi.refused || hi.failed)
            rc = CLI_NO;
    }
    free_part(&sh);
    free_part(&hi);
    pthread_mutex_destroy(&w.mu);
    pthread_mutex_destroy(&lr.mu);
    if (fflush(stdout) != 0) {
        cli_error("write error");
        rc = CLI_ERR;
    }
    return rc;
}
