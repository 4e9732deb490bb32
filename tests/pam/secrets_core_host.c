/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * secrets_core_host.c - driver of tests/pam/test_secrets_core.sh: after
 * pam_end(), a core dump of the host holds no byte run of
 * the password.
 *
 *   secrets_core_host DIR GCORE
 *
 * 1. A random 32-character canary password is kept only XOR-masked; a forked
 *    child (its memory is not ours) unmasks it and writes DIR/shadow with
 *    outdated hashes of it: bcrypt $2b$04$ and sha512crypt made by
 *    libxcrypt, PBKDF2-SHA256 (passlib) made by the core.
 * 2. Each user logs in through the real libpam (pam_start_confdir, the
 *    built module, upgrade=file to an Argon2id target); the conversation
 *    unmasks the canary straight into the malloc'd response, which
 *    libpam/the module own from then on.  Every login must succeed and
 *    rewrite the entry; a second login verifies the new Argon2id hash.
 * 3. After the last pam_end(): GCORE -o DIR/core <our pid> (gdb's gcore).
 * 4. Only then the canary is unmasked again, and the core is searched for
 *    it and for each of its 8-byte windows: 0 required.  Two 32-byte
 *    markers, one live in the heap and one in a freed block, must be found
 *    (the dump covers the heap, freed blocks included, and the search
 *    works).  Freed blocks the logins' own allocations reuse are
 *    overwritten before the dump: test 12(b) (tests/pam/pam_host.c free()
 *    scan) is what sees every freed block.
 *
 * This is not tests/pam/pam_host.c: that host's free() wipes every freed block,
 * which would hide exactly the copies left in freed memory that a real
 * host (sshd, a screen locker) keeps around until the heap reuses them.
 *
 * Exit: 0 pass, 1 fail, 77 the dump could not be taken (ptrace refused),
 * 99 harness error.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <security/pam_appl.h>

#include "kdfhash.h"
#include "san_detect.h"

#ifndef KDF_PAM_MODULE
#error "KDF_PAM_MODULE must name the built pam_kdfhash.so"
#endif

#define CANARY_LEN 32
#define SERVICE "kdfcore"

static uint8_t g_mask[CANARY_LEN], g_masked[CANARY_LEN];
static char *volatile g_marker; /* live on purpose: the positive control */
static const char g_alpha[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void
die(const char *what)
{
    fprintf(stderr, "secrets_core_host: %s: %s\n", what, strerror(errno));
    exit(99);
}

static void
fill_random(void *p, size_t n)
{
    if (getrandom(p, n, 0) != (ssize_t)n)
        die("getrandom");
}

static void
write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0)
        die(path);
}

/* The child: unmask, hash, write the shadow file, exit (its copies die
 * with it). */
static void
make_shadow(const char *path)
{
    char pw[CANARY_LEN + 1], setting[CRYPT_GENSALT_OUTPUT_SIZE], pbk[KDF_MAX_HASH_STR + 1];
    static struct crypt_data cd;
    const struct kdf_target t = {KDF_SCHEME_PBKDF2_SHA256, KDF_FMT_PASSLIB, 0, 0, 1000, 0, 0,
                                 16, 32, KDF_XCRYPT_NONE, 0, {0}};
    uint8_t salt[16];
    FILE *f = fopen(path, "w");

    if (f == NULL)
        _exit(2);
    for (size_t i = 0; i < CANARY_LEN; i++)
        pw[i] = (char)(g_masked[i] ^ g_mask[i]);
    pw[CANARY_LEN] = '\0';
    fputs("root:*:20000:0:99999:7:::\n", f);
    if (crypt_gensalt_rn("$2b$", 4, NULL, 0, setting, sizeof setting) == NULL ||
        crypt_rn(pw, setting, &cd, (int)sizeof cd) == NULL)
        _exit(3);
    fprintf(f, "u_bc:%s:20000:0:99999:7:::\n", cd.output);
    if (crypt_gensalt_rn("$6$", 1000, NULL, 0, setting, sizeof setting) == NULL ||
        crypt_rn(pw, setting, &cd, (int)sizeof cd) == NULL)
        _exit(4);
    fprintf(f, "u_sha:%s:20000:0:99999:7:::\n", cd.output);
    fill_random(salt, sizeof salt);
    if (kdf_hash_salt(pw, CANARY_LEN, &t, salt, sizeof salt, pbk, sizeof pbk) != KDF_OK)
        _exit(5);
    fprintf(f, "u_pbk:%s:20000:0:99999:7:::\n", pbk);
    _exit(fclose(f) == 0 ? 0 : 6);
}

/* Unmask straight into the response block: the only unmasked copy this
 * process makes before the dump is the one it hands to libpam. */
static int
conv(int num_msg, const struct pam_message **msg, struct pam_response **resp, void *appdata)
{
    struct pam_response *r;
    (void)appdata;

    if (num_msg <= 0 || (r = calloc((size_t)num_msg, sizeof *r)) == NULL)
        return PAM_CONV_ERR;
    for (int i = 0; i < num_msg; i++) {
        if (msg[i]->msg_style != PAM_PROMPT_ECHO_OFF)
            continue;
        if ((r[i].resp = malloc(CANARY_LEN + 1)) == NULL)
            return PAM_BUF_ERR;
        for (size_t k = 0; k < CANARY_LEN; k++)
            r[i].resp[k] = (char)(g_masked[k] ^ g_mask[k]);
        r[i].resp[CANARY_LEN] = '\0';
    }
    *resp = r;
    return PAM_SUCCESS;
}

static int
login(const char *dir, const char *user)
{
    struct pam_conv pc = {conv, NULL};
    pam_handle_t *pamh = NULL;
    int rc = pam_start_confdir(SERVICE, user, &pc, dir, &pamh);

    if (rc != PAM_SUCCESS)
        return rc;
    rc = pam_authenticate(pamh, 0);
    pam_end(pamh, rc);
    return rc;
}

/* Does the shadow file give user an Argon2id hash now? */
static int
upgraded(const char *shadow, const char *user)
{
    char line[1024], want[64];
    FILE *f = fopen(shadow, "r");
    int yes = 0;

    if (f == NULL)
        die(shadow);
    snprintf(want, sizeof want, "%s:$argon2id$", user);
    while (fgets(line, sizeof line, f) != NULL)
        yes |= strncmp(line, want, strlen(want)) == 0;
    fclose(f);
    return yes;
}

static size_t
count(const uint8_t *hay, size_t n, const void *needle, size_t len)
{
    size_t hits = 0;
    const uint8_t *p = hay, *end = hay + n;

    while (p < end && (p = memmem(p, (size_t)(end - p), needle, len)) != NULL) {
        hits++;
        p++;
    }
    return hits;
}

int
main(int argc, char **argv)
{
    static const char *const users[] = {"u_bc", "u_sha", "u_pbk"};
    char shadow[1024], conf[1024], svc[1024], line[4096], core[1100], pid_s[32];
    char canary[CANARY_LEN];
    struct stat st;
    uint8_t *img;
    uint8_t freed_marker[CANARY_LEN];
    size_t full, windows = 0, marks, freed_marks;
    pid_t pid;
    int status, fd, fails = 0;

#ifdef KDF_UNDER_ASAN
    /* gdb walks ASan's terabytes of shadow mappings: the dump of this
     * process was OOM-killed here.  The plain build runs this test. */
    printf("SKIP: no core dump of an ASan process (its shadow memory is terabytes)\n");
    (void)argv;
    return 77;
#endif
    if (argc != 3) {
        fprintf(stderr, "usage: %s DIR GCORE\n", argv[0]);
        return 99;
    }
    {
        uint8_t r[CANARY_LEN];
        fill_random(r, sizeof r);
        fill_random(g_mask, sizeof g_mask);
        for (size_t i = 0; i < CANARY_LEN; i++)
            g_masked[i] = (uint8_t)(g_alpha[r[i] & 63] ^ g_mask[i]);
        explicit_bzero(r, sizeof r);
    }
    snprintf(shadow, sizeof shadow, "%s/shadow", argv[1]);
    snprintf(conf, sizeof conf, "%s/kdfhash.conf", argv[1]);
    snprintf(svc, sizeof svc, "%s/%s", argv[1], SERVICE);
    pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0)
        make_shadow(shadow);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "secrets_core_host: shadow file child failed (%#x)\n", status);
        return 99;
    }
    write_file(conf, "");
    snprintf(line, sizeof line,
             "auth required %s shadow=%s conf=%s target=argon2id:m=256,t=1,p=1 upgrade=file\n",
             KDF_PAM_MODULE, shadow, conf);
    write_file(svc, line);

    for (size_t i = 0; i < sizeof users / sizeof users[0]; i++) {
        int rc = login(argv[1], users[i]);
        int up = upgraded(shadow, users[i]);
        int rc2 = login(argv[1], users[i]);
        printf("# %s: login %d, upgraded %s, login with the new hash %d\n", users[i], rc,
               up ? "yes" : "NO", rc2);
        fails += rc != PAM_SUCCESS || !up || rc2 != PAM_SUCCESS;
    }
    if (fails != 0) {
        printf("FAIL: %d logins or upgrades failed: nothing to look for\n", fails);
        return 1;
    }

    /* The positive control, then the dump. */
    g_marker = malloc(CANARY_LEN);
    if (g_marker == NULL)
        die("malloc");
    fill_random(g_marker, CANARY_LEN);
    /* ... and a freed one: freed heap that nothing reused yet is in the
     * dump too (a block of a size the logins do not use, so it stays). */
    {
        char *volatile blk = malloc(3000);
        if (blk == NULL)
            die("malloc");
        /* kept masked, like the canary: only the freed block holds it */
        fill_random(freed_marker, sizeof freed_marker);
        for (size_t i = 0; i < sizeof freed_marker; i++)
            blk[1500 + i] = (char)(freed_marker[i] ^ g_mask[i]);
        free(blk);
    }
    /* Yama ptrace_scope=1 lets only ancestors attach: allow gcore's gdb. */
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    snprintf(core, sizeof core, "%s/core", argv[1]);
    snprintf(pid_s, sizeof pid_s, "%ld", (long)getpid());
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execl(argv[2], argv[2], "-o", core, pid_s, (char *)NULL);
        _exit(127);
    }
    if (waitpid(pid, &status, 0) != pid)
        die("waitpid");
    snprintf(core, sizeof core, "%s/core.%s", argv[1], pid_s);
    fd = open(core, O_RDONLY);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || fd < 0 || fstat(fd, &st) != 0 ||
        st.st_size == 0) {
        printf("SKIP: gcore could not dump this process (status %#x; ptrace refused?)\n",
               status);
        return 77;
    }
    img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (img == MAP_FAILED)
        die("mmap core");

    /* Only now, after the dump, the canary exists unmasked here again. */
    for (size_t i = 0; i < CANARY_LEN; i++)
        canary[i] = (char)(g_masked[i] ^ g_mask[i]);
    full = count(img, (size_t)st.st_size, canary, CANARY_LEN);
    for (size_t off = 0; off + 8 <= CANARY_LEN; off++)
        windows += count(img, (size_t)st.st_size, canary + off, 8);
    marks = count(img, (size_t)st.st_size, g_marker, CANARY_LEN);
    for (size_t i = 0; i < sizeof freed_marker; i++)
        freed_marker[i] ^= g_mask[i];
    freed_marks = count(img, (size_t)st.st_size, freed_marker, sizeof freed_marker);
    explicit_bzero(canary, sizeof canary);
    printf("# core %lld bytes: canary %zu whole, %zu 8-byte windows; live marker %zu, "
           "freed marker %zu\n",
           (long long)st.st_size, full, windows, marks, freed_marks);
    munmap(img, (size_t)st.st_size);
    close(fd);
    unlink(core);
    if (marks == 0 || freed_marks == 0) {
        printf("FAIL: a marker is not in the core: the search is blind\n");
        return 1;
    }
    if (windows != 0) {
        printf("FAIL: the password is still in the host's memory after pam_end()\n");
        return 1;
    }
    printf("PASS: no byte run of the password in the core\n");
    return 0;
}
