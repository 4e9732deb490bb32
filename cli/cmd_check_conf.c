/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_check_conf.c - `kdfhash check-conf FILE`: load a kdfhash.conf the
 * way the PAM module, kdfhash-chkpwd and the 389-ds plugin do, before it is
 * installed.  A file they would not load makes the module run degraded
 * (built-in defaults, no upgrade), so the admin wants to know first:
 * exit 0 and one line with the effective target, or exit 1 and the
 * reader's own "FILE:LINE: reason" (the owner and mode rules included:
 * write the new file as root, 0644).  A key spelt by its old name loads,
 * with a notice naming the line and the new name.  A pepper whose key cannot be used
 * fails too: every password change would then be written unkeyed, and no
 * entry keyed with it could be verified, so it is said before it hurts.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocklist.h"
#include "cli.h"
#include "keystore.h"

static void
usage(FILE *f)
{
    fputs("Usage: kdfhash check-conf [--keys DIR] [FILE]\n"
          "       kdfhash check-conf --keys\n"
          "Load FILE (default " KDF_DEFAULT_CONF ") as kdfhash.conf is loaded by the\n"
          "PAM module: print the effective target and exit 0, or print FILE:LINE: reason\n"
          "and exit 1.  The file must be owned by root and not writable by others (by its\n"
          "group only when that is root's).  A pepper whose key cannot be used (missing,\n"
          "unreadable, unsafe, not a key file, a TPM that does not answer) fails too, and\n"
          "so does a blocklist that is missing, corrupt (its checksum is verified), not\n"
          "owned by root or writable by group or others.\n"
          "  --keys DIR    the key directory the pepper is looked for in\n"
          "                (default " KDF_KEYS_DIR ")\n"
          "  --keys        alone: print the name of every key kdfhash.conf may set\n",
          f);
    fputs("Exit status: 0 the file loads; 1 it does not, or its pepper cannot be used;\n"
          "2 usage error.\n",
          f);
}

/* A line that loads but should be edited (an old key name): said on
 * stderr, the exit status unchanged. */
static void
print_note(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "%s (notice: rename it)\n", msg);
}

/* The blocklist as the PAM module opens it (owner, mode, header), and its
 * checksum over the whole table, which the module does not read. */
static int
check_blocklist(const char *path, const struct kdf_policy *pol)
{
    struct kdf_blocklist bl;
    char err[512];

    if (kdf_blocklist_open(&bl, pol->blocklist, KDF_BLOCKLIST_VERIFY | KDF_BLOCKLIST_TRUSTED,
                           err, sizeof err) == 0) {
        kdf_blocklist_close(&bl);
        return CLI_OK;
    }
    fprintf(stderr,
            "%s: blocklist = %s cannot be used: %s\n"
            "%s: no new password is checked against it and no login is flagged; password "
            "changes are %s (blocklist-missing); rebuild it with kdfhash blocklist build "
            "-o %s SOURCE... as root, or set blocklist = none\n",
            path, pol->blocklist, err, path,
            pol->blocklist_refuse ? "refused" : "allowed", pol->blocklist);
    return CLI_NO;
}

int
cli_cmd_check_conf(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                          {"keys", required_argument, NULL, 'k'},
                                          {NULL, 0, NULL, 0}};
    struct kdf_policy pol;
    char err[512], text[256], why[KDF_KEYSTORE_ERR];
    const char *key, *dir = KDF_KEYS_DIR, *path = KDF_DEFAULT_CONF;
    enum kdf_key_state st = KDF_KEY_FILE;
    int c, given = 0;

    /* "--keys" alone lists the policy keys (as it always has); with a
     * value it is the key directory, as for verify and hash. */
    if (argc == 2 && strcmp(argv[1], "--keys") == 0) {
        for (size_t i = 0; (key = kdf_policy_key_at(i)) != NULL; i++)
            printf("%s\n", key);
        return CLI_OK;
    }
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return CLI_OK;
        }
        if (c == 'k') {
            dir = optarg;
            continue;
        }
        usage(stderr);
        return CLI_ERR;
    }
    if (argc > optind + 1) {
        usage(stderr);
        return CLI_ERR;
    }
    if (argc == optind + 1) {
        path = argv[optind];
        given = 1;
    }
    kdf_policy_default(&pol);
    /* A FILE given must be there; the system file may be absent (the
     * built-in defaults then apply, as they do for the module). */
    if (kdf_policy_load_noted(&pol, path, !given, err, sizeof err, print_note, NULL) !=
        KDF_OK) {
        fprintf(stderr, "%s\n", err);
        return CLI_NO;
    }
    if (pol.pepper[0] != '\0') {
        /* As a login asks it: a TPM key through the 5 s deadline. */
        st = kdf_keystore_state(dir, pol.pepper, &cli_tpm, why, sizeof why);
        if (st != KDF_KEY_FILE && st != KDF_KEY_TPM) {
            fprintf(stderr,
                    "%s: pepper = %s: key %s cannot be used (%s): %s\n"
                    "%s: password changes are written unkeyed and no entry keyed with %s "
                    "verifies until it can; restore the key file %s/%s from its backup "
                    "(install -m 0640 -o root -g shadow BACKUP %s/%s; kdfhash keys export "
                    "made it), or set pepper = none or a new key (kdfhash keys new)\n",
                    path, pol.pepper, pol.pepper, kdf_key_state_name(st), why, path,
                    pol.pepper, dir, pol.pepper, dir, pol.pepper);
            return CLI_NO;
        }
    }
    if (pol.blocklist[0] != '\0' && check_blocklist(path, &pol) != CLI_OK)
        return CLI_NO;
    /* A kernel in FIPS mode with another profile: a word, not an error
     * (KDFHASH_FIPS_ENABLED: the tests' stand-in for the /proc file). */
    if (!(pol.profile & KDF_PROFILE_FIPS) && kdf_fips_enabled(getenv("KDFHASH_FIPS_ENABLED")))
        fprintf(stderr,
                "%s: notice: the kernel runs in FIPS mode (fips_enabled = 1) and profile is "
                "not fips (kdfhash.conf(5), FIPS-ALIGNED PROFILE)\n",
                path);
    if (kdf_target_format(&pol.target, text, sizeof text) != KDF_OK)
        snprintf(text, sizeof text, "%s", kdf_target_name(&pol.target));
    if (pol.pepper[0] != '\0')
        printf("%s: ok: target = %s, pepper = %s (%s)\n", path, text, pol.pepper,
               kdf_key_state_name(st));
    else
        printf("%s: ok: target = %s\n", path, text);
    return CLI_OK;
}
