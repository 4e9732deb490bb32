/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_ds_values.c - libFuzzer target for the 389-ds plugin's value
 * handling (ds_plugin/ds_schemes.c, ds_plugin/ds_config.c): the stored
 * value after "{NAME}" and the password that 389-ds hands a storage
 * scheme's compare function, and the password its encode function gets,
 * built with clang -fsanitize=fuzzer,address,undefined (tests/local.mk, fuzz
 * section).  The two libslapd functions the plugin calls are stood in for
 * here, as tests/ds/test_ds_plugin.c does.
 *
 * Input: byte 0 picks the scheme name (ARGON2, BCRYPT, KDF-PBKDF2, by its
 * value mod 3); the rest splits at its first '\n' into the password and
 * the stored value, each a NUL-terminated copy (389-ds hands C strings, so
 * a NUL inside ends them).  The three schemes are configured once, from a
 * policy file of cheap targets and low caps, so that no value can cost
 * more than a few milliseconds.
 *
 * Properties checked on every input, besides "no crash, no sanitizer
 * report, no allocation over libFuzzer's limit":
 *   1. compare answers 0 or 1, and 0 exactly when the model says the
 *      value verifies: at most KDF_MAX_HASH_STR bytes, parsed by the core,
 *      of the name's family, within the caps for that password, and
 *      kdf_verify_ex() says KDF_OK.  KDF-PBKDF2 also reads OpenLDAP's
 *      bodies (a value starting with a digit): a 0 there needs one of the
 *      three passlib heads in front of it to verify in the model.
 *   2. A password over max.password is refused by compare and not stored
 *      by encode.
 *   3. encode of a password within the cap gives "{NAME}" and a value that
 *      compare accepts with that password and refuses with the password
 *      changed in its first byte (bcrypt reads only 72 bytes).
 * A failed property prints the line and calls abort().
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slapi-plugin.h>

#include "fuzz_common.h"
#include "kdfhash_ds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x)                                                                         \
    do {                                                                                 \
        if (!(x)) {                                                                      \
            fprintf(stderr, "fuzz_ds_values: %s:%d: check failed: %s\n", __FILE__,       \
                    __LINE__, #x);                                                       \
            abort();                                                                     \
        }                                                                                \
    } while (0)

/* ---- stand-ins for libslapd ---- */

static int g_ready;

/* Formatted (so that a bad format or argument shows under the
 * sanitizers) and dropped, but for the configuration's: a seed policy the
 * core refuses is a broken target, and the line says why. */
int
slapi_log_error(int level, char *subsystem, char *fmt, ...)
{
    char line[1024];
    va_list ap;

    (void)level;
    (void)subsystem;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (!g_ready)
        fprintf(stderr, "fuzz_ds_values: %s", line);
    return 0;
}

char *
slapi_ch_smprintf(const char *fmt, ...)
{
    char *out = NULL;
    va_list ap;

    va_start(ap, fmt);
    if (vasprintf(&out, fmt, ap) < 0)
        out = NULL;
    va_end(ap);
    return out;
}

/* ---- the schemes ---- */

#define BIT(s) (1u << (s))
#define MAX_PW 256

static struct kds_scheme g_s[3] = {
    {.name = "ARGON2",
     .lock = PTHREAD_RWLOCK_INITIALIZER,
     .said_outdated = ATOMIC_FLAG_INIT},
    {.name = "BCRYPT",
     .lock = PTHREAD_RWLOCK_INITIALIZER,
     .said_outdated = ATOMIC_FLAG_INIT},
    {.name = "KDF-PBKDF2",
     .openldap_body = 1,
     .lock = PTHREAD_RWLOCK_INITIALIZER,
     .said_outdated = ATOMIC_FLAG_INIT},
};
/* The model's own knowledge of each name's family (the plugin asks the
 * core's scheme table). */
static const uint32_t g_family[3] = {
    BIT(KDF_SCHEME_ARGON2ID) | BIT(KDF_SCHEME_ARGON2I) | BIT(KDF_SCHEME_ARGON2D),
    BIT(KDF_SCHEME_BCRYPT),
    BIT(KDF_SCHEME_PBKDF2_SHA1) | BIT(KDF_SCHEME_PBKDF2_SHA256) | BIT(KDF_SCHEME_PBKDF2_SHA512),
};
/* Each scheme's own target among the plugin's arguments. */
static const char *const g_target[3] = {
    "target=argon2id m=64,t=1,p=1",
    "target=bcrypt cost=4",
    "target=pbkdf2-sha256 i=100",
};
static char g_dir[4096], g_path[4200];

static void
cleanup(void)
{
    unlink(g_path);
    rmdir(g_dir);
}

static void
setup(void)
{
    /* Caps low enough that any value the parser takes costs little; the
     * minimums under the cheap targets. */
    static const char conf[] = "target = argon2id m=64,t=1,p=1\n"
                               "min.argon2 = m=8,t=1,p=1\n"
                               "min.bcrypt = 4\n"
                               "min.pbkdf2-sha1 = 1\nmin.pbkdf2-sha256 = 1\n"
                               "min.pbkdf2-sha512 = 1\n"
                               "max.argon2 = m=256,t=2,p=2\n"
                               "max.bcrypt = 6\n"
                               "max.pbkdf2 = 2000\n"
                               "max.password = 256\n"
                               "max.memory = off\n";
    int fd;

    if (g_ready)
        return;
    fuzz_make_dir(g_dir, sizeof g_dir, "fuzz-ds-values");
    fd = fuzz_open_file(g_dir, "kdfhash.conf", g_path, sizeof g_path, "fuzz_ds_values");
    CHECK(write(fd, conf, sizeof conf - 1) == (ssize_t)(sizeof conf - 1));
    close(fd);
    atexit(cleanup);
    for (int i = 0; i < 3; i++) {
        char *argv[2] = {g_path, (char *)g_target[i]};
        if (kds_configure(&g_s[i], 2, argv) != 0) {
            fprintf(stderr, "fuzz_ds_values: %s does not configure\n", g_s[i].name);
            abort();
        }
    }
    g_ready = 1;
}

/* The model: does str verify with pw under s's policy? */
static int
model_verifies(const struct kds_scheme *s, const struct kds_conf *c, const char *pw,
               size_t pw_len, const char *str, size_t len)
{
    struct kdf_hash h;
    const char *why = NULL;

    if (len > KDF_MAX_HASH_STR || pw_len > c->pol.max_password_len)
        return 0;
    if (kdf_parse(str, len, &h, &why) != KDF_OK)
        return 0;
    if (!(g_family[s - g_s] & BIT(h.scheme)))
        return 0;
    if (kdf_check_caps(&h, pw_len, &c->pol, &why) != KDF_OK)
        return 0;
    return kdf_verify_ex(pw, pw_len, &h, &c->pol, NULL, 0) == KDF_OK;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const heads[] = {"$pbkdf2$", "$pbkdf2-sha256$", "$pbkdf2-sha512$"};
    struct kds_scheme *s;
    struct kds_conf c;
    const uint8_t *p, *line;
    size_t n, pw_n, pw_len, v_len;
    char *pw, *value, *enc;
    int got, want;

    if (size < 1)
        return 0;
    setup();
    s = &g_s[data[0] % 3];
    kds_conf_get(s, &c);
    p = data + 1;
    n = size - 1;
    pw_n = fuzz_take_line(&p, &n, &line);
    pw = malloc(pw_n + 2); /* room for property 3's change of "" to "x" */
    value = malloc(n + 1);
    CHECK(pw != NULL && value != NULL);
    memcpy(pw, line, pw_n);
    pw[pw_n] = '\0';
    memcpy(value, p, n);
    value[n] = '\0';
    pw_len = strlen(pw);
    v_len = strlen(value);

    /* 1, 2: compare against the model. */
    got = kds_compare(s, pw, value);
    CHECK(got == 0 || got == 1);
    if (s->openldap_body && value[0] >= '0' && value[0] <= '9') {
        want = 0;
        for (size_t i = 0; i < 3 && !want; i++) {
            char joined[KDF_MAX_HASH_STR + 64];
            int k = snprintf(joined, sizeof joined, "%s%s", heads[i], value);
            if (k > 0 && (size_t)k < sizeof joined)
                want = model_verifies(s, &c, pw, pw_len, joined, (size_t)k);
        }
        /* The plugin picks the head by the digest's length: it may refuse
         * what another head would verify, never accept what none does. */
        if (got == 0)
            CHECK(want);
    } else {
        want = model_verifies(s, &c, pw, pw_len, value, v_len);
        CHECK(got == (want ? 0 : 1));
    }
    if (pw_len > c.pol.max_password_len)
        CHECK(got == 1);

    /* 2, 3: encode. */
    enc = kds_encode(s, pw);
    if (pw_len > c.pol.max_password_len) {
        CHECK(enc == NULL);
    } else {
        size_t nl = strlen(s->name);
        const char *b;

        CHECK(enc != NULL);
        CHECK(enc[0] == '{' && strncmp(enc + 1, s->name, nl) == 0 && enc[nl + 1] == '}');
        b = enc + nl + 2;
        CHECK(strlen(b) <= KDF_MAX_HASH_STR);
        CHECK(kds_compare(s, pw, b) == 0);
        pw[0] = (char)(pw[0] == 'x' ? 'y' : 'x');
        if (pw_len == 0)
            pw[1] = '\0';
        CHECK(kds_compare(s, pw, b) == 1);
        free(enc);
    }
    kdf_wipe(pw, pw_n + 2);
    free(pw);
    free(value);
    return 0;
}
