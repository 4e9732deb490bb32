/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_fixture.c - hashes, passwords and the main shadow file of test_pam
 * (see pam_fixture.h).  The file mixes every scheme with the layouts a real
 * /etc/shadow can hold: comments, blank lines, a 70 KB line, NIS +/- lines,
 * 256/257-byte names, a duplicated name, CRLF, a two-field line and no final
 * newline.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pam_fixture.h"
#include "pam_host.h"

const char *const g_hash[] = {
#define PAM_HASH(id, h) h,
#include "pam_hashes.inc"
#undef PAM_HASH
};
const char *const g_hash_id[] = {
#define PAM_HASH(id, h) #id,
#include "pam_hashes.inc"
#undef PAM_HASH
};

char *g_dir;
char g_shadow[512];
char g_conf[512];
char g_name256[257], g_name255[256], g_name257[258];

/* Builds the bytes of a password; returns a malloc'd buffer. */
char *
make_pw(const struct pwspec *p, size_t *len)
{
    static const char sshd[] = "\b\n\r\177INCORRECT"; /* OpenSSH auth-pam.c */
    char *b;
    size_t n;

    switch (p->kind) {
    case PW_STD:
        n = strlen(PW);
        b = strdup(PW);
        break;
    case PW_WRONG:
        n = strlen(WRONG);
        b = strdup(WRONG);
        break;
    case PW_LIT:
        n = strlen(p->lit);
        b = strdup(p->lit);
        break;
    case PW_FILL:
        n = p->len;
        b = malloc(n + 1);
        memset(b, p->fill, n);
        break;
    case PW_HIGH:
    case PW_HIGH_BAD:
        n = 128;
        b = malloc(n + 1);
        for (size_t i = 0; i < n; i++)
            b[i] = (char)(0x80 + i);
        if (p->kind == PW_HIGH_BAD)
            b[77] ^= 1;
        break;
    case PW_SSHD:
    default:
        n = p->len;
        b = malloc(n + 1);
        for (size_t i = 0; i < n; i++)
            b[i] = sshd[i % (sizeof sshd - 1)];
        break;
    }
    b[n] = '\0';
    *len = n;
    return b;
}

/* ---- the main shadow file ----------------------------------------------- */

static void append(char **buf, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
append(char **buf, size_t *len, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&s, fmt, ap);
    va_end(ap);
    assert_true(n >= 0);
    *buf = realloc(*buf, *len + (size_t)n + 1);
    memcpy(*buf + *len, s, (size_t)n + 1);
    *len += (size_t)n;
    free(s);
}

static void
write_main_shadow(void)
{
    char *b = NULL, *huge;
    size_t n = 0;

    append(&b, &n, "# a comment line\n\n   \n");
    /* A 70 KB line before the users: skipped, never matched. */
    huge = malloc(70001);
    memset(huge, 'A', 70000);
    huge[70000] = '\0';
    append(&b, &n, "u_huge:%s:19000:0:99999:7:::\n", huge);
    free(huge);
    append(&b, &n, "root::19000:0:99999:7:::\n");
    for (int i = 0; i < H_COUNT; i++)
        append(&b, &n, "u_%s:%s:19000:0:99999:7:::\n", g_hash_id[i], g_hash[i]);
    append(&b, &n, "u_empty::19000:0:99999:7:::\n");
    append(&b, &n, "u_star:*:19000:0:99999:7:::\n");
    append(&b, &n, "u_bang:!:19000:0:99999:7:::\n");
    append(&b, &n, "u_bang_valid:!%s:19000:0:99999:7:::\n", g_hash[H_bc2b]);
    append(&b, &n, "u_star_valid:*%s:19000:0:99999:7:::\n", g_hash[H_a2id]);
    append(&b, &n, "u_malformed:$2b$04$short:19000:0:99999:7:::\n");
    /* Keyed with a key the module does not have: the first row of
     * tests/vectors/argon2_keyed.inc (libargon2 with the secret set). */
    append(&b, &n, "u_keyed:$argon2id$v=19$m=8,t=1,p=1,keyid=5ykChnXa$BytvzpWziZWqIKa7mpE2Rw$"
                   "qu4LCeWlzVNz1lcWXnreAvp2DWorDMGLmlwz17U0e40:19000:0:99999:7:::\n");
    append(&b, &n, "u_unsupported:$9$abcdefgh$xyz:19000:0:99999:7:::\n");
    append(&b, &n, "+u_plus:%s:19000:0:99999:7:::\n", g_hash[H_pbk256]);
    append(&b, &n, "-u_minus:%s:19000:0:99999:7:::\n", g_hash[H_pbk256]);
    append(&b, &n, "#u_hash:%s:19000:0:99999:7:::\n", g_hash[H_pbk256]);
    append(&b, &n, "%s:%s:19000:0:99999:7:::\n", g_name256, g_hash[H_pbk256]);
    append(&b, &n, "%s:%s:19000:0:99999:7:::\n", g_name257, g_hash[H_pbk256]);
    append(&b, &n, "u_dup:%s:19000:0:99999:7:::\n", g_hash[H_pbk256]);
    append(&b, &n, "u_dup:%s:19000:0:99999:7:::\n", g_hash[H_pbk256]);
    append(&b, &n, "u_nocolon\n");
    append(&b, &n, "u_crlf:%s:19000:0:99999:7:::\r\n", g_hash[H_pbk256]);
    append(&b, &n, "u_crlf2:%s\r\n", g_hash[H_phc256]);
    append(&b, &n, "u_last:%s", g_hash[H_pbk1]); /* no final newline */
    host_write(g_shadow, b, n);
    free(b);
}

int
fixture_setup(void **state)
{
    (void)state;
    memset(g_name256, 'L', 256);
    memset(g_name255, 'L', 255);
    memset(g_name257, 'M', 257);
    g_dir = host_tmpdir();
    snprintf(g_shadow, sizeof g_shadow, "%s/shadow", g_dir);
    snprintf(g_conf, sizeof g_conf, "%s/kdfhash.conf", g_dir);
    host_write(g_conf, "", 0);
    write_main_shadow();
    return 0;
}

int
fixture_teardown(void **state)
{
    (void)state;
    host_rmtree(g_dir);
    free(g_dir);
    return 0;
}

/* Field 2 of user's line in file (malloc'd), NULL when absent. */
char *
fixture_field2(const char *file, const char *user)
{
    char *b = host_read(file, NULL), *r = NULL;
    size_t ul = strlen(user);
    for (char *line = b; line != NULL && *line;) {
        char *nl = strchr(line, '\n');
        if (strncmp(line, user, ul) == 0 && line[ul] == ':') {
            char *f = line + ul + 1;
            size_t fl = strcspn(f, ":\r\n");
            r = strndup(f, fl);
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(b);
    return r;
}
