/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_schemes.c - `kdfhash schemes`: the core's scheme table as the admin
 * sees it: each scheme's name, whether it can be a target and with which
 * defaults (the text a target = line takes), and what it is.  The shell
 * completion reads `kdfhash schemes --names`, the maintainer scripts'
 * count of entries pam_unix cannot verify reads `--foreign-prefixes` (at
 * build time), and the man-page test reads the listing, so no list of
 * schemes lives outside the table.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void
usage(FILE *f)
{
    fputs("Usage: kdfhash schemes [--names|--foreign-prefixes]\n"
          "Print every scheme the core reads: its name, its default target (the\n"
          "text of a 'target =' line; '-' when it is verified only) and a summary.\n"
          "  --names       only the names that a target or --scheme can take\n"
          "  --foreign-prefixes\n"
          "                the prefixes of the hashes that crypt(3), and so pam_unix,\n"
          "                never verifies, one per line\n",
          f);
    cli_print_exit_codes(f);
}

/* Rows that crypt(3) never reads: their prefixes.  Rows that libxcrypt may
 * or may not have (bcrypt) are left out: such a count asks libxcrypt
 * (kdfhash audit does), and a script cannot. */
static void
print_once(const char *p, const char **seen, size_t *n, size_t cap)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(seen[i], p) == 0)
            return;
    if (*n < cap)
        seen[(*n)++] = p;
    printf("%s\n", p);
}

static int
print_foreign(void)
{
    struct kdf_scheme_info info;
    const char *seen[128];
    size_t n = 0;

    for (size_t i = 0; kdf_scheme_info_at(i, &info); i++) {
        if (info.crypt_reads != KDF_CRYPT_NEVER)
            continue;
        for (const char *const *p = info.prefixes; p != NULL && *p != NULL; p++)
            print_once(*p, seen, &n, sizeof seen / sizeof seen[0]);
        if (info.claim_prefix != NULL)
            print_once(info.claim_prefix, seen, &n, sizeof seen / sizeof seen[0]);
    }
    /* Wrapped entries: two of the table's hashes, none pam_unix reads. */
    print_once(KDF_WRAPPED_PREFIX, seen, &n, sizeof seen / sizeof seen[0]);
    return CLI_OK;
}

int
cli_cmd_schemes(int argc, char **argv)
{
    static const struct option opts[] = {{"names", no_argument, NULL, 'n'},
                                          {"foreign-prefixes", no_argument, NULL, 'f'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *name, *summary;
    int c, names = 0, foreign = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "nh", opts, NULL)) != -1) {
        if (c == 'n') {
            names = 1;
        } else if (c == 'f') {
            foreign = 1;
        } else if (c == 'h') {
            usage(stdout);
            return CLI_OK;
        } else {
            usage(stderr);
            return CLI_ERR;
        }
    }
    if (argc != optind || (names && foreign)) {
        usage(stderr);
        return CLI_ERR;
    }
    if (foreign)
        return print_foreign();
    for (size_t i = 0; (name = kdf_scheme_at(i, &summary)) != NULL; i++) {
        struct kdf_target t;
        char text[256];
        int target = kdf_target_parse(name, &t, NULL, 0) == KDF_OK &&
                     kdf_target_format(&t, text, sizeof text) == KDF_OK;

        if (names) {
            if (target)
                printf("%s\n", name);
            continue;
        }
        printf("%-14s %-56s %s\n", name, target ? text : "-", summary ? summary : "");
    }
    return CLI_OK;
}
