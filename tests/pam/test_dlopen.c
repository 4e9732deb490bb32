/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dlopen.c - the built pam_kdfhash.so loads with RTLD_NOW (no undefined
 * symbol: Linux-PAM's tst-pam_unix pattern), exports the PAM entry points and
 * nothing of the core or the writer (version script), so a host's own kdf_*
 * or an LD_PRELOAD cannot interpose on the verifier.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void *g_so;

static int
setup(void **state)
{
    (void)state;
    g_so = dlopen(KDF_PAM_MODULE, RTLD_NOW | RTLD_LOCAL);
    if (g_so == NULL)
        print_error("dlopen: %s\n", dlerror());
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    if (g_so != NULL)
        dlclose(g_so);
    return 0;
}

static void
test_loads_now(void **state)
{
    (void)state;
    assert_non_null(g_so);
}

static void
test_entry_points(void **state)
{
    static const char *const want[] = {
        "pam_sm_authenticate", "pam_sm_setcred",       "pam_sm_acct_mgmt",
        "pam_sm_open_session", "pam_sm_close_session", "pam_sm_chauthtok",
    };
    (void)state;
    assert_non_null(g_so);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (dlsym(g_so, want[i]) == NULL)
            fail_msg("%s not exported", want[i]);
}

static void
test_nothing_else(void **state)
{
    static const char *const hidden[] = {
        "kdf_parse",
        "kdf_verify",
        "kdf_verify_ex",
        "kdf_hash",
        "kdf_policy_load",
        "kdf_policy_set",
        "kdf_ct_eq",
        "kdf_wipe",
        "kdf_impl_force",
        "kdf_dispatch_force_mask",
        "kdf_write_hash",
        "kdf_write_entry",
        "kdf_upgrade_exec",
        "kdf_lookup_user",
        "kdf_shadow_name_ok",
        "kdf_shadow_split",
        "kdf_schemes",
        "kdf_scheme_row",
        "kdf_spell",
        "kdf_dummy_hash",
        "kdf_argon2_raw",
        "kdf_memgate_set_path",
        "kdf_errf",
        "kdf_pam_parse_options",
        "kdf_pam_load_policy",
    };
    (void)state;
    assert_non_null(g_so);
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
        if (dlsym(g_so, hidden[i]) != NULL)
            fail_msg("%s is exported", hidden[i]);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loads_now),
        cmocka_unit_test(test_entry_points),
        cmocka_unit_test(test_nothing_else),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
