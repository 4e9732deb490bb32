#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-aarch64.sh - `make check-aarch64`: cross-build the BLAKE2b/Argon2
# core (portable + NEON BlaMka, the real walker and registry, the portable
# SHA and Blowfish tables) for AArch64 with a small
# standalone driver and run it under qemu-aarch64-static.  The driver
# checks RFC 7693 (BLAKE2b-512("abc"), the Appendix E grand hash), RFC 9106
# section 5 (d, i, id with secret and AD), the reference implementation's
# v=0x10 and v=0x13 m=256 vectors on every variant, that the dispatcher
# picks NEON (and portable, after its self-test, for SHA and Blowfish),
# NEON against portable on 10,000 random block triples, and
# that both kernels announce word 0 of their block to the prefetch hint
# (tests/hint_probe.c, built here for ref and neon).
# Exits non-zero on any mismatch.  Not part of `make check`; CI calls it.
#
# Debian packages (installed here when missing, needs root):
#   gcc-aarch64-linux-gnu qemu-user-static libc6-dev-arm64-cross
set -eu

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
core=$srcdir/core
CC=${AARCH64_CC:-aarch64-linux-gnu-gcc}
QEMU=${QEMU_AARCH64:-qemu-aarch64-static}

need=""
command -v "$CC" >/dev/null 2>&1 || need="$need gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
command -v "$QEMU" >/dev/null 2>&1 || need="$need qemu-user-static"
if [ -n "$need" ]; then
    echo "check-aarch64: installing$need"
    if [ "$(id -u)" != 0 ]; then
        echo "check-aarch64: need root to apt-get install$need" >&2
        exit 1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y $need >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

cat >"$work/driver.c" <<'EOF'
/* SPDX-License-Identifier: BSD-3-Clause */
/* check-aarch64 driver: see tests/check-aarch64.sh. */
#include "kdf_internal.h"

#include <stdio.h>

#include "alg_blake2b.h"
#include "argon2_core.h"

static int g_fail;

static void
check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok)
        g_fail = 1;
}

static void
unhex(const char *h, uint8_t *out)
{
    for (size_t i = 0; h[2 * i]; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

static void
seq(uint8_t *out, size_t len, uint32_t seed)
{
    uint32_t a = 0xDEAD4BADu * seed, b = 1, t;
    for (size_t i = 0; i < len; i++) {
        t = a + b;
        a = b;
        b = t;
        out[i] = (uint8_t)(t >> 24);
    }
}

static void
blake2b_tests(void)
{
    static const size_t md_len[4] = {20, 32, 48, 64}, in_len[6] = {0, 3, 128, 129, 255, 1024};
    uint8_t md[64], want[64], in[1024], key[64];
    struct kdf_blake2b_state ctx;

    unhex("ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
          "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923", want);
    kdf_blake2b(md, 64, "abc", 3, NULL, 0);
    check(memcmp(md, want, 64) == 0, "RFC 7693 appendix A: BLAKE2b-512(abc)");
    kdf_blake2b_init(&ctx, 32, NULL, 0);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++) {
            seq(in, in_len[j], (uint32_t)in_len[j]);
            kdf_blake2b(md, md_len[i], in, in_len[j], NULL, 0);
            kdf_blake2b_update(&ctx, md, md_len[i]);
            seq(key, md_len[i], (uint32_t)md_len[i]);
            kdf_blake2b(md, md_len[i], in, in_len[j], key, md_len[i]);
            kdf_blake2b_update(&ctx, md, md_len[i]);
        }
    kdf_blake2b_final(&ctx, md);
    unhex("c23a7800d98123bd10f506c61e29da5603d763b8bbad2e737f5e765a7bccd475", want);
    check(memcmp(md, want, 32) == 0, "RFC 7693 appendix E: grand hash");
}

static void
argon2_vectors(const char *variant)
{
    static const char *rfc[3] = {
        "512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb",
        "c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8",
        "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"};
    static const struct {
        enum kdf_argon2_type type;
        uint32_t v, t, m, p;
        const char *hex;
    } ref[] = {
        {KDF_ARGON2_I, 0x10, 2, 256, 1,
         "fd4dd83d762c49bdeaf57c47bdcd0c2f1babf863fdeb490df63ede9975fccf06"},
        {KDF_ARGON2_I, 0x10, 2, 256, 2,
         "b6c11560a6a9d61eac706b79a2f97d68b4463aa3ad87e00c07e2b01e90c564fb"},
        {KDF_ARGON2_I, 0x13, 2, 256, 2,
         "4ff5ce2769a1d7f4c8a491df09d41a9fbe90e5eb02155a13e4c01e20cd4eab61"},
        {KDF_ARGON2_ID, 0x13, 2, 256, 1,
         "9dfeb910e80bad0311fee20f9c0e2b12c17987b4cac90c2ef54d5b3021c68bfe"},
        {KDF_ARGON2_ID, 0x13, 2, 256, 2,
         "6d093c501fd5999645e0ea3bf620d7b8be7fd2db59c20d9fff9539da2bf57037"},
    };
    uint8_t pw[32], salt[16], secret[8], ad[12], out[32], want[32];
    char what[160];

    memset(pw, 1, 32);
    memset(salt, 2, 16);
    memset(secret, 3, 8);
    memset(ad, 4, 12);
    for (int y = 0; y < 3; y++) {
        struct kdf_argon2_args a = {(enum kdf_argon2_type)y, 0x13, 3, 32, 4, 0,
                                    KDF_MEMGATE_OFF, 0, pw, 32, salt, 16, secret, 8, ad, 12};
        unhex(rfc[y], want);
        int ok = kdf_argon2_compute(&a, out, 32, NULL, 0) == KDF_OK && !memcmp(out, want, 32);
        snprintf(what, sizeof what, "RFC 9106 section 5.%d on %s", y + 1, variant);
        check(ok, what);
    }
    for (size_t r = 0; r < sizeof ref / sizeof ref[0]; r++) {
        struct kdf_argon2_args a = {ref[r].type, ref[r].v, ref[r].t, ref[r].m, ref[r].p, 0,
                                    KDF_MEMGATE_OFF, 0, (const uint8_t *)"password", 8,
                                    (const uint8_t *)"somesalt", 8, NULL, 0, NULL, 0};
        unhex(ref[r].hex, want);
        int ok = kdf_argon2_compute(&a, out, 32, NULL, 0) == KDF_OK && !memcmp(out, want, 32);
        snprintf(what, sizeof what, "reference test.c type %d v=%#x m=256 p=%u on %s",
                 (int)ref[r].type, ref[r].v, ref[r].p, variant);
        check(ok, what);
    }
}

static uint64_t g_rng = 0x243f6a8885a308d3ULL;
static uint64_t
rnd64(void)
{
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* tests/hint_probe.c, built here for portable and NEON. */
int hint_probe_ref(const struct kdf_argon2_block *, const struct kdf_argon2_block *,
                   struct kdf_argon2_block *, int, uint64_t *);
int hint_probe_neon(const struct kdf_argon2_block *, const struct kdf_argon2_block *,
                    struct kdf_argon2_block *, int, uint64_t *);

/* A kernel given a prefetch hint announces word 0 of its block, once. */
static void
hint_tests(void)
{
    static struct kdf_argon2_block prev, ref, nx;
    int (*fn[2])(const struct kdf_argon2_block *, const struct kdf_argon2_block *,
                 struct kdf_argon2_block *, int, uint64_t *) = {hint_probe_ref,
                                                                hint_probe_neon};
    for (int f = 0; f < 2; f++) {
        int good = 1;
        for (int t = 0; t < 500; t++) {
            uint64_t w = 0;
            for (int k = 0; k < KDF_ARGON2_QWORDS; k++) {
                prev.v[k] = rnd64();
                ref.v[k] = rnd64();
                nx.v[k] = rnd64();
            }
            good &= fn[f](&prev, &ref, &nx, t & 1, &w) == 1 && w == nx.v[0];
        }
        check(good, f == 0 ? "portable hint announces word 0 (500 blocks)"
                           : "neon hint announces word 0 (500 blocks)");
    }
}

int
main(void)
{
    const char *names[8];
    int usable[8];
    size_t n = kdf_impl_list(KDF_PRIM_BLAMKA, names, usable, 8);
    static struct kdf_argon2_block prev, ref, nx, a, b;

    blake2b_tests();
    hint_tests();
    check(strcmp(kdf_impl_name(KDF_PRIM_BLAMKA), "neon") == 0, "dispatch picks neon");
    /* One row each here: the self-test of portable ran and the walker kept it. */
    for (int p = 0; p < KDF_PRIM_COUNT; p++) {
        char what[64];
        if (p == KDF_PRIM_BLAMKA)
            continue;
        snprintf(what, sizeof what, "%s: one row, portable, self-test passes",
                 kdf_prim_name((enum kdf_prim)p));
        const char *pn[2];
        int pu[2];
        size_t pr = kdf_impl_list((enum kdf_prim)p, pn, pu, 2);
        const struct kdf_impl_desc *row = NULL;
        if (p == KDF_PRIM_BLOWFISH)
            row = &kdf_blowfish_table.rows[0];
        else if (p == KDF_PRIM_SHA1)
            row = &kdf_sha1_table.rows[0];
        else if (p == KDF_PRIM_SHA256)
            row = &kdf_sha256_table.rows[0];
        else if (p == KDF_PRIM_SHA512)
            row = &kdf_sha512_table.rows[0];
        check(pr == 1 && strcmp(pn[0], "portable") == 0 &&
                  strcmp(kdf_impl_name((enum kdf_prim)p), "portable") == 0 && row != NULL &&
                  row->selftest(row) == 0,
              what);
    }
    for (size_t i = 0; i < n; i++) {
        if (!usable[i] || kdf_dispatch_force_index(KDF_PRIM_BLAMKA, i) != KDF_OK) {
            check(0, names[i]);
            continue;
        }
        argon2_vectors(names[i]);
        kdf_argon2_fill_block_fn fb = kdf_blamka_block_impl(i);
        int same = 1;
        for (int t = 0; t < 10000 && same; t++) {
            for (int k = 0; k < KDF_ARGON2_QWORDS; k++) {
                prev.v[k] = rnd64();
                ref.v[k] = rnd64();
                nx.v[k] = rnd64();
            }
            for (int x = 0; x < 2; x++) {
                a = nx;
                b = nx;
                kdf_argon2_fill_block_ref(&prev, &ref, &a, x);
                fb(&prev, &ref, &b, x);
                same &= memcmp(&a, &b, sizeof a) == 0;
            }
        }
        char what[96];
        snprintf(what, sizeof what, "%s vs portable on 10000 random block triples", names[i]);
        check(same, what);
    }
    printf("%s\n", g_fail ? "check-aarch64: FAILED" : "check-aarch64: all passed");
    return g_fail;
}
EOF

# The real core files; config.h is not used (it describes the build host).
CFLAGS="-std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wvla -Wstrict-prototypes -Wmissing-prototypes \
 -D_GNU_SOURCE -DKDF_CORE_BUILD -DHAVE_NEON=1 -I$core -I$core/simd"
echo "check-aarch64: $CC -static ..."
for isa in ref neon; do
    $CC $CFLAGS -c -o "$work/hint_$isa.o" -DHINT_ISA=$isa \
        -DHINT_HEADER="\"blamka_$isa.h\"" "$srcdir/tests/hint_probe.c"
done
$CC $CFLAGS -static -pthread -o "$work/driver" "$work/driver.c" "$work/hint_ref.o" "$work/hint_neon.o" \
    "$core/alg_blake2b.c" "$core/argon2_core.c" "$core/argon2_impls.c" \
    "$core/simd/argon2_fill_ref.c" "$core/simd/argon2_fill_neon.c" \
    "$core/alg_sha1.c" "$core/alg_sha256.c" "$core/alg_sha512.c" "$core/sha_consts.c" "$core/alg_blowfish.c" \
    "$core/cpu.c" "$core/dispatch.c" "$core/impls.c" "$core/ct.c" "$core/memgate.c"
file "$work/driver" 2>/dev/null | grep -q aarch64 || echo "check-aarch64: note: 'file' did not confirm aarch64"
echo "check-aarch64: running under $QEMU"
"$QEMU" "$work/driver"
