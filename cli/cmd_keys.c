/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_keys.c - `kdfhash keys new | list | retire ID | export ID`: the keys
 * (peppers) of keyed hashes, one file each in the key directory
 * (keys/keystore.c).  No key byte goes to argv, the environment or a
 * log: `new` prints the new key's ID only, `export` writes the key file's
 * line to standard output for an offline backup, `list` shows every key
 * that matters with its state (keys_list.c), and `retire` refuses while an
 * entry of the shadow file or of the password history still names the
 * key, and says whose (--drop-history drops such history entries first).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "keystore.h"
#include "shadow_line.h"

static void
usage(FILE *f)
{
    fputs("Usage: kdfhash keys [--dir DIR] [--tpm [--tcti CONF]] new\n"
          "       kdfhash keys [--dir DIR] [--conf FILE] [--shadow FILE] [--history FILE] list\n"
          "       kdfhash keys [--dir DIR] [--shadow FILE] [--history FILE] [--drop-history]\n"
          "                    retire ID\n"
          "       kdfhash keys [--dir DIR] export ID\n"
          "The keys (peppers) of keyed hashes: kdfhash.conf's pepper = ID names the one\n"
          "new hashes take.  new makes a 256-bit key from getrandom(2) and prints its ID;\n"
          "with --tpm the key is made inside the TPM and never leaves it (the file names\n"
          "its handle); list prints the pepper, every key file and every key an entry of\n"
          "the shadow or history file names, each with its state (file, tpm, missing,\n"
          "unreadable, refused) and how many entries name it; retire ID renames the key\n"
          "to ID.retired, and refuses while an entry of the shadow file or of the history\n"
          "is keyed with it; export ID prints the key file's line, for a backup kept\n"
          "offline (losing a key locks out every entry keyed with it).\n"
          "  --dir DIR       the key directory (default " KDF_KEYS_DIR ")\n"
          "  --conf FILE     list: the policy whose pepper is shown (default: the system's)\n"
          "  --shadow FILE   the shadow-style file list and retire read (repeatable;\n"
          "                  default /etc/shadow)\n"
          "  --history FILE  the password history of remember=N (default " CLI_HISTORY_FILE ")\n"
          "  --drop-history  retire: drop the history entries keyed with ID, then retire\n"
          "  --tpm           new: an HMAC key held by the TPM\n"
          "  --tcti CONF     the TPM's TCTI (default " KDF_TPM_DEFAULT_TCTI ")\n",
          f);
    fputs("Exit status: 0 done; 1 retire refused (entries still use the key), or list\n"
          "found a needed key (the pepper, one entries name) that cannot be used; 2 error.\n",
          f);
}

struct users_of {
    const char *id;
    unsigned long n;
};

static void
user_line(void *arg, unsigned long lineno, const struct kdf_shadow_line *l)
{
    struct users_of *u = arg;
    struct kdf_hash h;

    (void)lineno;
    if (l->kind != KDF_SHADOW_ENTRY || l->nfields < 2)
        return;
    if (kdf_parse(l->field[1].ptr, l->field[1].len, &h, NULL) == KDF_OK &&
        h.keyid.len == strlen(u->id) && memcmp(h.keyid.ptr, u->id, h.keyid.len) == 0) {
        if (u->n < 20)
            printf("%s%.*s", u->n ? " " : "still keyed with it: ", (int)l->field[0].len,
                   l->field[0].ptr);
        u->n++;
    }
    kdf_wipe(&h, sizeof h);
}

/* How many entries of path name key id (their users printed), -1 on error. */
static long
count_users(const char *path, const char *id)
{
    struct users_of u = {id, 0};
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

    if (fd < 0) {
        cli_error("%s: %s", path, strerror(errno));
        return -1;
    }
    if (kdf_shadow_read_fd(fd, user_line, &u) != KDF_SHADOW_READ_OK) {
        cli_error("%s: read error", path);
        close(fd);
        return -1;
    }
    close(fd);
    if (u.n > 20)
        printf(" (and %lu more)", u.n - 20);
    if (u.n > 0)
        printf(" (%s)\n", path);
    return (long)u.n;
}

/* The history entries keyed with one key: counted, their users named
 * (each once, the file's lines being one per user); or dropped. */
struct history_of {
    const char *id;
    unsigned long n;
    char last[64];
};

static int
history_user(void *arg, const char *user, size_t ulen, const char *e, size_t n)
{
    struct history_of *u = arg;
    char id[KDF_KEYID_CAP];

    if (!cli_hash_keyid(e, n, id) || strcmp(id, u->id) != 0)
        return 0;
    if (u->n < 20 && !(strlen(u->last) == ulen && memcmp(u->last, user, ulen) == 0)) {
        fputs(u->n ? " " : "still keyed with it in the history: ", stdout);
        /* Odd bytes as '?': nothing a terminal would take for a command. */
        for (size_t i = 0; i < ulen; i++)
            putchar((unsigned char)user[i] > 0x20 && (unsigned char)user[i] < 0x7f ? user[i]
                                                                                  : '?');
        snprintf(u->last, sizeof u->last, "%.*s", (int)ulen, user);
    }
    u->n++;
    return 1;
}

static int
history_drop(void *arg, const char *user, size_t ulen, const char *e, size_t n)
{
    char id[KDF_KEYID_CAP];

    (void)user;
    (void)ulen;
    return cli_hash_keyid(e, n, id) && strcmp(id, (const char *)arg) == 0;
}

static int
keys_retire(const char *dir, const char *id, const char *const *shadow, size_t nshadow,
            const char *history, int drop)
{
    char err[KDF_KEYSTORE_ERR];
    long used = 0;
    struct history_of hu = {id, 0, ""};

    if (!kdf_keyid_valid(id, strlen(id))) {
        cli_error("'%.16s' is not a key ID", id);
        return CLI_ERR;
    }
    for (size_t i = 0; i < nshadow; i++) {
        long n = count_users(shadow[i], id);

        if (n < 0)
            return CLI_ERR;
        used += n;
    }
    if (used > 0) {
        cli_error("key %s not retired: %ld entr%s still keyed with it; they move to the "
                  "pepper at their next login",
                  id, used, used == 1 ? "y is" : "ies are");
        return CLI_NO;
    }
    /* A history entry keyed with a missing key refuses its password's reuse
     * for ever (pam_kdfhash(8), PASSWORD HISTORY): it goes, or the key stays. */
    if (drop) {
        unsigned long gone = 0;

        if (cli_history_drop(history, shadow[0], history_drop, (void *)id, &gone) != CLI_OK)
            return CLI_ERR;
        if (gone > 0)
            printf("dropped %lu history entr%s keyed with %s (%s)\n", gone,
                   gone == 1 ? "y" : "ies", id, history);
    } else {
        if (cli_history_each(history, history_user, &hu, NULL) != CLI_OK)
            return CLI_ERR;
        if (hu.n > 0) {
            printf(" (%s)\n", history);
            cli_error("key %s not retired: %lu history entr%s still keyed with it; "
                      "--drop-history drops them",
                      id, hu.n, hu.n == 1 ? "y is" : "ies are");
            return CLI_NO;
        }
    }
    if (kdf_keystore_retire(dir, id, err, sizeof err) != KDF_OK) {
        cli_error("%s", err);
        return CLI_ERR;
    }
    printf("%s retired (%s/%s.retired)\n", id, dir, id);
    return CLI_OK;
}

static int
keys_export(const char *dir, const char *id)
{
    uint8_t key[KDF_KEY_MAX];
    size_t len = 0;
    char err[KDF_KEYSTORE_ERR], tcti[256];
    uint32_t handle;

    if (kdf_keystore_tpm_of(dir, id, &handle, tcti, sizeof tcti, err, sizeof err)) {
        cli_error("key %s is held by the TPM (handle 0x%08x) and cannot be exported: "
                  "it is lost with the TPM",
                  id, (unsigned)handle);
        return CLI_ERR;
    }
    if (kdf_keystore_read(dir, id, key, &len, err, sizeof err) != KDF_OK) {
        cli_error("%s", err);
        return CLI_ERR;
    }
    if (isatty(STDOUT_FILENO))
        fprintf(stderr, "kdfhash: warning: writing key %s to a terminal\n", id);
    /* The file's own line, so that a restore is a copy back (kdfhash(1)). */
    fputs("kdfhash-key-v1 ", stdout);
    for (size_t i = 0; i < len; i++)
        printf("%02x", key[i]);
    putchar('\n');
    kdf_wipe(key, sizeof key);
    if (fflush(stdout) != 0) {
        cli_error("standard output: %s", strerror(errno));
        return CLI_ERR;
    }
    return CLI_OK;
}

int
cli_cmd_keys(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                          {"dir", required_argument, NULL, 'd'},
                                          {"shadow", required_argument, NULL, 's'},
                                          {"tpm", no_argument, NULL, 't'},
                                          {"tcti", required_argument, NULL, 'T'},
                                          {"conf", required_argument, NULL, 'c'},
                                          {"history", required_argument, NULL, 'H'},
                                          {"drop-history", no_argument, NULL, 'D'},
                                          {NULL, 0, NULL, 0}};
    const char *dir = KDF_KEYS_DIR, *bad = NULL, *shadow[8], *tcti = KDF_TPM_DEFAULT_TCTI;
    const char *conf = NULL, *history = CLI_HISTORY_FILE;
    int tpm = 0, drop = 0;
    size_t nshadow = 0;
    char err[KDF_KEYSTORE_ERR], id[KDF_KEYID_CAP];
    int c;

    optind = 1;
    while ((c = cli_getopt(argc, argv, "+:h", opts, &bad)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return CLI_OK;
        case 'd':
            dir = optarg;
            break;
        case 't':
            tpm = 1;
            break;
        case 'T':
            tcti = optarg;
            break;
        case 'c':
            conf = optarg;
            break;
        case 'H':
            history = optarg;
            break;
        case 'D':
            drop = 1;
            break;
        case 's':
            if (nshadow == (sizeof shadow / sizeof shadow[0])) {
                cli_error("at most %zu --shadow files", (sizeof shadow / sizeof shadow[0]));
                return CLI_ERR;
            }
            shadow[nshadow++] = optarg;
            break;
        default:
            cli_error("keys: unknown or incomplete option '%s'", bad != NULL ? bad : "?");
            usage(stderr);
            return CLI_ERR;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return CLI_ERR;
    }
    if (nshadow == 0)
        shadow[nshadow++] = "/etc/shadow";
    if (strcmp(argv[optind], "new") == 0 && argc == optind + 1) {
        gid_t gid = geteuid() == 0 ? kdf_keystore_shadow_gid() : (gid_t)-1;
        uint32_t handle = 0;

        /* A TCP simulator is for tests: one idle connection to it holds
         * every other client until the 5 s deadline refuses its login. */
        if (tpm && (strncmp(tcti, "swtpm", 5) == 0 || strncmp(tcti, "mssim", 5) == 0) &&
            (tcti[5] == '\0' || tcti[5] == ':'))
            fprintf(stderr,
                    "kdfhash: warning: TCTI %s is a TPM simulator over TCP, for tests: it "
                    "serves one connection at a time, and while one sits idle every login "
                    "keyed with this key fails at the 5 s deadline; use "
                    KDF_TPM_DEFAULT_TCTI " for real keys\n",
                    tcti);
        if (tpm && cli_tpm_new_key(tcti, &handle, err, sizeof err) != KDF_OK) {
            cli_error("TPM %s: %s", tcti, err);
            return CLI_ERR;
        }
        if ((tpm ? kdf_keystore_new_tpm(dir, gid, handle, tcti, id, err, sizeof err)
                 : kdf_keystore_new(dir, gid, id, err, sizeof err)) != KDF_OK) {
            cli_error("%s", err);
            return CLI_ERR;
        }
        printf("%s\n", id);
        return CLI_OK;
    }
    if (strcmp(argv[optind], "list") == 0 && argc == optind + 1)
        return cli_keys_list(dir, conf, shadow, nshadow, history);
    if (strcmp(argv[optind], "retire") == 0 && argc == optind + 2)
        return keys_retire(dir, argv[optind + 1], shadow, nshadow, history, drop);
    if (strcmp(argv[optind], "export") == 0 && argc == optind + 2)
        return keys_export(dir, argv[optind + 1]);
    usage(stderr);
    return CLI_ERR;
}
