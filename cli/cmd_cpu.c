/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_cpu.c - `kdfhash cpu`: the CPU features the core detected and, per
 * primitive, the variants compiled in, whether this CPU can run each, and
 * the one picked: what verify and hash will run, and what --isa can force.
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
    fputs("Usage: kdfhash cpu [--isa NAME]\n"
          "Print the CPU features seen and, per primitive, the implementations\n"
          "compiled in (usable here: yes/no) and the one in use.\n"
          "  --isa NAME    force NAME first, then report (as verify/hash would run)\n",
          f);
    cli_print_exit_codes(f);
}

int
cli_cmd_cpu(int argc, char **argv)
{
    static const struct option opts[] = {{"isa", required_argument, NULL, 'i'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    static const struct {
        uint32_t bit;
        const char *name;
    } feats[] = {
        {KDF_CPU_SSSE3, "ssse3"}, {KDF_CPU_AVX2, "avx2"},   {KDF_CPU_AVX512F, "avx512f"},
        {KDF_CPU_SHANI, "sha-ni"}, {KDF_CPU_BMI1, "bmi1"},  {KDF_CPU_BMI2, "bmi2"},
        {KDF_CPU_NEON, "neon"},    {KDF_CPU_ARMSHA1, "armv8-sha1"},
        {KDF_CPU_ARMSHA2, "armv8-sha2"}, {KDF_CPU_ARMSHA512, "armv8-sha512"},
    };
    const char *isa = NULL;
    uint32_t f;
    int c, any = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
        if (c == 'i')
            isa = optarg;
        else if (c == 'h') {
            usage(stdout);
            return CLI_OK;
        } else {
            usage(stderr);
            return CLI_ERR;
        }
    }
    if (argc != optind) {
        usage(stderr);
        return CLI_ERR;
    }
    if (isa != NULL && cli_force_isa(isa) != CLI_OK)
        return CLI_ERR;
    f = kdf_cpu_features();
    printf("features:");
    for (size_t i = 0; i < sizeof feats / sizeof feats[0]; i++) {
        if (f & feats[i].bit) {
            printf(" %s", feats[i].name);
            any = 1;
        }
    }
    printf("%s\n", any ? "" : " (none)");
    printf("vendor: %s\n", kdf_cpu_vendor() == KDF_VENDOR_INTEL ? "intel"
                           : kdf_cpu_vendor() == KDF_VENDOR_AMD ? "amd"
                                                                : "other");
    for (int p = 0; p < KDF_PRIM_COUNT; p++) {
        const char *names[16];
        int usable[16];
        size_t n = kdf_impl_list((enum kdf_prim)p, names, usable, 16);

        printf("%-8s in use: %-10s compiled in:", kdf_prim_name((enum kdf_prim)p),
               kdf_impl_name((enum kdf_prim)p));
        for (size_t i = 0; i < n && i < 16; i++)
            printf(" %s=%s", names[i],
                   !usable[i]                                  ? "no"
                   : kdf_impl_slow_here((enum kdf_prim)p, i) ? "slow-here"
                                                               : "yes");
        putchar('\n');
    }
    return CLI_OK;
}
