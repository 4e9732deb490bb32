/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_calibrate.c - `kdfhash calibrate`: measure this machine and print the
 * parameters that take about N ms per hash, plus a ready "target = ..."
 * line for kdfhash.conf(5), as `cryptsetup benchmark` does for LUKS.
 *
 * How each scheme is searched (the work of one guess is what a target
 * buys, so the search walks the scheme's own cost knob):
 * - bcrypt: the cost is log2 of the rounds, so each step doubles the time;
 *   we walk up from 4 and keep the cost whose time is nearest N on a log
 *   scale (a factor of 1.4 either way at most).
 * - PBKDF2: time is linear in the iterations (RFC 8018 section 5.2: c
 *   HMAC calls per block); we time a growing count until one run takes a
 *   measurable while, then scale to N and round to 3 significant digits.
 * - Argon2: time is about linear in t at fixed m (RFC 9106 section 3.2:
 *   t passes over m blocks).  With --max-memory (or the policy target's m)
 *   fixed, t = 1 and t = 2 give the cost of one pass, from which t follows;
 *   when even t = 1 is slower than N, m is halved at t = 1 instead (RFC
 *   9106 section 4 prefers more memory to more passes, so m stays as large
 *   as the budget allows).
 * The answer is always clamped to the policy's caps (max.*) and checked by
 * kdf_check_target(), so the printed line loads in kdfhash.conf as it is.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* A password of a typical length; its value does not change the work. */
static const char g_cal_pw[] = "calibrate-0123456789";

struct cal_result {
    struct kdf_target target;
    double ms;   /* measured time of one hash at target */
    int clamped; /* 1 when a cap (max.*) stopped the search */
};

/* Best of reps runs of kdf_hash_ex at t under pol (its caps and max.threads,
 * as the module's upgrades use them), in ms; < 0 on error (printed).  The
 * minimum, not the mean: other processes only ever add time. */
static double
time_hash(const struct kdf_policy *pol, const struct kdf_target *t, int reps)
{
    char out[KDF_MAX_HASH_STR + 1];
    double best = -1.0;

    for (int i = 0; i < reps; i++) {
        double t0 = cli_now_ms();
        enum kdf_status st =
            kdf_hash_ex(g_cal_pw, sizeof g_cal_pw - 1, t, pol, NULL, 0, out, sizeof out);
        double dt = cli_now_ms() - t0;

        if (st != KDF_OK) {
            cli_error("calibrate: hashing failed: %s", kdf_status_str(st));
            return -1.0;
        }
        if (best < 0 || dt < best)
            best = dt;
    }
    return best;
}

/* Fewer repetitions for slow runs: the search must stay near a few N. */
static int
reps_for(double expect_ms)
{
    return expect_ms < 20.0 ? 3 : 1;
}

static int
cal_bcrypt(const struct kdf_policy *pol, double goal, struct cal_result *r)
{
    double best_err = 1e300, prev = 0.0;
    uint32_t cap = pol->max_bcrypt_cost < 31 ? pol->max_bcrypt_cost : 31;

    memset(&r->target, 0, sizeof r->target);
    r->target.scheme = KDF_SCHEME_BCRYPT;
    r->target.bcrypt_minor = 'b';
    r->target.salt_len = 16;
    r->target.dk_len = 23;
    r->clamped = 0;
    for (uint32_t c = 4; c <= cap; c++) {
        struct kdf_target t = r->target;
        double ms, err;

        t.cost = c;
        ms = time_hash(pol, &t, reps_for(prev * 2));
        if (ms < 0)
            return CLI_ERR;
        err = ms > goal ? ms / goal : goal / ms; /* log-scale distance */
        if (err < best_err) {
            best_err = err;
            r->target.cost = c;
            r->ms = ms;
        }
        if (ms >= goal)
            return CLI_OK;
        prev = ms;
    }
    r->clamped = 1;
    return CLI_OK;
}

static uint32_t
round3(double x)
{
    double p = 1.0;

    if (x < 1.0)
        return 1;
    while (x >= 1000.0 * p)
        p *= 10.0;
    x = (double)(uint64_t)(x / p + 0.5) * p;
    return x > (double)UINT32_MAX ? UINT32_MAX : (uint32_t)x;
}

static int
cal_pbkdf2(const struct kdf_policy *pol, enum kdf_scheme s, double goal,
           struct cal_result *r)
{
    struct kdf_target t;
    char err[160];
    double ms = 0.0, want;
    uint32_t iter = 1000;

    if (kdf_target_parse(kdf_scheme_name(s), &t, err, sizeof err) != KDF_OK) {
        cli_error("calibrate: %s", err);
        return CLI_ERR;
    }
    /* Grow until one run is long enough to time (>= 20 ms or N/4). */
    want = goal / 4 < 20.0 ? goal / 4 : 20.0;
    for (;;) {
        t.cost = iter;
        ms = time_hash(pol, &t, 2);
        if (ms < 0)
            return CLI_ERR;
        if (ms >= want || iter >= pol->max_pbkdf2_iter)
            break;
        iter = iter > UINT32_MAX / 4 ? UINT32_MAX : iter * 4;
        if (iter > pol->max_pbkdf2_iter)
            iter = pol->max_pbkdf2_iter;
    }
    r->clamped = 0;
    t.cost = round3((double)t.cost * goal / (ms > 0.001 ? ms : 0.001));
    if (t.cost > pol->max_pbkdf2_iter) {
        t.cost = pol->max_pbkdf2_iter;
        r->clamped = 1;
    }
    r->target = t;
    r->ms = time_hash(pol, &t, reps_for(goal));
    return r->ms < 0 ? CLI_ERR : CLI_OK;
}

static int
cal_argon2(const struct kdf_policy *pol, enum kdf_scheme s, double goal, uint32_t max_mem,
           struct cal_result *r)
{
    struct kdf_target t;
    double t1, t2, pass;
    uint32_t m_floor, tt;

    t = pol->target;
    if (t.scheme != KDF_SCHEME_ARGON2ID && t.scheme != KDF_SCHEME_ARGON2I &&
        t.scheme != KDF_SCHEME_ARGON2D) {
        char err[160];
        if (kdf_target_parse(kdf_scheme_name(s), &t, err, sizeof err) != KDF_OK) {
            cli_error("calibrate: %s", err);
            return CLI_ERR;
        }
    }
    t.scheme = s;
    t.version = 0x13;
    if (t.lanes > pol->max_argon2_p)
        t.lanes = pol->max_argon2_p;
    if (max_mem != 0)
        t.m_kib = max_mem;
    if (t.m_kib > pol->max_argon2_m_kib)
        t.m_kib = pol->max_argon2_m_kib;
    m_floor = 8 * t.lanes > pol->min_argon2_m_kib ? 8 * t.lanes : pol->min_argon2_m_kib;
    if (t.m_kib < 8 * t.lanes)
        t.m_kib = 8 * t.lanes;
    r->clamped = 0;

    /* t = 1 too slow: halve m at t = 1 (but not below min.argon2 m). */
    t.cost = 1;
    t1 = time_hash(pol, &t, 1);
    if (t1 < 0)
        return CLI_ERR;
    while (t1 > goal && t.m_kib / 2 >= m_floor) {
        t.m_kib /= 2;
        t1 = time_hash(pol, &t, reps_for(t1 / 2));
        if (t1 < 0)
            return CLI_ERR;
    }
    if (t1 >= goal) {
        r->target = t;
        r->ms = t1;
        r->clamped = t1 > goal * 1.5;
        return CLI_OK;
    }
    /* Again, at the final m, best of a few: the first run also paid for
     * page faults of a cold mapping that later runs at this m share. */
    t1 = time_hash(pol, &t, reps_for(t1));
    if (t1 < 0)
        return CLI_ERR;
    t.cost = 2;
    t2 = time_hash(pol, &t, reps_for(t1 * 2));
    if (t2 < 0)
        return CLI_ERR;
    /* t passes cost about base + t * pass; base is the first-block setup
     * and the memory mapping. */
    pass = t2 - t1 > t1 / 4 ? t2 - t1 : t1 / 2;
    {
        double x = (goal - (t1 - pass)) / pass + 0.5;
        tt = x < 1.0 ? 1 : x > 1e6 ? 1000000u : (uint32_t)x;
    }
    if (tt > pol->max_argon2_t) {
        tt = pol->max_argon2_t;
        r->clamped = 1;
    }
    t.cost = tt;
    r->ms = time_hash(pol, &t, reps_for(goal));
    if (r->ms < 0)
        return CLI_ERR;
    /* One correction from the measured point: a busy machine skews the
     * two short runs above more than this long one. */
    if (!r->clamped && (r->ms > goal * 1.25 || r->ms < goal * 0.8) && tt > 1) {
        double x = (double)tt * goal / r->ms + 0.5;
        uint32_t t3 = x < 1.0                         ? 1
                      : x > (double)pol->max_argon2_t ? pol->max_argon2_t
                                                      : (uint32_t)x;
        if (t3 != tt) {
            struct kdf_target alt = t;
            double ms;
            alt.cost = t3;
            ms = time_hash(pol, &alt, reps_for(goal));
            if (ms < 0)
                return CLI_ERR;
            if ((ms > goal ? ms / goal : goal / ms) <
                (r->ms > goal ? r->ms / goal : goal / r->ms)) {
                t = alt;
                r->ms = ms;
            }
        }
    }
    r->target = t;
    return CLI_OK;
}

static int
parse_u32_arg(const char *opt, const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;
    unsigned long long n;

    errno = 0;
    if (v == NULL || v[0] < '0' || v[0] > '9') {
        cli_error("%s needs a number", opt);
        return CLI_ERR;
    }
    n = strtoull(v, &end, 10);
    if (errno != 0 || *end != '\0' || n < lo || n > hi) {
        cli_error("%s: expected a number in %u..%u", opt, (unsigned)lo, (unsigned)hi);
        return CLI_ERR;
    }
    *out = (uint32_t)n;
    return CLI_OK;
}

static void
calibrate_usage(FILE *f)
{
    fputs("Usage: kdfhash calibrate --target-ms N [--scheme SCHEME] [--max-memory KIB]\n"
          "                         [--conf FILE] [--isa NAME] [--json]\n\n"
          "Measure this machine and print the parameters of SCHEME (default argon2id;\n"
          "bcrypt, argon2i, argon2d, pbkdf2-sha1, pbkdf2-sha256, pbkdf2-sha512, or\n"
          "'all') that take about N ms (1..60000) per hash, and a 'target = ...'\n"
          "line for kdfhash.conf.  Argon2 keeps m at --max-memory KiB (default:\n"
          "the policy target's m) and raises t; results stay within the policy's\n"
          "max.* caps.\n\n",
          f);
    cli_print_exit_codes(f);
}

static void
print_json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

int
cli_cmd_calibrate(int argc, char **argv)
{
    static const enum kdf_scheme all[] = {KDF_SCHEME_ARGON2ID, KDF_SCHEME_BCRYPT,
                                          KDF_SCHEME_PBKDF2_SHA256,
                                          KDF_SCHEME_PBKDF2_SHA512};
    struct cal_result res[KDF_SCHEME_COUNT];
    enum kdf_scheme todo[KDF_SCHEME_COUNT];
    struct kdf_policy pol;
    const char *conf = NULL, *isa = NULL, *scheme = "argon2id";
    uint32_t goal_ms = 0, max_mem = 0;
    size_t n = 0;
    int json = 0, rc;
    char text[160];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            calibrate_usage(stdout);
            return CLI_OK;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--target-ms") == 0) {
            if (parse_u32_arg(a, v, 1, 60000, &goal_ms) != CLI_OK)
                return CLI_ERR;
            i++;
        } else if (strcmp(a, "--max-memory") == 0) {
            if (parse_u32_arg(a, v, 8, UINT32_MAX, &max_mem) != CLI_OK)
                return CLI_ERR;
            i++;
        } else if ((strcmp(a, "--scheme") == 0 || strcmp(a, "--conf") == 0 ||
                    strcmp(a, "--isa") == 0) &&
                   v != NULL) {
            if (a[2] == 's')
                scheme = v;
            else if (a[2] == 'c')
                conf = v;
            else
                isa = v;
            i++;
        } else {
            cli_error("calibrate: unknown or incomplete option '%.40s'", a);
            calibrate_usage(stderr);
            return CLI_ERR;
        }
    }
    if (goal_ms == 0) {
        cli_error("calibrate: --target-ms N is required");
        calibrate_usage(stderr);
        return CLI_ERR;
    }
    if (cli_load_policy(&pol, conf) != CLI_OK)
        return CLI_ERR;
    if (isa != NULL && cli_force_isa(isa) != CLI_OK)
        return CLI_ERR;
    if (strcmp(scheme, "all") == 0) {
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            todo[n++] = all[i];
    } else {
        struct kdf_target probe;
        char err[160];
        if (kdf_target_parse(scheme, &probe, err, sizeof err) != KDF_OK) {
            cli_error("calibrate: --scheme %.40s: %s", scheme, err);
            return CLI_ERR;
        }
        todo[n++] = probe.scheme;
    }
    if (max_mem != 0 && max_mem > pol.max_argon2_m_kib) {
        cli_error("calibrate: --max-memory %u KiB is above max.argon2 m=%u",
                  (unsigned)max_mem, (unsigned)pol.max_argon2_m_kib);
        return CLI_ERR;
    }

    /* Warm up: the first hash pays for the implementation pick and its
     * self-test (dispatch.c), which no login after the first one pays. */
    {
        struct kdf_target w;
        char err[160];
        if (kdf_target_parse("argon2id m=64,t=1,p=1", &w, err, sizeof err) == KDF_OK &&
            time_hash(&pol, &w, 1) < 0)
            return CLI_ERR;
    }
    for (size_t i = 0; i < n; i++) {
        enum kdf_scheme s = todo[i];
        if (s == KDF_SCHEME_BCRYPT)
            rc = cal_bcrypt(&pol, goal_ms, &res[i]);
        else if (s == KDF_SCHEME_PBKDF2_SHA1 || s == KDF_SCHEME_PBKDF2_SHA256 ||
                 s == KDF_SCHEME_PBKDF2_SHA512)
            rc = cal_pbkdf2(&pol, s, goal_ms, &res[i]);
        else
            rc = cal_argon2(&pol, s, goal_ms, max_mem, &res[i]);
        if (rc != CLI_OK)
            return CLI_ERR;
        const char *why = NULL;
        if (kdf_check_target(&res[i].target, &pol, &why) != KDF_OK) {
            cli_error("calibrate: %s: no target within the policy: %s",
                      kdf_scheme_name(s), why ? why : "?");
            return CLI_ERR;
        }
    }

    if (json) {
        printf("{\"target_ms\": %u, \"isa\": {", (unsigned)goal_ms);
        for (int p = 0; p < KDF_PRIM_COUNT; p++) {
            printf("%s", p ? ", " : "");
            print_json_string(kdf_prim_name((enum kdf_prim)p));
            printf(": ");
            print_json_string(kdf_impl_name((enum kdf_prim)p));
        }
        printf("}, \"results\": [");
        for (size_t i = 0; i < n; i++) {
            const struct kdf_target *t = &res[i].target;
            if (kdf_target_format(t, text, sizeof text) != KDF_OK)
                return CLI_ERR;
            printf("%s\n  {\"scheme\": ", i ? "," : "");
            print_json_string(kdf_scheme_name(t->scheme));
            printf(", \"cost\": %u, \"m_kib\": %u, \"lanes\": %u, \"ms\": %.1f, "
                   "\"clamped\": %s, \"target\": ",
                   (unsigned)t->cost, (unsigned)t->m_kib, (unsigned)t->lanes, res[i].ms,
                   res[i].clamped ? "true" : "false");
            print_json_string(text);
            printf("}");
        }
        printf("\n]}\n");
        return CLI_OK;
    }

    printf("# kdfhash calibrate: about %u ms per hash on this machine (%ld CPUs online;"
           " %s %s, %s %s)\n",
           (unsigned)goal_ms, sysconf(_SC_NPROCESSORS_ONLN),
           kdf_prim_name(KDF_PRIM_BLAMKA), kdf_impl_name(KDF_PRIM_BLAMKA),
           kdf_prim_name(KDF_PRIM_SHA256), kdf_impl_name(KDF_PRIM_SHA256));
    printf("# %-14s %-34s %10s\n", "scheme", "parameters", "ms");
    for (size_t i = 0; i < n; i++) {
        const struct kdf_target *t = &res[i].target;
        char params[64];
        if (t->scheme == KDF_SCHEME_BCRYPT)
            snprintf(params, sizeof params, "cost=%u", (unsigned)t->cost);
        else if (t->m_kib != 0)
            snprintf(params, sizeof params, "m=%u,t=%u,p=%u", (unsigned)t->m_kib,
                     (unsigned)t->cost, (unsigned)t->lanes);
        else
            snprintf(params, sizeof params, "i=%u", (unsigned)t->cost);
        printf("# %-14s %-34s %10.1f%s\n", kdf_scheme_name(t->scheme), params, res[i].ms,
               res[i].clamped ? "  (capped by max.*)" : "");
    }
    /* The first (with 'all': argon2id) is the recommendation; the others
     * are commented so the block can be pasted into kdfhash.conf. */
    for (size_t i = 0; i < n; i++) {
        if (kdf_target_format(&res[i].target, text, sizeof text) != KDF_OK)
            return CLI_ERR;
        printf("%starget = %s\n", i ? "# " : "", text);
    }
    return CLI_OK;
}
