/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_bench.c - `kdfhash bench`: time our schemes at several costs against
 * the peer libraries found at run time, print a markdown table of ratios,
 * and optionally draw it as an SVG chart.
 *
 * The peers are loaded with dlopen(), so the installed CLI needs none of
 * them and compares against whatever this machine has: libxcrypt's
 * crypt_rn() for bcrypt, OpenSSL's PKCS5_PBKDF2_HMAC() for PBKDF2, the
 * reference libargon2 for Argon2 (same lanes and threads), and libsodium's
 * crypto_pwhash() for Argon2id with one lane (the only form it offers).
 * Each cell is the best of R runs (other processes only ever add time),
 * the peer measured in the same run, with the same password, salt and
 * costs; the ratio is our time over the peer's (below 1: we are faster), the
 * convention of the bench/ programs.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define BENCH_MAX_ROWS 32
#define BENCH_MAX_PEERS 2

static const char g_pw[] = "correct horse battery staple";
static const uint8_t g_salt[16] = {0x6b, 0x64, 0x66, 0x68, 0x61, 0x73, 0x68, 0x2d,
                                   0x62, 0x65, 0x6e, 0x63, 0x68, 0x2d, 0x31, 0x36};

/* ---- the peers, through dlopen ------------------------------------------ */

typedef char *(*crypt_rn_fn)(const char *, const char *, void *, int);
typedef const void *(*evp_md_fn)(void);
typedef int (*pbkdf2_fn)(const char *, int, const unsigned char *, int, int, const void *,
                         int, unsigned char *);
typedef int (*argon2_raw_fn)(uint32_t, uint32_t, uint32_t, const void *, size_t,
                             const void *, size_t, void *, size_t);
typedef int (*sodium_init_fn)(void);
typedef int (*sodium_pwhash_fn)(unsigned char *, unsigned long long, const char *,
                                unsigned long long, const unsigned char *,
                                unsigned long long, size_t, int);

static struct {
    crypt_rn_fn crypt_rn;
    pbkdf2_fn pbkdf2;
    evp_md_fn sha1, sha256, sha512;
    argon2_raw_fn argon2id, argon2i, argon2d;
    sodium_pwhash_fn pwhash;
} g_peer;

/* dlopen the first name that loads; NULL when none does. */
static void *
open_any(const char *const *names)
{
    for (; *names != NULL; names++) {
        void *h = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
        if (h != NULL)
            return h;
    }
    return NULL;
}

/* Object pointers to function pointers through memcpy: ISO C has no cast
 * between the two, POSIX guarantees the representation (dlsym(3)). */
#define LOAD_SYM(dst, handle, name)                                                      \
    do {                                                                                 \
        void *sym_ = dlsym((handle), (name));                                            \
        if (sym_ != NULL)                                                                \
            memcpy(&(dst), &sym_, sizeof(dst));                                          \
    } while (0)

static void
load_peers(void)
{
    static const char *const crypt_names[] = {"libcrypt.so.1", "libcrypt.so.2", NULL};
    static const char *const ssl_names[] = {"libcrypto.so.3", "libcrypto.so.1.1",
                                            "libcrypto.so", NULL};
    static const char *const a2_names[] = {"libargon2.so.1", "libargon2.so", NULL};
    static const char *const na_names[] = {"libsodium.so.23", "libsodium.so.26",
                                           "libsodium.so", NULL};
    void *h;

    memset(&g_peer, 0, sizeof g_peer);
    if ((h = open_any(crypt_names)) != NULL)
        LOAD_SYM(g_peer.crypt_rn, h, "crypt_rn");
    if ((h = open_any(ssl_names)) != NULL) {
        LOAD_SYM(g_peer.pbkdf2, h, "PKCS5_PBKDF2_HMAC");
        LOAD_SYM(g_peer.sha1, h, "EVP_sha1");
        LOAD_SYM(g_peer.sha256, h, "EVP_sha256");
        LOAD_SYM(g_peer.sha512, h, "EVP_sha512");
    }
    if ((h = open_any(a2_names)) != NULL) {
        LOAD_SYM(g_peer.argon2id, h, "argon2id_hash_raw");
        LOAD_SYM(g_peer.argon2i, h, "argon2i_hash_raw");
        LOAD_SYM(g_peer.argon2d, h, "argon2d_hash_raw");
    }
    if ((h = open_any(na_names)) != NULL) {
        sodium_init_fn init = NULL;
        LOAD_SYM(init, h, "sodium_init");
        if (init != NULL && init() >= 0)
            LOAD_SYM(g_peer.pwhash, h, "crypto_pwhash");
    }
    /* The handles stay open for the life of the process. */
}

/* ---- one row: a scheme at one cost ---------------------------------------- */

struct bench_row {
    struct kdf_target t;
    char label[48];
    double ours;
    int npeers;
    const char *peer[BENCH_MAX_PEERS];
    double peer_ms[BENCH_MAX_PEERS]; /* < 0: the peer failed */
};

enum peer_kind { PEER_OURS, PEER_XCRYPT, PEER_OPENSSL, PEER_ARGON2, PEER_SODIUM };

/* One run of implementation k on row r; 0 on success. */
static int
run_once(enum peer_kind k, const struct bench_row *r, const char *setting)
{
    const struct kdf_target *t = &r->t;
    unsigned char out[64];
    char buf[KDF_MAX_HASH_STR + 1];
    int ok = -1;

    switch (k) {
    case PEER_OURS:
        ok = kdf_hash_salt(g_pw, sizeof g_pw - 1, t, g_salt, t->salt_len, buf,
                           sizeof buf) == KDF_OK
                 ? 0
                 : -1;
        break;
    case PEER_XCRYPT: {
        /* struct crypt_data is 32 KiB; crypt_rn() takes any buffer of its
         * size, so no libcrypt header is needed. */
        static char data[32768];
        char *res = g_peer.crypt_rn(g_pw, setting, data, (int)sizeof data);
        ok = (res != NULL && res[0] != '*') ? 0 : -1;
        break;
    }
    case PEER_OPENSSL: {
        evp_md_fn md = t->scheme == KDF_SCHEME_PBKDF2_SHA1     ? g_peer.sha1
                       : t->scheme == KDF_SCHEME_PBKDF2_SHA256 ? g_peer.sha256
                                                               : g_peer.sha512;
        ok = g_peer.pbkdf2(g_pw, (int)sizeof g_pw - 1, g_salt, (int)t->salt_len,
                           (int)t->cost, md(), (int)t->dk_len, out) == 1
                 ? 0
                 : -1;
        break;
    }
    case PEER_ARGON2: {
        argon2_raw_fn f = t->scheme == KDF_SCHEME_ARGON2ID  ? g_peer.argon2id
                          : t->scheme == KDF_SCHEME_ARGON2I ? g_peer.argon2i
                                                            : g_peer.argon2d;
        ok = f(t->cost, t->m_kib, t->lanes, g_pw, sizeof g_pw - 1, g_salt, t->salt_len,
               out, t->dk_len) == 0
                 ? 0
                 : -1;
        break;
    }
    case PEER_SODIUM:
        /* crypto_pwhash_ALG_ARGON2ID13 is 2; memlimit is in bytes. */
        ok = g_peer.pwhash(out, t->dk_len, g_pw, sizeof g_pw - 1, g_salt, t->cost,
                           (size_t)t->m_kib * 1024, 2);
        break;
    }
    kdf_wipe(out, sizeof out);
    return ok;
}

static double
time_once(enum peer_kind k, const struct bench_row *r, const char *setting)
{
    double t0 = cli_now_ms();

    if (run_once(k, r, setting) != 0)
        return -1.0;
    return cli_now_ms() - t0;
}

static int
add_peer(struct bench_row *r, const char *name, enum peer_kind *kinds, enum peer_kind k)
{
    if (r->npeers == BENCH_MAX_PEERS)
        return -1;
    kinds[r->npeers] = k;
    r->peer[r->npeers++] = name;
    return r->npeers - 1;
}

/* Runs alternate between ours and each peer, rep by rep, so that frequency
 * drift and busy neighbours hit both alike (as the bench/ programs do). */
static int
bench_row_run(struct bench_row *r, int reps)
{
    char setting[KDF_MAX_HASH_STR + 1];
    const struct kdf_target *t = &r->t;
    enum peer_kind kinds[BENCH_MAX_PEERS];

    setting[0] = '\0';
    r->npeers = 0;
    if (t->scheme == KDF_SCHEME_BCRYPT && g_peer.crypt_rn != NULL) {
        /* The same setting ($2b$NN$ + salt) for libxcrypt. */
        if (kdf_hash_salt(g_pw, sizeof g_pw - 1, t, g_salt, 16, setting,
                          sizeof setting) == KDF_OK)
            add_peer(r, "libxcrypt", kinds, PEER_XCRYPT);
    } else if ((t->scheme == KDF_SCHEME_PBKDF2_SHA1 ||
                t->scheme == KDF_SCHEME_PBKDF2_SHA256 ||
                t->scheme == KDF_SCHEME_PBKDF2_SHA512) &&
               g_peer.pbkdf2 != NULL && g_peer.sha1 != NULL && g_peer.sha256 != NULL &&
               g_peer.sha512 != NULL) {
        add_peer(r, "OpenSSL", kinds, PEER_OPENSSL);
    } else if (t->scheme == KDF_SCHEME_ARGON2ID || t->scheme == KDF_SCHEME_ARGON2I ||
               t->scheme == KDF_SCHEME_ARGON2D) {
        if (g_peer.argon2id != NULL && g_peer.argon2i != NULL && g_peer.argon2d != NULL)
            add_peer(r, "libargon2", kinds, PEER_ARGON2);
        /* crypto_pwhash() has one lane only. */
        if (g_peer.pwhash != NULL && t->scheme == KDF_SCHEME_ARGON2ID && t->lanes == 1)
            add_peer(r, "libsodium", kinds, PEER_SODIUM);
    }

    /* One untimed run each: the first call pays for the implementation
     * pick and its self-test, lazy symbol binding and cold pages. */
    if (time_once(PEER_OURS, r, NULL) < 0) {
        cli_error("bench: %s: our hash failed", r->label);
        return CLI_ERR;
    }
    for (int j = 0; j < r->npeers; j++)
        (void)time_once(kinds[j], r, setting);
    r->ours = -1.0;
    for (int j = 0; j < r->npeers; j++)
        r->peer_ms[j] = -1.0;
    for (int i = 0; i < reps; i++) {
        double dt = time_once(PEER_OURS, r, NULL);
        if (dt < 0) {
            cli_error("bench: %s: our hash failed", r->label);
            return CLI_ERR;
        }
        if (r->ours < 0 || dt < r->ours)
            r->ours = dt;
        for (int j = 0; j < r->npeers; j++) {
            if (i > 0 && r->peer_ms[j] < 0)
                continue; /* failed once: stays "failed" */
            dt = time_once(kinds[j], r, setting);
            if (dt < 0)
                r->peer_ms[j] = -2.0;
            else if (r->peer_ms[j] < 0 || dt < r->peer_ms[j])
                r->peer_ms[j] = dt;
        }
    }
    return CLI_OK;
}

/* ---- output -------------------------------------------------------------- */

static void
print_table(const struct bench_row *rows, size_t n, int reps)
{
    printf("| scheme | parameters | kdfhash ms | peer | peer ms | kdfhash / peer |\n");
    printf("|---|---|---:|---|---:|---:|\n");
    for (size_t i = 0; i < n; i++) {
        const struct bench_row *r = &rows[i];
        if (r->npeers == 0)
            printf("| %s | %s | %.2f | (none found) | | |\n",
                   kdf_scheme_name(r->t.scheme), r->label, r->ours);
        for (int j = 0; j < r->npeers; j++) {
            if (r->peer_ms[j] < 0)
                printf("| %s | %s | %.2f | %s | failed | |\n",
                       kdf_scheme_name(r->t.scheme), r->label, r->ours, r->peer[j]);
            else
                printf("| %s | %s | %.2f | %s | %.2f | %.2fx |\n",
                       kdf_scheme_name(r->t.scheme), r->label, r->ours, r->peer[j],
                       r->peer_ms[j], r->ours / r->peer_ms[j]);
        }
    }
    printf("\nBest of %d runs per cell, ours and the peers alternating; ratio below 1: "
           "kdfhash is faster. "
           "Implementations: %s %s, %s %s, %s %s, %s %s.\n",
           reps, kdf_prim_name(KDF_PRIM_SHA1), kdf_impl_name(KDF_PRIM_SHA1),
           kdf_prim_name(KDF_PRIM_SHA256), kdf_impl_name(KDF_PRIM_SHA256),
           kdf_prim_name(KDF_PRIM_SHA512), kdf_impl_name(KDF_PRIM_SHA512),
           kdf_prim_name(KDF_PRIM_BLAMKA), kdf_impl_name(KDF_PRIM_BLAMKA));
}

/* ---- the SVG chart (hand-written: no plotting dependency) ---------------- */

/* Natural log without libm: x = m * 2^e with m in [1, 2), then
 * ln m = 2 atanh(y), y = (m - 1) / (m + 1) <= 1/3, whose series converges
 * fast.  Enough for placing bars on a log axis. */
static double
ln_approx(double x)
{
    double y, y2, term, sum = 0.0;
    int e = 0;

    if (x <= 0.0)
        return -1e300;
    while (x >= 2.0) {
        x /= 2.0;
        e++;
    }
    while (x < 1.0) {
        x *= 2.0;
        e--;
    }
    y = (x - 1.0) / (x + 1.0);
    y2 = y * y;
    term = y;
    for (int k = 1; k < 40; k += 2) {
        sum += term / k;
        term *= y2;
    }
    return 2.0 * sum + e * 0.69314718055994530942;
}

static double
log10_approx(double x)
{
    return ln_approx(x) / 2.30258509299404568402;
}

static const char *
impl_color(const char *impl)
{
    static const struct {
        const char *name, *color;
    } colors[] = {{"kdfhash", "#1f77b4"},
                  {"libxcrypt", "#ff7f0e"},
                  {"OpenSSL", "#2ca02c"},
                  {"libargon2", "#d62728"},
                  {"libsodium", "#9467bd"}};
    for (size_t i = 0; i < sizeof colors / sizeof colors[0]; i++)
        if (strcmp(impl, colors[i].name) == 0)
            return colors[i].color;
    return "#7f7f7f";
}

/* Labels are ours (scheme names and digits), but escape anyway. */
static void
svg_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '"')
            fputs("&quot;", f);
        else
            fputc(*s, f);
    }
}

/* Horizontal bars, one group per (scheme, cost), one bar per
 * implementation, on a log10 time axis (costs span four decades). */
static int
svg_write(const char *path, const char *const *labels, const double *ms,
          const char *const *impl, const int *group, size_t n)
{
    const double left = 250.0, width = 600.0, bar = 12.0, gap = 2.0, ggap = 10.0;
    double lo = 1e300, hi = 0.0, y, height;
    int dlo, dhi, ngroups = 0;
    FILE *f;

    for (size_t i = 0; i < n; i++) {
        if (ms[i] < lo)
            lo = ms[i];
        if (ms[i] > hi)
            hi = ms[i];
        if (i == 0 || group[i] != group[i - 1])
            ngroups++;
    }
    if (n == 0 || lo <= 0.0)
        lo = hi = 1.0;
    dlo = (int)(log10_approx(lo) + 100.0) - 100; /* floor */
    dhi = (int)(log10_approx(hi) + 100.0) - 100 + 1;
    height = 60.0 + (double)n * (bar + gap) + ngroups * ggap + 70.0;

    f = fopen(path, "w");
    if (f == NULL) {
        cli_error("bench: cannot write %s", path);
        return CLI_ERR;
    }
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n",
            left + width + 40.0, height);
    fprintf(f,
            "<title>kdfhash bench: latency per scheme and cost (log scale)</title>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%.0f\" y=\"20\" font-size=\"14\">Time per hash, ms (log scale; "
            "shorter is faster)</text>\n",
            left);
    /* decade grid */
    for (int d = dlo; d <= dhi; d++) {
        double x = left + width * (d - dlo) / (double)(dhi - dlo);
        double v = 1.0;
        for (int k = 0; k < (d < 0 ? -d : d); k++)
            v = d < 0 ? v / 10.0 : v * 10.0;
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"35\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\"/>\n",
                x, x, height - 60.0);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x,
                height - 45.0, v);
    }
    y = 40.0;
    for (size_t i = 0; i < n; i++) {
        double w;
        if (i > 0 && group[i] != group[i - 1])
            y += ggap;
        if (i == 0 || group[i] != group[i - 1]) {
            fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", left - 6.0,
                    y + bar - 2.0);
            svg_text(f, labels[i]);
            fputs("</text>\n", f);
        }
        w = width * (log10_approx(ms[i]) - dlo) / (double)(dhi - dlo);
        if (w < 1.0)
            w = 1.0;
        fprintf(f,
                "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\">"
                "<title>",
                left, y, w, bar, impl_color(impl[i]));
        svg_text(f, impl[i]);
        fprintf(f, ": %.3f ms</title></rect>\n", ms[i]);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\">%.2f</text>\n",
                left + w + 3.0, y + bar - 2.0, ms[i]);
        y += bar + gap;
    }
    /* legend */
    {
        static const char *const all[] = {"kdfhash", "libxcrypt", "OpenSSL", "libargon2",
                                          "libsodium"};
        double x = left;
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
            fprintf(f,
                    "<rect x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    "<text x=\"%.0f\" y=\"%.1f\">%s</text>\n",
                    x, height - 25.0, impl_color(all[i]), x + 16.0, height - 15.0,
                    all[i]);
            x += 110.0;
        }
    }
    fputs("</svg>\n", f);
    if (ferror(f) != 0 || fclose(f) != 0) {
        cli_error("bench: error writing %s", path);
        return CLI_ERR;
    }
    return CLI_OK;
}

static int
plot(const char *path, const struct bench_row *rows, size_t n)
{
    const char *labels[BENCH_MAX_ROWS * (BENCH_MAX_PEERS + 1)];
    const char *impl[BENCH_MAX_ROWS * (BENCH_MAX_PEERS + 1)];
    char names[BENCH_MAX_ROWS][80];
    double ms[BENCH_MAX_ROWS * (BENCH_MAX_PEERS + 1)];
    int group[BENCH_MAX_ROWS * (BENCH_MAX_PEERS + 1)];
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "%s %s", kdf_scheme_name(rows[i].t.scheme),
                 rows[i].label);
        labels[k] = names[i];
        impl[k] = "kdfhash";
        ms[k] = rows[i].ours;
        group[k++] = (int)i;
        for (int j = 0; j < rows[i].npeers; j++) {
            if (rows[i].peer_ms[j] < 0)
                continue;
            labels[k] = names[i];
            impl[k] = rows[i].peer[j];
            ms[k] = rows[i].peer_ms[j];
            group[k++] = (int)i;
        }
    }
    return svg_write(path, labels, ms, impl, group, k);
}

static void
bench_usage(FILE *f)
{
    fputs("Usage: kdfhash bench [--quick] [--reps N] [--plot FILE.svg] [--isa NAME]\n\n"
          "Time bcrypt, PBKDF2 and Argon2 at several costs against the peer libraries\n"
          "found at run time (libxcrypt, OpenSSL libcrypto, libargon2, libsodium) and\n"
          "print a markdown table; --plot also writes an SVG chart of the latencies.\n"
          "--quick uses small costs (a second or two in all).\n\n",
          f);
    cli_print_exit_codes(f);
}

int
cli_cmd_bench(int argc, char **argv)
{
    /* scheme text as kdf_target_parse() reads it, and the column label */
    static const char *const full[] = {"bcrypt cost=8",
                                       "bcrypt cost=10",
                                       "bcrypt cost=12",
                                       "pbkdf2-sha1 i=100000",
                                       "pbkdf2-sha256 i=100000",
                                       "pbkdf2-sha256 i=600000",
                                       "pbkdf2-sha512 i=210000",
                                       "argon2id m=19456,t=2,p=1",
                                       "argon2id m=65536,t=3,p=1",
                                       "argon2id m=65536,t=3,p=4",
                                       "argon2i m=65536,t=3,p=4",
                                       NULL};
    static const char *const quick[] = {"bcrypt cost=5",
                                        "pbkdf2-sha1 i=2000",
                                        "pbkdf2-sha256 i=2000",
                                        "pbkdf2-sha512 i=1000",
                                        "argon2id m=1024,t=2,p=1",
                                        "argon2id m=4096,t=1,p=2",
                                        NULL};
    struct bench_row rows[BENCH_MAX_ROWS];
    const char *const *list = full;
    const char *plot_path = NULL, *isa = NULL;
    int reps = 0;
    size_t n = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            bench_usage(stdout);
            return CLI_OK;
        } else if (strcmp(a, "--quick") == 0) {
            list = quick;
        } else if (strcmp(a, "--plot") == 0 && v != NULL) {
            plot_path = v;
            i++;
        } else if (strcmp(a, "--isa") == 0 && v != NULL) {
            isa = v;
            i++;
        } else if (strcmp(a, "--reps") == 0 && v != NULL) {
            char *end;
            long r = strtol(v, &end, 10);
            if (*end != '\0' || r < 1 || r > 1000) {
                cli_error("bench: --reps takes 1..1000");
                return CLI_ERR;
            }
            reps = (int)r;
            i++;
        } else {
            cli_error("bench: unknown or incomplete option '%.40s'", a);
            bench_usage(stderr);
            return CLI_ERR;
        }
    }
    if (reps == 0)
        reps = list == quick ? 2 : 5;
    if (isa != NULL && cli_force_isa(isa) != CLI_OK)
        return CLI_ERR;
    load_peers();

    for (size_t i = 0; list[i] != NULL && n < BENCH_MAX_ROWS; i++, n++) {
        struct bench_row *r = &rows[n];
        char err[160];
        const char *sp = strchr(list[i], ' ');

        memset(r, 0, sizeof *r);
        if (kdf_target_parse(list[i], &r->t, err, sizeof err) != KDF_OK) {
            cli_error("bench: %s: %s", list[i], err);
            return CLI_ERR;
        }
        snprintf(r->label, sizeof r->label, "%s", sp != NULL ? sp + 1 : "");
        fprintf(stderr, "kdfhash bench: %s ...\n", list[i]);
        if (bench_row_run(r, reps) != CLI_OK)
            return CLI_ERR;
    }
    print_table(rows, n, reps);
    if (plot_path != NULL && plot(plot_path, rows, n) != CLI_OK)
        return CLI_ERR;
    return CLI_OK;
}
