/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_check_conf.c - `kdfhash check-conf FILE`: load a kdfhash.conf the
 * way the PAM module, kdfhash-chkpwd and the 389-ds plugin do, before it is
 * installed.  A file they would not load makes the module run degraded
 * (built-in defaults, no upgrade), so the admin wants to know first:
 * exit 0 and one line with the effective target, or exit 1 and the
 * reader's own "FILE:LINE: reason" (the owner and mode rules included:
 * write the new file as root, 0644).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static void
usage(FILE *f)
{
    fputs("Usage: kdfhash check-conf FILE | --keys\n"
          "Load FILE as kdfhash.conf is loaded by the PAM module: print the effective\n"
          "target and exit 0, or print FILE:LINE: reason and exit 1.  The file must be\n"
          "owned by root and not writable by others (by its group only when that is\n"
          "root's).\n"
          "  --keys        print the name of every key kdfhash.conf may set\n",
          f);
    fputs("Exit status: 0 the file loads; 1 it does not; 2 usage error.\n", f);
}

int
cli_cmd_check_conf(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                          {"keys", no_argument, NULL, 'k'},
                                          {NULL, 0, NULL, 0}};
    struct kdf_policy pol;
    char err[512], text[256];
    const char *key;
    int c, keys = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return CLI_OK;
        }
        if (c == 'k') {
            keys = 1;
            continue;
        }
        usage(stderr);
        return CLI_ERR;
    }
    if (keys) {
        if (argc != optind) {
            usage(stderr);
            return CLI_ERR;
        }
        for (size_t i = 0; (key = kdf_policy_key_at(i)) != NULL; i++)
            printf("%s\n", key);
        return CLI_OK;
    }
    if (argc != optind + 1) {
        usage(stderr);
        return CLI_ERR;
    }
    kdf_policy_default(&pol);
    /* missing_ok 0: a file that is not there is not a policy either. */
    if (kdf_policy_load(&pol, argv[optind], 0, err, sizeof err) != KDF_OK) {
        fprintf(stderr, "%s\n", err);
        return CLI_NO;
    }
    if (kdf_target_format(&pol.target, text, sizeof text) != KDF_OK)
        snprintf(text, sizeof text, "%s", kdf_target_name(&pol.target));
    printf("%s: ok: target = %s\n", argv[optind], text);
    return CLI_OK;
}
