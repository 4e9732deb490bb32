/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_bench.c - `kdfhash bench`: time our schemes at several costs with the
 * implementations this process picked, then, for each primitive that has
 * variants, every compiled-in variant this CPU can run against the portable
 * one; print markdown tables and optionally draw them as an SVG chart.
 *
 * Comparison with other libraries (libxcrypt, OpenSSL, libargon2,
 * libsodium) is left to `make bench` (bench/), which links them at build
 * time; the installed CLI depends on none of them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define BENCH_MAX_ROWS 32
#define BENCH_MAX_VARIANTS 8

static const char g_pw[] = "correct horse battery staple";
static const uint8_t g_salt[16] = {0x6b, 0x64, 0x66, 0x68, 0x61, 0x73, 0x68, 0x2d,
                                   0x62, 0x65, 0x6e, 0x63, 0x68, 0x2d, 0x31, 0x36};

/* One timed cell: a scheme at one cost, with one implementation. */
struct bench_row {
    struct kdf_target t;
    char scheme[24]; /* "argon2id" */
    char label[48];  /* "m=65536,t=3,p=4" */
    char group[80];  /* chart group: the scheme row, or the primitive */
    char impl[16];   /* "in use" for a scheme row, else the variant */
    double ms;
    double ratio; /* variant / portable; < 0: none */
};

/* Best of reps runs (other processes only ever add time), after one
 * untimed run that pays for the implementation pick and its self-test,
 * lazy binding and cold pages.  CLI_OK or CLI_ERR (message printed). */
static int
time_row(struct bench_row *r, int reps)
{
    char buf[KDF_MAX_HASH_STR + 1];

    r->ms = -1.0;
    for (int i = -1; i < reps; i++) {
        double t0 = cli_now_ms(), dt;
        if (kdf_hash_salt(g_pw, sizeof g_pw - 1, &r->t, g_salt, r->t.salt_len, buf,
                          sizeof buf) != KDF_OK) {
            cli_error("bench: %s %s: our hash failed", r->scheme, r->label);
            return CLI_ERR;
        }
        dt = cli_now_ms() - t0;
        if (i >= 0 && (r->ms < 0 || dt < r->ms))
            r->ms = dt;
    }
    kdf_wipe(buf, sizeof buf);
    return CLI_OK;
}

/* "argon2id m=65536,t=3,p=4" into r's target, scheme and label. */
static int
row_parse(struct bench_row *r, const char *spec)
{
    const char *sp = strchr(spec, ' ');
    char err[160];

    memset(r, 0, sizeof *r);
    r->ratio = -1.0;
    if (kdf_target_parse(spec, &r->t, err, sizeof err) != KDF_OK) {
        cli_error("bench: %s: %s", spec, err);
        return CLI_ERR;
    }
    snprintf(r->scheme, sizeof r->scheme, "%s", kdf_scheme_name(r->t.scheme));
    snprintf(r->label, sizeof r->label, "%s", sp != NULL ? sp + 1 : "");
    return CLI_OK;
}

/* The schemes as this process runs them (--isa, or the best usable). */
static int
bench_schemes(const char *const *list, struct bench_row *rows, size_t *n, int reps)
{
    for (size_t i = 0; list[i] != NULL && *n < BENCH_MAX_ROWS; i++) {
        struct bench_row *r = &rows[*n];
        if (row_parse(r, list[i]) != CLI_OK)
            return CLI_ERR;
        snprintf(r->group, sizeof r->group, "%s %s", r->scheme, r->label);
        snprintf(r->impl, sizeof r->impl, "in use");
        fprintf(stderr, "kdfhash bench: %s ...\n", list[i]);
        if (time_row(r, reps) != CLI_OK)
            return CLI_ERR;
        (*n)++;
    }
    return CLI_OK;
}

/* Each primitive with variants, timed through the scheme that spends its
 * time there: every usable variant forced in turn, then compared with the
 * portable one.  Forcing is process-wide, so this runs after the schemes. */
static int
bench_variants(int quick, struct bench_row *rows, size_t *n, int reps)
{
    static const struct {
        enum kdf_prim p;
        const char *full, *quick;
    } prims[] = {
        {KDF_PRIM_SHA1, "pbkdf2-sha1 i=100000", "pbkdf2-sha1 i=2000"},
        {KDF_PRIM_SHA256, "pbkdf2-sha256 i=100000", "pbkdf2-sha256 i=2000"},
        {KDF_PRIM_SHA512, "pbkdf2-sha512 i=100000", "pbkdf2-sha512 i=1000"},
        /* one lane: the kernel's speed, not the thread count */
        {KDF_PRIM_BLAMKA, "argon2id m=65536,t=3,p=1", "argon2id m=1024,t=2,p=1"},
        {KDF_PRIM_BLOWFISH, "bcrypt cost=10", "bcrypt cost=4"},
    };

    for (size_t k = 0; k < sizeof prims / sizeof prims[0]; k++) {
        const char *names[BENCH_MAX_VARIANTS];
        int usable[BENCH_MAX_VARIANTS];
        size_t nv = kdf_impl_list(prims[k].p, names, usable, BENCH_MAX_VARIANTS);
        const char *spec = quick ? prims[k].quick : prims[k].full;
        size_t first = *n;
        double portable = -1.0;

        if (nv > BENCH_MAX_VARIANTS)
            nv = BENCH_MAX_VARIANTS;
        for (size_t v = 0; v < nv && *n < BENCH_MAX_ROWS; v++) {
            struct bench_row *r = &rows[*n];
            if (!usable[v])
                continue;
            if (kdf_impl_force(names[v]) != KDF_OK) {
                cli_error("bench: cannot force %s for %s", names[v],
                          kdf_prim_name(prims[k].p));
                return CLI_ERR;
            }
            if (row_parse(r, spec) != CLI_OK)
                return CLI_ERR;
            snprintf(r->group, sizeof r->group, "%s", kdf_prim_name(prims[k].p));
            snprintf(r->impl, sizeof r->impl, "%s", names[v]);
            fprintf(stderr, "kdfhash bench: %s with %s %s ...\n", spec,
                    kdf_prim_name(prims[k].p), names[v]);
            if (time_row(r, reps) != CLI_OK)
                return CLI_ERR;
            if (strcmp(names[v], "portable") == 0)
                portable = r->ms;
            (*n)++;
        }
        for (size_t i = first; i < *n; i++)
            if (portable > 0.0)
                rows[i].ratio = rows[i].ms / portable;
    }
    return CLI_OK;
}

/* ---- output -------------------------------------------------------------- */

/* The schemes table, with the variants in use: before any is forced. */
static void
print_schemes(const struct bench_row *rows, size_t n)
{
    printf("| scheme | parameters | ms |\n");
    printf("|---|---|---:|\n");
    for (size_t i = 0; i < n; i++)
        printf("| %s | %s | %.2f |\n", rows[i].scheme, rows[i].label, rows[i].ms);
    printf("\nImplementations in use: %s %s, %s %s, %s %s, %s %s, %s %s.\n",
           kdf_prim_name(KDF_PRIM_SHA1), kdf_impl_name(KDF_PRIM_SHA1),
           kdf_prim_name(KDF_PRIM_SHA256), kdf_impl_name(KDF_PRIM_SHA256),
           kdf_prim_name(KDF_PRIM_SHA512), kdf_impl_name(KDF_PRIM_SHA512),
           kdf_prim_name(KDF_PRIM_BLAMKA), kdf_impl_name(KDF_PRIM_BLAMKA),
           kdf_prim_name(KDF_PRIM_BLOWFISH), kdf_impl_name(KDF_PRIM_BLOWFISH));
    fflush(stdout);
}

static void
print_variants(const struct bench_row *rows, size_t n, int reps)
{
    printf("\n| primitive | variant | scheme | parameters | ms | variant / portable |\n");
    printf("|---|---|---|---|---:|---:|\n");
    for (size_t i = 0; i < n; i++) {
        const struct bench_row *r = &rows[i];
        printf("| %s | %s | %s | %s | %.2f |", r->group, r->impl, r->scheme, r->label,
               r->ms);
        if (r->ratio >= 0)
            printf(" %.2fx |\n", r->ratio);
        else
            printf(" |\n");
    }
    printf("\nBest of %d runs per cell. Variants: those compiled in that this CPU runs "
           "(kdfhash cpu lists them all); below 1x, faster than portable. Against other "
           "libraries: make bench in the source tree.\n",
           reps);
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

static const char *const g_palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                        "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
#define PALETTE_N (sizeof g_palette / sizeof g_palette[0])

/* Colour of an implementation: its index among the distinct names of the
 * chart, in order of first appearance (legend order too). */
static size_t
impl_index(const struct bench_row *rows, size_t n, const char *impl)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            if (strcmp(rows[j].impl, rows[i].impl) == 0)
                seen = 1;
        if (seen)
            continue;
        if (strcmp(rows[i].impl, impl) == 0)
            return k;
        k++;
    }
    return k;
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

/* Horizontal bars, one group per scheme row and per primitive, one bar per
 * implementation, on a log10 time axis (costs span four decades). */
static int
plot(const char *path, const struct bench_row *rows, size_t n)
{
    const double left = 250.0, width = 600.0, bar = 12.0, gap = 2.0, ggap = 10.0;
    double lo = 1e300, hi = 0.0, y, height;
    int dlo, dhi, ngroups = 0;
    size_t nimpl = 0;
    FILE *f;

    for (size_t i = 0; i < n; i++) {
        if (rows[i].ms < lo)
            lo = rows[i].ms;
        if (rows[i].ms > hi)
            hi = rows[i].ms;
        if (i == 0 || strcmp(rows[i].group, rows[i - 1].group) != 0)
            ngroups++;
        if (impl_index(rows, n, rows[i].impl) + 1 > nimpl)
            nimpl = impl_index(rows, n, rows[i].impl) + 1;
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
    fprintf(
        f,
        "<title>kdfhash bench: latency per scheme and per variant (log scale)</title>\n"
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
        int first = i == 0 || strcmp(rows[i].group, rows[i - 1].group) != 0;
        double w;
        if (first && i > 0)
            y += ggap;
        if (first) {
            fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", left - 6.0,
                    y + bar - 2.0);
            svg_text(f, rows[i].group);
            fputs("</text>\n", f);
        }
        w = width * (log10_approx(rows[i].ms) - dlo) / (double)(dhi - dlo);
        if (w < 1.0)
            w = 1.0;
        fprintf(f,
                "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\">"
                "<title>",
                left, y, w, bar,
                g_palette[impl_index(rows, n, rows[i].impl) % PALETTE_N]);
        svg_text(f, rows[i].impl);
        fprintf(f, ": %.3f ms</title></rect>\n", rows[i].ms);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\">%.2f</text>\n",
                left + w + 3.0, y + bar - 2.0, rows[i].ms);
        y += bar + gap;
    }
    /* legend: each implementation once, in order of first appearance */
    for (size_t k = 0, x = 0; k < nimpl; k++) {
        for (size_t i = 0; i < n; i++) {
            if (impl_index(rows, n, rows[i].impl) != k)
                continue;
            fprintf(f,
                    "<rect x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    "<text x=\"%.0f\" y=\"%.1f\">",
                    left + (double)x, height - 25.0, g_palette[k % PALETTE_N],
                    left + (double)x + 16.0, height - 15.0);
            svg_text(f, rows[i].impl);
            fputs("</text>\n", f);
            x += 90;
            break;
        }
    }
    fputs("</svg>\n", f);
    if (ferror(f) != 0 || fclose(f) != 0) {
        cli_error("bench: error writing %s", path);
        return CLI_ERR;
    }
    return CLI_OK;
}

static void
bench_usage(FILE *f)
{
    fputs("Usage: kdfhash bench [--quick] [--reps N] [--plot FILE.svg] [--isa NAME]\n\n"
          "Time bcrypt, PBKDF2 and Argon2 at several costs with the implementations\n"
          "in use (--isa forces one), then each SHA and BlaMka variant compiled in\n"
          "that this CPU runs, against the portable one; print markdown tables.\n"
          "--plot also writes an SVG chart of the latencies. --quick uses small\n"
          "costs (a second or two in all). Comparison with other libraries: make "
          "bench.\n\n",
          f);
    cli_print_exit_codes(f);
}

int
cli_cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"quick", no_argument, NULL, 'q'},
                                         {"plot", required_argument, NULL, 'p'},
                                         {"isa", required_argument, NULL, 'i'},
                                         {"reps", required_argument, NULL, 'r'},
                                         {NULL, 0, NULL, 0}};
    /* scheme text as kdf_target_parse() reads it, and the column label */
    static const char *const full[] = {"bcrypt cost=8",
                                       "bcrypt cost=10",
                                       "bcrypt cost=12",
                                       "pbkdf2-sha1 i=100000",
                                       "pbkdf2-sha256 i=100000",
                                       "pbkdf2-sha256 i=600000",
                                       "pbkdf2-sha512 i=210000",
                                       KDF_OWASP_ARGON2,
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
    const char *plot_path = NULL, *isa = NULL, *bad = NULL;
    int c, reps = 0;
    size_t n = 0, nschemes;

    /* "+": no argument but options ("bench foo" is refused as one). */
    optind = 1;
    while ((c = cli_getopt(argc, argv, "+:h", opts, &bad)) != -1) {
        if (c == 'h') {
            bench_usage(stdout);
            return CLI_OK;
        } else if (c == 'q') {
            list = quick;
        } else if (c == 'p') {
            plot_path = optarg;
        } else if (c == 'i') {
            isa = optarg;
        } else if (c == 'r') {
            char *end;
            long r = strtol(optarg, &end, 10);
            if (*end != '\0' || r < 1 || r > 1000) {
                cli_error("bench: --reps takes 1..1000");
                return CLI_ERR;
            }
            reps = (int)r;
        } else {
            break;
        }
    }
    if (c != -1 || optind < argc) {
        cli_error("bench: unknown or incomplete option '%.40s'",
                  c != -1 ? bad : argv[optind]);
        bench_usage(stderr);
        return CLI_ERR;
    }
    if (reps == 0)
        reps = list == quick ? 2 : 5;
    if (isa != NULL && cli_force_isa(isa) != CLI_OK)
        return CLI_ERR;

    if (bench_schemes(list, rows, &n, reps) != CLI_OK)
        return CLI_ERR;
    nschemes = n;
    print_schemes(rows, nschemes);
    if (bench_variants(list == quick, rows, &n, reps) != CLI_OK)
        return CLI_ERR;
    print_variants(rows + nschemes, n - nschemes, reps);
    if (plot_path != NULL && plot(plot_path, rows, n) != CLI_OK)
        return CLI_ERR;
    return CLI_OK;
}
