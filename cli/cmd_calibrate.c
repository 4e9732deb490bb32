/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_calibrate.c - `kdfhash calibrate`: measure this machine and print the
 * parameters that take about N ms per hash, plus a ready "target = ..."
 * line for kdfhash.conf(5), as `cryptsetup benchmark` does for LUKS.
 *
 * Which schemes, and how each is searched, come from the core's scheme
 * table (kdf_scheme_cost()): the work of one guess is what a target buys,
 * so the search walks the scheme's own cost field.
 * - STEP (bcrypt's log2 cost, scrypt's ln, yescrypt's cost): each step
 *   multiplies the time; we walk up from the lowest cost and keep the one
 *   whose time is nearest N on a log scale.
 * - LINEAR (PBKDF2 iterations, RFC 8018 section 5.2; sha-crypt rounds):
 *   we time a growing count until one run takes a measurable while, then
 *   scale to N and round to 3 significant digits.
 * - MEMORY (Argon2): time is about linear in t at fixed m (RFC 9106 section 3.2:
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

/* Results at most: the recommended schemes, or the one asked for. */
#define CAL_MAX 16

struct cal_result {
    struct kdf_target target;
    double ms;   /* measured time of one hash at target */
    int clamped; /* 1 when a cap (max.*) stopped the search */
};

/* Fewer repetitions for slow runs: the search must stay near a few N. */
static int
reps_for(double expect_ms)
{
    return expect_ms < 20.0 ? 3 : 1;
}

/*
 * A policy file refuses a target below its own minimums (it would rewrite
 * stronger entries of other schemes with hashes the same policy calls too
 * cheap).  When the machine is slow enough that the latency asked for buys
 * less than the minimum, print the minimum lowered to the target, with a
 * word on what that means, so that the printed block still loads.
 */
static void
print_min_line(const struct kdf_target *t, const struct kdf_policy *pol, const char *lead)
{
    char buf[KDF_MAX_HASH_STR + 1], line[160];
    struct kdf_policy with = *pol;
    struct kdf_hash h;

    /* Against a crypt(3) target a native hash is judged by the minimums
     * alone (api_rehash.c), which is the question here. */
    with.target.scheme = KDF_SCHEME_LEGACY;
    if (kdf_dummy_hash(t, buf, sizeof buf, &h) != KDF_OK ||
        kdf_needs_rehash(&h, &with) != KDF_REHASH_TOO_CHEAP)
        return;
    if (!kdf_policy_min_line(t, pol, 1, line, sizeof line))
        return;
    printf("%s# below the built-in minimum for this scheme: lowered to the target\n", lead);
    printf("%s%s\n", lead, line);
}

static int
start_target(const struct kdf_policy *pol, const char *name, struct kdf_target *t)
{
    char err[160];

    if (kdf_target_parse(name, t, err, sizeof err) != KDF_OK) {
        cli_error("calibrate: %s", err);
        return CLI_ERR;
    }
    if (strcmp(kdf_target_name(&pol->target), name) == 0)
        *t = pol->target;
    return CLI_OK;
}

/* Within the caps: kdf_check_target() says so. */
static int
within_caps(const struct kdf_policy *pol, const struct kdf_target *t)
{
    return kdf_check_target(t, pol, NULL) == KDF_OK;
}

static int
cal_step(const struct kdf_policy *pol, const char *name, uint32_t lo, uint32_t hi,
         double goal, struct cal_result *r)
{
    double best_err = 1e300, prev = 0.0;

    if (start_target(pol, name, &r->target) != CLI_OK)
        return CLI_ERR;
    r->clamped = 0;
    for (uint32_t c = lo; c <= hi; c++) {
        struct kdf_target t = r->target;
        double ms, err;

        t.cost = c;
        if (!within_caps(pol, &t))
            break;
        ms = cli_time_hash(pol, &t, reps_for(prev * 2));
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
    if (best_err == 1e300) {
        cli_error("calibrate: %s: even the lowest cost is above the policy's caps", name);
        return CLI_ERR;
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

/* The largest cost in [ok, bad) within the caps (ok is within them). */
static uint32_t
cap_cost(const struct kdf_policy *pol, struct kdf_target t, uint32_t ok, uint32_t bad)
{
    while (bad - ok > 1) {
        uint32_t mid = ok + (bad - ok) / 2;
        t.cost = mid;
        if (within_caps(pol, &t))
            ok = mid;
        else
            bad = mid;
    }
    return ok;
}

static int
cal_linear(const struct kdf_policy *pol, const char *name, uint32_t lo, double goal,
           struct cal_result *r)
{
    struct kdf_target t;
    double ms = 0.0, want;
    uint32_t c = lo > 1000 ? lo : 1000, scaled;

    if (start_target(pol, name, &t) != CLI_OK)
        return CLI_ERR;
    t.cost = c;
    if (!within_caps(pol, &t)) {
        cli_error("calibrate: %s: even %u is above the policy's caps", name, (unsigned)c);
        return CLI_ERR;
    }
    /* Grow until one run is long enough to time (>= 20 ms or N/4). */
    want = goal / 4 < 20.0 ? goal / 4 : 20.0;
    for (;;) {
        struct kdf_target next = t;
        ms = cli_time_hash(pol, &t, 2);
        if (ms < 0)
            return CLI_ERR;
        next.cost = t.cost > UINT32_MAX / 4 ? UINT32_MAX : t.cost * 4;
        if (ms >= want)
            break;
        if (!within_caps(pol, &next)) {
            next.cost = cap_cost(pol, t, t.cost, next.cost);
            if (next.cost == t.cost)
                break;
        }
        t = next;
    }
    r->clamped = 0;
    scaled = round3((double)t.cost * goal / (ms > 0.001 ? ms : 0.001));
    if (scaled < lo)
        scaled = lo;
    t.cost = scaled;
    if (!within_caps(pol, &t)) {
        t.cost = cap_cost(pol, t, lo, scaled);
        r->clamped = 1;
    }
    r->target = t;
    r->ms = cli_time_hash(pol, &t, reps_for(goal));
    return r->ms < 0 ? CLI_ERR : CLI_OK;
}

static int
cal_memory(const struct kdf_policy *pol, const char *name, double goal, uint32_t max_mem,
           struct cal_result *r)
{
    struct kdf_target t;
    double t1, t2, pass;
    uint32_t m_floor, tt;
    const uint32_t cap_m = kdf_policy_bound_get(pol, "max.memory-hard", 0),
                   cap_t = kdf_policy_bound_get(pol, "max.memory-hard", 1),
                   cap_p = kdf_policy_bound_get(pol, "max.memory-hard", 2);

    if (start_target(pol, name, &t) != CLI_OK)
        return CLI_ERR;
    /* The policy's Argon2 target's memory and lanes, whichever variant. */
    if (kdf_scheme_cost(kdf_target_name(&pol->target), NULL, NULL, NULL) == KDF_COST_MEMORY) {
        t.m_kib = pol->target.m_kib;
        t.lanes = pol->target.lanes;
    }
    if (t.lanes > cap_p)
        t.lanes = cap_p;
    if (max_mem != 0)
        t.m_kib = max_mem;
    if (t.m_kib > cap_m)
        t.m_kib = cap_m;
    m_floor = kdf_policy_bound_get(pol, "min.argon2", 0);
    if (m_floor < 8 * t.lanes)
        m_floor = 8 * t.lanes;
    if (t.m_kib < 8 * t.lanes)
        t.m_kib = 8 * t.lanes;
    r->clamped = 0;

    /* t = 1 too slow: halve m at t = 1 (but not below min.argon2 m). */
    t.cost = 1;
    t1 = cli_time_hash(pol, &t, 1);
    if (t1 < 0)
        return CLI_ERR;
    while (t1 > goal && t.m_kib / 2 >= m_floor) {
        t.m_kib /= 2;
        t1 = cli_time_hash(pol, &t, reps_for(t1 / 2));
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
    t1 = cli_time_hash(pol, &t, reps_for(t1));
    if (t1 < 0)
        return CLI_ERR;
    t.cost = 2;
    t2 = cli_time_hash(pol, &t, reps_for(t1 * 2));
    if (t2 < 0)
        return CLI_ERR;
    /* t passes cost about base + t * pass; base is the first-block setup
     * and the memory mapping. */
    pass = t2 - t1 > t1 / 4 ? t2 - t1 : t1 / 2;
    {
        double x = (goal - (t1 - pass)) / pass + 0.5;
        tt = x < 1.0 ? 1 : x > 1e6 ? 1000000u : (uint32_t)x;
    }
    if (tt > cap_t) {
        tt = cap_t;
        r->clamped = 1;
    }
    t.cost = tt;
    r->ms = cli_time_hash(pol, &t, reps_for(goal));
    if (r->ms < 0)
        return CLI_ERR;
    /* One correction from the measured point: a busy machine skews the
     * two short runs above more than this long one. */
    if (!r->clamped && (r->ms > goal * 1.25 || r->ms < goal * 0.8) && tt > 1) {
        double x = (double)tt * goal / r->ms + 0.5;
        uint32_t t3 = x < 1.0 ? 1 : x > (double)cap_t ? cap_t : (uint32_t)x;
        if (t3 != tt) {
            struct kdf_target alt = t;
            double ms;
            alt.cost = t3;
            ms = cli_time_hash(pol, &alt, reps_for(goal));
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
          "                         [--conf FILE] [--isa NAME] [--json]\n"
          "       kdfhash calibrate --rate BINDS [--cores N] [--max-memory KIB]\n"
          "                         [--conf FILE] [--isa NAME] [--json]\n\n"
          "Measure this machine and print the parameters of SCHEME (default argon2id;\n"
          "any of 'kdfhash schemes --names', or 'all': the schemes recommended for\n"
          "new hashes) that take about N ms (1..60000) per hash, and a 'target = ...'\n"
          "line for kdfhash.conf.  Argon2 keeps m at --max-memory KiB (default:\n"
          "the policy target's m) and raises t; results stay within the policy's\n"
          "max.* caps.\n\n"
          "With --rate: the Argon2id target of a directory server that must verify\n"
          "BINDS binds per second on N CPUs (default: those online): p=1, t=2 and\n"
          "the most memory whose measured time lets the CPUs keep that rate at 70%\n"
          "of their capacity, never below min.argon2.\n\n",
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

/* The options of calibrate: what it is asked to do. */
struct cal_args {
    const char *conf, *isa, *scheme;
    uint32_t goal_ms, max_mem, rate, cores;
    int json, scheme_set;
};

/* argv into *a; CLI_OK (with *help set when --help printed the usage) or
 * CLI_ERR (said). */
static int
parse_cal_args(int argc, char **argv, struct cal_args *a, int *help)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"target-ms", required_argument, NULL, 't'},
                                         {"max-memory", required_argument, NULL, 'm'},
                                         {"scheme", required_argument, NULL, 's'},
                                         {"conf", required_argument, NULL, 'c'},
                                         {"isa", required_argument, NULL, 'i'},
                                         {"rate", required_argument, NULL, 'r'},
                                         {"cores", required_argument, NULL, 'n'},
                                         {NULL, 0, NULL, 0}};
    const char *bad = NULL;
    int c;

    memset(a, 0, sizeof *a);
    a->scheme = "argon2id";
    *help = 0;
    /* "+": no argument but options ("calibrate foo" is refused as one). */
    optind = 1;
    while ((c = cli_getopt(argc, argv, "+:h", opts, &bad)) != -1) {
        if (c == 'h') {
            calibrate_usage(stdout);
            *help = 1;
            return CLI_OK;
        } else if (c == 'j') {
            a->json = 1;
        } else if (c == 't' || (c == ':' && optopt == 't')) {
            /* Without its value: "needs a number", as with a word. */
            if (parse_u32_arg("--target-ms", c == 't' ? optarg : NULL, 1, 60000,
                              &a->goal_ms) != CLI_OK)
                return CLI_ERR;
        } else if (c == 'm' || (c == ':' && optopt == 'm')) {
            if (parse_u32_arg("--max-memory", c == 'm' ? optarg : NULL, 8, UINT32_MAX,
                              &a->max_mem) != CLI_OK)
                return CLI_ERR;
        } else if (c == 'r' || (c == ':' && optopt == 'r')) {
            if (parse_u32_arg("--rate", c == 'r' ? optarg : NULL, 1, 1000000, &a->rate) !=
                CLI_OK)
                return CLI_ERR;
        } else if (c == 'n' || (c == ':' && optopt == 'n')) {
            if (parse_u32_arg("--cores", c == 'n' ? optarg : NULL, 1, 4096, &a->cores) != CLI_OK)
                return CLI_ERR;
        } else if (c == 's') {
            a->scheme = optarg;
            a->scheme_set = 1;
        } else if (c == 'c') {
            a->conf = optarg;
        } else if (c == 'i') {
            a->isa = optarg;
        } else {
            break;
        }
    }
    if (c != -1 || optind < argc) {
        cli_error("calibrate: unknown or incomplete option '%.40s'",
                  c != -1 ? bad : argv[optind]);
        calibrate_usage(stderr);
        return CLI_ERR;
    }
    return CLI_OK;
}

/* The schemes to calibrate into todo[*n]: with "all" every recommended
 * one that has a cost, else the one scheme names.  CLI_OK or CLI_ERR. */
static int
cal_schemes(const char *scheme, const char **todo, size_t *n)
{
    *n = 0;
    if (strcmp(scheme, "all") == 0) {
        const char *name;
        int rec;
        for (size_t i = 0; (name = kdf_scheme_at(i, NULL)) != NULL && *n < CAL_MAX; i++)
            if (kdf_scheme_cost(name, NULL, NULL, &rec) != KDF_COST_FIXED && rec)
                todo[(*n)++] = name;
    } else {
        struct kdf_target probe;
        char err[160];
        if (kdf_target_parse(scheme, &probe, err, sizeof err) != KDF_OK) {
            cli_error("calibrate: --scheme %.40s: %s", scheme, err);
            return CLI_ERR;
        }
        todo[(*n)++] = kdf_target_name(&probe);
    }
    return CLI_OK;
}

/* Calibrate scheme name to about goal_ms under pol into *r, checked
 * against the policy.  CLI_OK or CLI_ERR (said). */
static int
cal_one(const struct kdf_policy *pol, const char *name, uint32_t goal_ms, uint32_t max_mem,
        struct cal_result *r)
{
    uint32_t lo = 1, hi = UINT32_MAX;
    const char *why = NULL;
    int rc;

    switch (kdf_scheme_cost(name, &lo, &hi, NULL)) {
    case KDF_COST_STEP:
        rc = cal_step(pol, name, lo, hi, goal_ms, r);
        break;
    case KDF_COST_LINEAR:
        rc = cal_linear(pol, name, lo, goal_ms, r);
        break;
    case KDF_COST_MEMORY:
        rc = cal_memory(pol, name, goal_ms, max_mem, r);
        break;
    default:
        cli_error("calibrate: %s has no cost to calibrate", name);
        return CLI_ERR;
    }
    if (rc != CLI_OK)
        return CLI_ERR;
    if (kdf_check_target(&r->target, pol, &why) != KDF_OK) {
        cli_error("calibrate: %s: no target within the policy: %s", name, why ? why : "?");
        return CLI_ERR;
    }
    return CLI_OK;
}

/* The results as one JSON object on stdout. */
static int
print_json_results(uint32_t goal_ms, const struct cal_result *res, size_t n)
{
    char text[160];

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
        print_json_string(kdf_target_name(t));
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

/* The results as a table and ready "target = " lines for kdfhash.conf. */
static int
print_text_results(uint32_t goal_ms, const struct cal_result *res, size_t n,
                   const struct kdf_policy *pol)
{
    char text[160];

    printf("# kdfhash calibrate: about %u ms per hash on this machine (%ld CPUs online;"
           " %s %s, %s %s)\n",
           (unsigned)goal_ms, sysconf(_SC_NPROCESSORS_ONLN),
           kdf_prim_name(KDF_PRIM_BLAMKA), kdf_impl_name(KDF_PRIM_BLAMKA),
           kdf_prim_name(KDF_PRIM_SHA256), kdf_impl_name(KDF_PRIM_SHA256));
    printf("# %-14s %-34s %10s\n", "scheme", "parameters", "ms");
    for (size_t i = 0; i < n; i++) {
        const struct kdf_target *t = &res[i].target;
        const char *params;
        if (kdf_target_format(t, text, sizeof text) != KDF_OK)
            return CLI_ERR;
        params = strchr(text, ' ') != NULL ? strchr(text, ' ') + 1 : "";
        printf("# %-14s %-34s %10.1f%s\n", kdf_target_name(t), params, res[i].ms,
               res[i].clamped ? "  (capped by max.*)" : "");
    }
    /* The first (with 'all': argon2id) is the recommendation; the others
     * are commented so the block can be pasted into kdfhash.conf. */
    for (size_t i = 0; i < n; i++) {
        if (kdf_target_format(&res[i].target, text, sizeof text) != KDF_OK)
            return CLI_ERR;
        printf("%starget = %s\n", i ? "# " : "", text);
        print_min_line(&res[i].target, pol, i ? "# " : "");
    }
    return CLI_OK;
}

int
cli_cmd_calibrate(int argc, char **argv)
{
    struct cal_result res[CAL_MAX];
    const char *todo[CAL_MAX];
    struct kdf_policy pol;
    struct cal_args a;
    size_t n = 0;
    int help;

    if (parse_cal_args(argc, argv, &a, &help) != CLI_OK)
        return CLI_ERR;
    if (help)
        return CLI_OK;
    if (a.rate != 0 && (a.goal_ms != 0 || a.scheme_set)) {
        cli_error("calibrate: --rate makes an Argon2id target of its own: not with %s",
                  a.goal_ms != 0 ? "--target-ms" : "--scheme");
        calibrate_usage(stderr);
        return CLI_ERR;
    }
    if (a.cores != 0 && a.rate == 0) {
        cli_error("calibrate: --cores goes with --rate");
        calibrate_usage(stderr);
        return CLI_ERR;
    }
    if (a.rate != 0) {
        if (cli_load_policy(&pol, a.conf) != CLI_OK)
            return CLI_ERR;
        if (a.isa != NULL && cli_force_isa(a.isa) != CLI_OK)
            return CLI_ERR;
        if (a.cores == 0) {
            long on = sysconf(_SC_NPROCESSORS_ONLN);
            a.cores = on > 0 ? (uint32_t)on : 1;
        }
        return cli_calibrate_rate(&pol, a.rate, a.cores, a.max_mem, a.json);
    }
    if (a.goal_ms == 0) {
        cli_error("calibrate: --target-ms N or --rate BINDS is required");
        calibrate_usage(stderr);
        return CLI_ERR;
    }
    if (cli_load_policy(&pol, a.conf) != CLI_OK)
        return CLI_ERR;
    if (a.isa != NULL && cli_force_isa(a.isa) != CLI_OK)
        return CLI_ERR;
    if (cal_schemes(a.scheme, todo, &n) != CLI_OK)
        return CLI_ERR;
    if (a.max_mem != 0 && a.max_mem > kdf_policy_bound_get(&pol, "max.memory-hard", 0)) {
        cli_error("calibrate: --max-memory %u KiB is above max.memory-hard m=%u",
                  (unsigned)a.max_mem,
                  (unsigned)kdf_policy_bound_get(&pol, "max.memory-hard", 0));
        return CLI_ERR;
    }

    /* Warm up: the first hash pays for the implementation pick and its
     * self-test (util_dispatch.c), which no login after the first one pays. */
    {
        struct kdf_target w;
        char err[160];
        if (kdf_target_parse("argon2id m=64,t=1,p=1", &w, err, sizeof err) == KDF_OK &&
            cli_time_hash(&pol, &w, 1) < 0)
            return CLI_ERR;
    }
    for (size_t i = 0; i < n; i++)
        if (cal_one(&pol, todo[i], a.goal_ms, a.max_mem, &res[i]) != CLI_OK)
            return CLI_ERR;
    if (a.json)
        return print_json_results(a.goal_ms, res, n);
    return print_text_results(a.goal_ms, res, n, &pol);
}
