/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_ds_scope.c - which binds of the 389-ds plugin may re-encode their
 * entry's value (ds_plugin/ds_scope.c), and how often the error log names
 * one that may not.  Pure logic: no server.
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define REPL "cn=replication manager,cn=config"
#define USER "uid=alice,ou=people,dc=example,dc=com"
#define SVC "uid=sssd,ou=services,dc=example,dc=com"

static void
test_user_in_scope(void **state)
{
    (void)state;
    assert_int_equal(kds_scope_decide(USER, 1, REPL "\n", NULL), KDS_SCOPE_IN);
    assert_int_equal(kds_scope_decide(USER, 1, NULL, NULL), KDS_SCOPE_IN);
}

static void
test_private_backend_out(void **state)
{
    (void)state;
    /* The replication manager under cn=config: out even when no replica
     * names it (an agreement being set up, a group not yet read). */
    assert_int_equal(kds_scope_decide(REPL, 0, NULL, NULL), KDS_SCOPE_NOT_USER_BACKEND);
    assert_int_equal(kds_scope_decide(USER, 0, NULL, NULL), KDS_SCOPE_NOT_USER_BACKEND);
    assert_int_equal(kds_scope_decide("", 1, NULL, NULL), KDS_SCOPE_NOT_USER_BACKEND);
    assert_int_equal(kds_scope_decide(NULL, 1, NULL, NULL), KDS_SCOPE_NOT_USER_BACKEND);
}

static void
test_replication_dn_out(void **state)
{
    (void)state;
    /* A replication manager under the suffix (FreeIPA's style), named by
     * a replica or a group's member. */
    assert_int_equal(kds_scope_decide(SVC, 1, REPL "\n" SVC "\n", NULL), KDS_SCOPE_REPLICATION);
    assert_int_equal(kds_scope_decide(SVC, 1, SVC, NULL), KDS_SCOPE_REPLICATION);
}

static void
test_keep_dn_out(void **state)
{
    (void)state;
    assert_int_equal(kds_scope_decide(SVC, 1, REPL "\n", "uid=x\n" SVC "\n"), KDS_SCOPE_KEEP_DN);
    assert_int_equal(kds_scope_decide(USER, 1, REPL "\n", SVC "\n"), KDS_SCOPE_IN);
    assert_string_not_equal(kds_scope_reason(KDS_SCOPE_KEEP_DN), "?");
}

static void
test_whole_lines_only(void **state)
{
    (void)state;
    /* A prefix or a suffix of a listed DN is another DN. */
    assert_false(kds_dn_in_list(SVC "\n", "uid=sssd"));
    assert_false(kds_dn_in_list("uid=sssd\n", SVC));
    assert_false(kds_dn_in_list("a," SVC "\n", SVC));
    assert_true(kds_dn_in_list("\n\n" SVC, SVC));
    assert_false(kds_dn_in_list("\n\n", ""));
    assert_false(kds_dn_in_list(NULL, SVC));
}

static void
test_log_once_per_dn_and_hour(void **state)
{
    static struct kds_scope_log log = {.lock = PTHREAD_MUTEX_INITIALIZER};

    (void)state;
    assert_true(kds_scope_should_say(&log, REPL, 100));
    assert_false(kds_scope_should_say(&log, REPL, 101));
    assert_false(kds_scope_should_say(&log, REPL, 100 + KDS_SCOPE_REPEAT_S - 1));
    assert_true(kds_scope_should_say(&log, SVC, 102));
    assert_true(kds_scope_should_say(&log, REPL, 100 + KDS_SCOPE_REPEAT_S));
    assert_false(kds_scope_should_say(&log, REPL, 100 + KDS_SCOPE_REPEAT_S + 5));
    /* A prefix of a remembered DN is another DN. */
    assert_true(kds_scope_should_say(&log, "cn=replication manager", 200));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_user_in_scope),
        cmocka_unit_test(test_private_backend_out),
        cmocka_unit_test(test_replication_dn_out),
        cmocka_unit_test(test_keep_dn_out),
        cmocka_unit_test(test_whole_lines_only),
        cmocka_unit_test(test_log_once_per_dn_and_hour),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
