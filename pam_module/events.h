/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * events.h - the module's journal events: the one list of their names and
 * MESSAGE_IDs (journal.c sends them, pam_kdfhash(8) "OPERATING ON A WATCHED
 * HOST" lists them, and tests/pam/test_pam_journal.c checks that the page
 * says what this list says).  A MESSAGE_ID never changes once released:
 * admins' journalctl queries and SIEM rules name it.  New ones come from
 * "journalctl --new-id128" (or Python's uuid.uuid4().hex).
 *
 * X(ENUM, KDFHASH_EVENT value, MESSAGE_ID, what it means)
 */
#ifndef KDF_PAM_EVENTS_H
#define KDF_PAM_EVENTS_H

#define KDF_PAM_EVENTS(X)                                                              \
    X(UPGRADE, "upgrade", "2c0c29f28231469aa3af16d1b52ed6d3",                          \
      "an entry rewritten at login to the target (or migrated)")                       \
    X(UPGRADE_FAILED, "upgrade-failed", "759d4d21f87141729c3535f1a3191143",            \
      "an outdated entry left as it was: the rewrite failed; the login succeeded")     \
    X(REFUSAL, "refusal", "220bd203ac0b40199fbdfa31461d0a56",                          \
      "a login refused: wrong password, unknown user, locked or empty entry")          \
    X(DEGRADED, "degraded", "c78697e15af84cb1adaaefcfe73c95f5",                        \
      "a bad module argument or policy: built-in defaults, no upgrade")                \
    X(KEY_MISSING, "key-missing", "07fb15e36d844caca9e7ffd35d49f99a",                  \
      "the pepper's key cannot be read: a keyed entry cannot be verified or made")     \
    X(OVER_CAP, "over-cap", "2ed266531c5443ffaefa3aee10f324ba",                        \
      "an entry whose parameters exceed the policy's caps, refused before any work")   \
    X(BUSY, "busy", "616301b4ed624d11ba7f95cbfb84223a",                                \
      "a login refused: no memory within max.memory after max.memory-wait")

enum kdf_pam_event {
#define KDF_PAM_EVENT_ENUM(e, name, id, what) KDF_PAM_EV_##e,
    KDF_PAM_EVENTS(KDF_PAM_EVENT_ENUM)
#undef KDF_PAM_EVENT_ENUM
        KDF_PAM_EV_COUNT
};

#endif /* KDF_PAM_EVENTS_H */
