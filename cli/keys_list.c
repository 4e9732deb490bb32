/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * keys_list.c - `kdfhash keys list`: every key that matters, with its
 * state, so that a missing key is seen before a login is refused for it.
 * A key matters when it is the policy's pepper (new hashes are made with
 * it), when a file of the key directory holds it, and when an entry of
 * the shadow file or of the password history names it (that entry cannot
 * be verified without it).  Each is asked as a login would ask it
 * (kdf_keystore_state(): a TPM key through the child and deadline of
 * tpm_child.c).  Exit 1 when a key that is needed (the pepper, or one
 * an entry names) cannot be used.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "keystore.h"
#include "shadow_line.h"

#define MAX_ROWS 256

struct row {
    char id[KDF_KEYID_CAP];
    int in_dir, pepper;
    unsigned long entries, history;
};

struct rows {
    struct row r[MAX_ROWS];
    size_t n;
    unsigned long others; /* entries naming keys beyond MAX_ROWS */
};

static struct row *
row_of(struct rows *t, const char *id)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->r[i].id, id) == 0)
            return &t->r[i];
    if (t->n == MAX_ROWS)
        return NULL;
    memset(&t->r[t->n], 0, sizeof t->r[0]);
    snprintf(t->r[t->n].id, sizeof t->r[0].id, "%s", id);
    return &t->r[t->n++];
}

static void
shadow_entry(void *arg, unsigned long lineno, const struct kdf_shadow_line *l)
{
    struct rows *t = arg;
    char id[KDF_KEYID_CAP];
    struct row *r;

    (void)lineno;
    if (l->kind != KDF_SHADOW_ENTRY || l->nfields < 2 ||
        !cli_hash_keyid(l->field[1].ptr, l->field[1].len, id))
        return;
    if ((r = row_of(t, id)) != NULL)
        r->entries++;
    else
        t->others++;
}

static int
history_entry(void *arg, const char *user, size_t ulen, const char *e, size_t n)
{
    struct rows *t = arg;
    char id[KDF_KEYID_CAP];
    struct row *r;

    (void)user;
    (void)ulen;
    if (!cli_hash_keyid(e, n, id))
        return 0;
    if ((r = row_of(t, id)) != NULL)
        r->history++;
    else
        t->others++;
    return 0;
}

static int
by_id(const void *a, const void *b)
{
    return strcmp(((const struct row *)a)->id, ((const struct row *)b)->id);
}

/* The key files of dir (retired ones and strays are not keys). */
static void
scan_dir(struct rows *t, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    struct row *r;

    if (d == NULL) {
        printf("# %s: %s\n", dir, errno == ENOENT ? "missing: no key files" : strerror(errno));
        return;
    }
    while ((de = readdir(d)) != NULL)
        if (kdf_keyid_valid(de->d_name, strlen(de->d_name)) && (r = row_of(t, de->d_name)))
            r->in_dir = 1;
    closedir(d);
}

static void
print_row(const char *dir, const struct row *r, enum kdf_key_state st, const char *why)
{
    uint8_t key[KDF_KEY_MAX];
    size_t len = 0;
    char when[32] = "?", tcti[256], path[4096], e2[KDF_KEYSTORE_ERR];
    uint32_t handle = 0;
    struct stat sb;
    struct tm tm;

    printf("%s ", r->id);
    if (st == KDF_KEY_FILE || st == KDF_KEY_TPM) {
        snprintf(path, sizeof path, "%s/%s", dir, r->id);
        if (stat(path, &sb) == 0 && gmtime_r(&sb.st_mtime, &tm) != NULL)
            strftime(when, sizeof when, "%Y-%m-%d", &tm);
        if (st == KDF_KEY_FILE) {
            (void)kdf_keystore_read(dir, r->id, key, &len, e2, sizeof e2);
            kdf_wipe(key, sizeof key);
            printf("%u bits %s file", (unsigned)(len * 8), when);
        } else {
            (void)kdf_keystore_tpm_of(dir, r->id, &handle, tcti, sizeof tcti, e2, sizeof e2);
            printf("%u bits %s tpm 0x%08x %s", (unsigned)KDF_TPM_SECRET_LEN * 8, when,
                   (unsigned)handle, tcti);
        }
    } else {
        printf("%s (%s)", kdf_key_state_name(st), why);
        snprintf(path, sizeof path, "%s/%s.retired", dir, r->id);
        if (st == KDF_KEY_MISSING && lstat(path, &sb) == 0)
            printf(" (retired as %s.retired)", r->id);
    }
    printf(": %lu entr%s, %lu history entr%s%s\n", r->entries, r->entries == 1 ? "y" : "ies",
           r->history, r->history == 1 ? "y" : "ies", r->pepper ? ", the pepper" : "");
}

int
cli_keys_list(const char *dir, const char *conf, const char *const *shadow, size_t nshadow,
              const char *history)
{
    struct kdf_policy pol;
    struct rows *t;
    unsigned long lost = 0, lost_h = 0;
    int rc = CLI_OK, missing = 0, pepper_bad = 0;

    cli_set_keys_dir(dir);
    if (cli_load_policy(&pol, conf) != CLI_OK)
        return CLI_ERR;
    t = calloc(1, sizeof *t);
    if (t == NULL) {
        cli_error("out of memory");
        return CLI_ERR;
    }
    scan_dir(t, dir);
    if (pol.pepper[0] != '\0') {
        struct row *r = row_of(t, pol.pepper);

        if (r != NULL)
            r->pepper = 1;
    }
    for (size_t i = 0; i < nshadow && rc == CLI_OK; i++) {
        int fd = open(shadow[i], O_RDONLY | O_CLOEXEC | O_NOCTTY);

        if (fd < 0) {
            /* Not knowing which keys the entries need is no answer. */
            cli_error("%s: %s", shadow[i], strerror(errno));
            rc = CLI_ERR;
        } else {
            if (kdf_shadow_read_fd(fd, shadow_entry, t) != KDF_SHADOW_READ_OK) {
                cli_error("%s: read error", shadow[i]);
                rc = CLI_ERR;
            }
            close(fd);
        }
    }
    if (rc == CLI_OK && cli_history_each(history, history_entry, t, &missing) != CLI_OK)
        rc = CLI_ERR;
    if (rc != CLI_OK) {
        free(t);
        return rc;
    }
    qsort(t->r, t->n, sizeof t->r[0], by_id);
    for (size_t i = 0; i < t->n; i++) {
        struct row *r = &t->r[i];
        char why[KDF_KEYSTORE_ERR] = "";
        enum kdf_key_state st = kdf_keystore_state(dir, r->id, &cli_tpm, why, sizeof why);

        print_row(dir, r, st, why);
        if (st != KDF_KEY_FILE && st != KDF_KEY_TPM) {
            lost += r->entries;
            lost_h += r->history;
            pepper_bad |= r->pepper;
        }
    }
    if (t->others > 0)
        printf("# %lu entries name keys beyond the first %d, not checked\n", t->others,
               MAX_ROWS);
    if (lost + lost_h > 0 || pepper_bad) {
        if (lost + lost_h > 0)
            cli_error("%lu entr%s and %lu history entr%s cannot be verified: their keys "
                      "cannot be used",
                      lost, lost == 1 ? "y" : "ies", lost_h, lost_h == 1 ? "y" : "ies");
        if (pepper_bad)
            cli_error("the pepper, key %s, cannot be used: no new hash can be made with it",
                      pol.pepper);
        cli_error("restore a key from its backup (install -m 0640 -o root -g shadow BACKUP "
                  "%s/ID; kdfhash keys export made it), or set pepper = none or a new key "
                  "(kdfhash keys new)",
                  dir);
        rc = CLI_NO;
    }
    free(t);
    return rc;
}
