/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_fixture.h - shared fixture of test_pam: the stored hashes (made by
 * independent implementations, tests/pam/pam_hashes.inc), the passwords, the
 * main shadow-style file in a temp dir, and the return-code matrix rows
 * (pam_cases.c).
 */
#ifndef KDF_PAM_FIXTURE_H
#define KDF_PAM_FIXTURE_H

#include <stddef.h>

#include <security/pam_appl.h>

#define PW "S3cret-p4ss!"
#define WRONG "S3cret-p4ss?"
#define TARGET "target=argon2id:m=256,t=1,p=1"
#define TARGET_PREFIX "$argon2id$v=19$m=256,t=1,p=1$"

#include "pam_hashes.h" /* enum hash_id */

extern const char *const g_hash[];    /* by enum hash_id */
extern const char *const g_hash_id[]; /* "bc2b", ... : user "u_<id>" */

extern char *g_dir;        /* temp dir of the group */
extern char g_shadow[512]; /* the main shadow file */
extern char g_conf[512];   /* an empty kdfhash.conf */
extern char g_name256[257], g_name255[256], g_name257[258];

enum pw_kind { PW_STD, PW_WRONG, PW_LIT, PW_FILL, PW_HIGH, PW_HIGH_BAD, PW_SSHD };

struct pwspec {
    enum pw_kind kind;
    const char *lit; /* PW_LIT */
    size_t len;      /* PW_FILL, PW_SSHD */
    char fill;       /* PW_FILL */
};

/* Field 2 of user's line in file (malloc'd), NULL when absent. */
char *fixture_field2(const char *file, const char *user);

/* The bytes of a password (malloc'd, NUL-terminated); *len its length. */
char *make_pw(const struct pwspec *p, size_t *len);

/* cmocka group setup/teardown: temp dir, empty conf, main shadow file. */
int fixture_setup(void **state);
int fixture_teardown(void **state);

#define NOLOG (-1)
#define S_MAIN NULL
#define S_MISSING "@missing"
#define S_DIR "@dir"
#define S_LINK "@link"

struct mcase {
    const char *what;
    const char *user; /* "@256", "@255", "@257": the long names */
    struct pwspec pw;
    const char *args; /* appended to the base arguments */
    const char *shadow;
    int flags;
    int conv_rc;
    int expect;
    int log_prio; /* the one expected line's level, or NOLOG */
};

extern const struct mcase g_cases[];
extern const size_t g_ncases;

/* pam_upgrade_cases.c (cmocka tests run in test_pam's group). */
void test_upgrade_file(void **state);
void test_upgrade_untouched(void **state);
void test_upgrade_truncating(void **state);
/* pam_wrap_cases.c */
void test_wrapped_unwrap(void **state);
void test_wrapped_des_locked_migrate(void **state);
void test_upgrade_failure(void **state);
void test_upgrade_exec(void **state);
void test_upgrade_lock_busy(void **state);
void test_degraded_no_upgrade(void **state);
void test_degraded_stand_ins(void **state);
void test_xcrypt_only_root(void **state);
void test_xcrypt_only_none(void **state);
void test_xcrypt_only_group(void **state);
/* pam_keyed_cases.c */
void test_keyed_rotation(void **state);
void test_keyed_bad_pepper(void **state);
void test_keyed_tpm_child(void **state);
void test_keyed_admins(void **state);
void test_form_pam_unix_entries(void **state);
void test_form_at_target(void **state);
void test_form_xcrypt_only(void **state);

#endif /* KDF_PAM_FIXTURE_H */
