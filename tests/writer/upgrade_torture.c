/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upgrade_torture.c - the multi-process lost-update and crash workloads
 * for kdf_write_hash(), driven by tests/writer/test_upgrade_concurrency.sh,
 * tests/writer/test_upgrade_crash.sh and tests/soak/soak_upgrade.sh.
 *
 *   upgrade_torture concurrency DIR PROCS GENS ADMIN_ROUNDS
 *     A 10,000-entry file; PROCS processes upgrade the 500 "login" users
 *     (each its own subset, GENS compare-and-swap steps h$U$g -> h$U$g+1)
 *     while an admin process rewrites 50 other users and 20 of the 500
 *     (field 2 and field 3) under a classic fcntl lock on the same lock file,
 *     the way lckpwdf() users (chpasswd, usermod, passwd) do.  The final file
 *     must equal the model: every admin write kept, every upgrade kept, no
 *     line lost, duplicated or reverted.
 *
 *   upgrade_torture crash DIR TRIALS WORKERS KILLS
 *     WORKERS processes upgrade endlessly; every 5-50 ms one of them is
 *     SIGKILLed and restarted, KILLS times per trial.  After each trial:
 *     10,000 lines, each the user's own line at some generation no older
 *     than after the previous trial, every other field as generated; the
 *     lock is had at once; leftover temps are never more permissive than
 *     the target and are gone after the next upgrade.
 *
 *   upgrade_torture crash-helper DIR TRIALS WORKERS KILLS HELPER
 *     The same, every write made by HELPER (kdfhash-update's test build,
 *     through kdf_update_run(), as the module with write_helper=always):
 *     what is SIGKILLed at random moments is a running helper, found in
 *     /proc, KILLS times per trial; its worker reads the user's generation
 *     back from the file and goes on.  The hashes are bcrypt-shaped, which
 *     the helper requires, with the user and the generation in the digest.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "update_client.h"
#include "upgrade.h"

#define NUSERS 10000
#define NLOGIN 500
#define NADM_OTHER 50
#define NADM_LOGIN 20
#define TARGET_MODE 0640

static char g_path[512], g_lock[600], g_dir[400];

/* A field 2 at generation g: "h$UUUUU$G", or with a helper a bcrypt string
 * kdf_parse() takes (salt and digest end on a canonical '.'). */
static const char *g_helper; /* crash-helper: the helper's path */
static const char *g_pfx = "h$", *g_sep = "$", *g_sfx = "";
static int g_gw; /* zero-padded width of the generation (0: none) */
#define HASH_CAP 80
/* crash-helper: the helpers the workers saw die of SIGKILL, before their
 * rename (the file still had the old generation) and after it, shared by
 * the workers through a MAP_SHARED page. */
struct seen {
    long before, after;
};
static struct seen *g_seen;

static void
fmt_hash(char *out, size_t cap, int u, long g)
{
    snprintf(out, cap, "%s%05d%s%0*ld%s", g_pfx, u, g_sep, g_gw, g, g_sfx);
}

static void
nap_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static pid_t g_driver; /* pid of the process that forks the crash workers */

static void
die(const char *msg)
{
    fprintf(stderr, "upgrade_torture: %s\n", msg);
    exit(1);
}

/* The generated line of user i: name, field 2 at generation 0, the rest. */
static void
orig_rest(int i, char *out, size_t cap)
{
    snprintf(out, cap, ":%d:0:99999:7:::", 18000 + i % 1000);
}

static void
gen_file(void)
{
    FILE *f = fopen(g_path, "w");
    char rest[64];

    if (f == NULL)
        die("cannot create the file");
    for (int i = 0; i < NUSERS; i++) {
        orig_rest(i, rest, sizeof rest);
        char h[HASH_CAP];
        fmt_hash(h, sizeof h, i, 0);
        fprintf(f, "u%05d:%s%s\n", i, h, rest);
    }
    if (fclose(f) != 0 || chmod(g_path, TARGET_MODE) != 0)
        die("cannot write the file");
}

/* The whole file as an array of NUL-terminated lines (without '\n'). */
struct lines {
    char *data;
    char **line;
    int n;
};

static int
load_lines(struct lines *L)
{
    FILE *f = fopen(g_path, "r");
    long sz;
    int cap = NUSERS + 16;

    memset(L, 0, sizeof *L);
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        if (f != NULL)
            fclose(f);
        return -1;
    }
    L->data = malloc((size_t)sz + 1);
    L->line = malloc(sizeof(char *) * (size_t)cap);
    if (L->data == NULL || L->line == NULL || fread(L->data, 1, (size_t)sz, f) != (size_t)sz)
        die("cannot read the file");
    fclose(f);
    L->data[sz] = '\0';
    for (char *p = L->data; *p != '\0';) {
        char *nl = strchr(p, '\n');
        if (L->n == cap) {
            cap *= 2;
            L->line = realloc(L->line, sizeof(char *) * (size_t)cap);
        }
        L->line[L->n++] = p;
        if (nl == NULL)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    return 0;
}

static void
free_lines(struct lines *L)
{
    free(L->data);
    free(L->line);
}

/* Generation of user i in line s ("uNNNNN:h$NNNNN$G<rest>", or its
 * fmt_hash() form), -1 when the line is not that user's generated line at
 * some generation. */
static long
line_gen(const char *s, int i, const char *rest_expected)
{
    char head[HASH_CAP];
    char *end;
    long g;
    int n = snprintf(head, sizeof head, "u%05d:%s%05d%s", i, g_pfx, i, g_sep);

    if (strncmp(s, head, (size_t)n) != 0)
        return -1;
    errno = 0;
    g = strtol(s + n, &end, 10);
    if (errno != 0 || end == s + n || g < 0)
        return -1;
    if (strncmp(end, g_sfx, strlen(g_sfx)) != 0)
        return -1;
    end += strlen(g_sfx);
    if (rest_expected != NULL && strcmp(end, rest_expected) != 0)
        return -1;
    return g;
}

/* ---------------------------------------------------------------- test 14 */

static int
adm_other(int k)
{
    return 1000 + k * 150; /* 50 users in 1000..8350 */
}

static int
adm_login(int k)
{
    return 7 + k * 25; /* 20 of the 500 login users */
}

static int
is_adm_login(int u)
{
    return u < NLOGIN && u >= 7 && (u - 7) % 25 == 0 && (u - 7) / 25 < NADM_LOGIN;
}

/* The users admin round r sets: 5 "other" users and, in the first 40
 * rounds, one login user.  Returns the count written to out[]. */
static int
adm_round_users(int r, int *out)
{
    int n = 0;
    for (int j = 0; j < 5; j++)
        out[n++] = adm_other((r * 5 + j) % NADM_OTHER);
    if (r < 2 * NADM_LOGIN)
        out[n++] = adm_login(r % NADM_LOGIN);
    return n;
}

/* chpasswd-style read-modify-write under a classic (per-process) fcntl lock
 * on the same lock file: F_SETLKW, exactly as glibc lckpwdf() takes it. */
static void
admin_round(int r)
{
    int users[8], n = adm_round_users(r, users), lfd;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    struct lines L;
    char tmp[700];
    FILE *f;

    lfd = open(g_lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (lfd < 0 || fcntl(lfd, F_SETLKW, &fl) < 0)
        die("admin: lock");
    if (load_lines(&L) < 0)
        die("admin: read");
    snprintf(tmp, sizeof tmp, "%s/shadow.admtmp", g_dir);
    f = fopen(tmp, "w");
    if (f == NULL)
        die("admin: temp");
    for (int i = 0; i < L.n; i++) {
        int hit = 0;
        for (int k = 0; k < n; k++)
            hit |= users[k] == i;
        if (hit)
            fprintf(f, "u%05d:adm$%05d$%d:%d:0:99999:7:::\n", i, i, r, 20000 + r);
        else
            fprintf(f, "%s\n", L.line[i]);
    }
    free_lines(&L);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0 || fclose(f) != 0 || chmod(tmp, TARGET_MODE) != 0 ||
        rename(tmp, g_path) != 0)
        die("admin: write");
    close(lfd); /* drops the lock */
}

static int
worker_concurrency(int w, int procs, int gens)
{
    char user[16], oldh[40], newh[40], err[256];
    unsigned long busy = 0;
    unsigned char lost[NLOGIN] = {0};

    for (int g = 1; g <= gens; g++) {
        for (int u = w; u < NLOGIN; u += procs) {
            enum kdf_write_status st;
            if (lost[u])
                continue;
            snprintf(user, sizeof user, "u%05d", u);
            snprintf(oldh, sizeof oldh, "h$%05d$%d", u, g - 1);
            snprintf(newh, sizeof newh, "h$%05d$%d", u, g);
            while ((st = kdf_write_hash(g_path, g_lock, user, oldh, newh, 5000, err,
                                        sizeof err)) == KDF_WRITE_LOCK_BUSY)
                busy++;
            if (st == KDF_WRITE_CAS_FAILED && is_adm_login(u)) {
                lost[u] = 1; /* the admin set it: the upgrade correctly yields */
                continue;
            }
            if (st != KDF_WRITE_OK) {
                fprintf(stderr, "worker %d: %s gen %d: %s (%s)\n", w, user, g,
                        kdf_write_status_str(st), err);
                return 3;
            }
        }
    }
    if (busy > 0)
        fprintf(stderr, "# worker %d: %lu lock-busy retries\n", w, busy);
    return 0;
}

static int
run_concurrency(int procs, int gens, int rounds)
{
    pid_t admin, *pids = calloc((size_t)procs, sizeof(pid_t));
    int st, bad = 0;
    unsigned long long t0 = kdf_pam_now_ms();
    struct lines L;

    gen_file();
    for (int w = 0; w < procs; w++) {
        pids[w] = fork();
        if (pids[w] < 0)
            die("fork");
        if (pids[w] == 0)
            _exit(worker_concurrency(w, procs, gens));
    }
    admin = fork();
    if (admin == 0) {
        for (int r = 0; r < rounds; r++) {
            admin_round(r);
            nap_ms(5 + (unsigned)(r * 7) % 11);
        }
        _exit(0);
    }
    for (int w = 0; w < procs; w++)
        if (waitpid(pids[w], &st, 0) != pids[w] || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "worker %d failed (status %#x)\n", w, st);
            bad++;
        }
    if (waitpid(admin, &st, 0) != admin || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "admin failed\n");
        bad++;
    }
    free(pids);

    /* The model: admin's last write for its users, generation GENS for the
     * other login users, the generated line for everyone else. */
    if (load_lines(&L) < 0)
        die("cannot read the result");
    if (L.n != NUSERS) {
        fprintf(stderr, "FAIL: %d lines, expected %d\n", L.n, NUSERS);
        bad++;
    }
    {
        int last_round[NUSERS];
        int lost = 0, reverted = 0, users[8];
        for (int i = 0; i < NUSERS; i++)
            last_round[i] = -1;
        for (int r = 0; r < rounds; r++) {
            int n = adm_round_users(r, users);
            for (int k = 0; k < n; k++)
                last_round[users[k]] = r;
        }
        for (int i = 0; i < L.n && i < NUSERS; i++) {
            char exp[128], rest[64];
            orig_rest(i, rest, sizeof rest);
            if (last_round[i] >= 0)
                snprintf(exp, sizeof exp, "u%05d:adm$%05d$%d:%d:0:99999:7:::", i, i,
                         last_round[i], 20000 + last_round[i]);
            else
                snprintf(exp, sizeof exp, "u%05d:h$%05d$%d%s", i, i, i < NLOGIN ? gens : 0, rest);
            if (strcmp(L.line[i], exp) != 0) {
                if (last_round[i] >= 0)
                    lost++;
                else
                    reverted++;
                if (lost + reverted <= 5)
                    fprintf(stderr, "FAIL line %d: '%s' expected '%s'\n", i, L.line[i], exp);
            }
        }
        printf("# concurrency: %d procs x %d users x %d gens, %d admin rounds, %.1f s: "
               "%d admin writes lost, %d upgrades lost/reverted, %d lines\n",
               procs, NLOGIN, gens, rounds, (double)(kdf_pam_now_ms() - t0) / 1000.0, lost, reverted,
               L.n);
        bad += lost + reverted;
    }
    free_lines(&L);
    return bad == 0 ? 0 : 1;
}

/* ---------------------------------------------------------------- test 15 */

/* One upgrade through the helper: KDF_WRITE_HOOK_FAILED only when it was
 * killed (the driver's doing), any other failure to run it ends the worker. */
static enum kdf_write_status
helper_write(const char *user, const char *oldh, const char *newh, char *err, size_t cap)
{
    struct kdf_update_req rq = {KDF_UPDATE_UPGRADE, g_path, NULL, user, oldh, newh, -1, 0, 0,
                                5000};
    int ws = 0;
    enum kdf_write_status st = kdf_update_run(g_helper, &rq, &ws, err, cap);

    if (st == KDF_WRITE_HOOK_FAILED && !(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL))
        _exit(7);
    return st;
}

static void __attribute__((noreturn))
worker_crash(int w, int workers)
{
    long gen[NLOGIN];
    struct lines L;
    char user[16], oldh[HASH_CAP], newh[HASH_CAP], err[256];

    /* Die with the driver: this loop only ends by SIGKILL, so a driver
     * that exits early (die(), a timeout) must not leave it running. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != g_driver)
        _exit(6);
    /* A restarted worker learns where its users are from the file. */
    if (load_lines(&L) < 0 || L.n != NUSERS)
        _exit(4);
    for (int u = w; u < NLOGIN; u += workers)
        if ((gen[u] = line_gen(L.line[u], u, NULL)) < 0)
            _exit(5);
    free_lines(&L);
    for (;;) {
        for (int u = w; u < NLOGIN; u += workers) {
            enum kdf_write_status st;
            snprintf(user, sizeof user, "u%05d", u);
            fmt_hash(oldh, sizeof oldh, u, gen[u]);
            fmt_hash(newh, sizeof newh, u, gen[u] + 1);
            do
                st = g_helper != NULL ? helper_write(user, oldh, newh, err, sizeof err)
                                      : kdf_write_hash(g_path, g_lock, user, oldh, newh, 5000,
                                                       err, sizeof err);
            while (st == KDF_WRITE_LOCK_BUSY);
            if (st == KDF_WRITE_HOOK_FAILED) {
                /* Its helper was killed: before or after its rename, the
                 * file says which. */
                long was = gen[u];
                if (load_lines(&L) < 0 || L.n != NUSERS ||
                    (gen[u] = line_gen(L.line[u], u, NULL)) < 0 ||
                    (gen[u] != was && gen[u] != was + 1))
                    _exit(5);
                free_lines(&L);
                __atomic_fetch_add(gen[u] == was ? &g_seen->before : &g_seen->after, 1,
                                   __ATOMIC_RELAXED);
                continue;
            }
            if (st != KDF_WRITE_OK) /* CAS failure here = someone reverted us */
                _exit(3);
            gen[u]++;
        }
    }
}

/* 1 if every temp in the directory is at most as permissive as the target
 * (mode bits and owner); *count gets how many there are. */
static int
temps_ok(const struct stat *target, int *count)
{
    DIR *d = opendir(g_dir);
    struct dirent *de;
    int ok = 1;

    *count = 0;
    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        char p[1000];
        struct stat st;
        if (strstr(de->d_name, ".kdfhash-") == NULL)
            continue;
        snprintf(p, sizeof p, "%s/%s", g_dir, de->d_name);
        if (lstat(p, &st) != 0)
            continue;
        ++*count;
        if (!S_ISREG(st.st_mode) || (st.st_mode & 0777 & ~(target->st_mode & 0777)) != 0 ||
            st.st_uid != target->st_uid) {
            fprintf(stderr, "FAIL: temp %s mode %o uid %ld\n", de->d_name,
                    (unsigned)st.st_mode & 0777, (long)st.st_uid);
            ok = 0;
        }
    }
    closedir(d);
    return ok;
}

/* A running helper whose parent is in parents[0..n) (a worker, or this
 * driver for an orphan): a random one's pid, or 0 when none runs. */
static pid_t
pick_helper(const pid_t *parents, int n)
{
    pid_t found[64];
    int k = 0;
    DIR *d = opendir("/proc");
    struct dirent *de;

    if (d == NULL)
        die("cannot read /proc");
    while ((de = readdir(d)) != NULL && k < 64) {
        char p[300], st[512], *c, state = 0;
        long ppid;
        FILE *f;
        size_t r;

        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        snprintf(p, sizeof p, "/proc/%s/stat", de->d_name);
        if ((f = fopen(p, "r")) == NULL)
            continue;
        r = fread(st, 1, sizeof st - 1, f);
        fclose(f);
        st[r] = '\0';
        /* "pid (comm) state ppid ...": comm is at most 15 bytes */
        if ((c = strstr(st, " (kdfhash-update")) == NULL || (c = strrchr(st, ')')) == NULL ||
            sscanf(c + 1, " %c %ld", &state, &ppid) != 2 || state == 'Z')
            continue;
        for (int i = 0; i < n; i++)
            if (parents[i] == (pid_t)ppid)
                found[k++] = (pid_t)atol(de->d_name);
    }
    closedir(d);
    return k == 0 ? 0 : found[rand() % k];
}

/* A SIGKILL to a running helper at a random moment of its life (it lives
 * about 3 ms): found, then killed 0-2 ms later; 0 when none was seen
 * running in 200 tries. */
static int
kill_a_helper(const pid_t *pids, int workers)
{
    nap_ms(1 + (unsigned)(rand() % 20));
    for (int tries = 0; tries < 200; tries++) {
        pid_t h = pick_helper(pids, workers);
        if (h > 0) {
            struct timespec ts = {0, (long)(rand() % 2000) * 1000L};
            nanosleep(&ts, NULL);
            (void)kill(h, SIGKILL);
            return 1;
        }
        nap_ms(1);
    }
    return 0;
}

/* After the workers are dead: their helpers, now this process's children
 * (PR_SET_CHILD_SUBREAPER), killed and reaped, and any that had not yet
 * become the helper left to end by itself. */
static void
reap_orphans(void)
{
    pid_t me = getpid(), h;
    pid_t r;

    while ((h = pick_helper(&me, 1)) > 0)
        (void)kill(h, SIGKILL);
    while ((r = waitpid(-1, NULL, 0)) > 0 || (r < 0 && errno == EINTR))
        ;
}

static int
run_crash(int trials, int workers, int kills)
{
    long prev[NUSERS] = {0};
    long probe_gen = 0;
    pid_t *pids = calloc((size_t)workers, sizeof(pid_t));
    int bad = 0, temps_total = 0, killed = 0, missed = 0;
    unsigned long long t0 = kdf_pam_now_ms(), worst_probe = 0;
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();

    if (getenv("KDF_TEST_SEED") != NULL)
        seed = (unsigned)strtoul(getenv("KDF_TEST_SEED"), NULL, 10);
    printf("# crash seed %u\n", seed);
    g_driver = getpid();
    if (g_helper != NULL && prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        die("PR_SET_CHILD_SUBREAPER");
    g_seen = mmap(NULL, sizeof *g_seen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
                  0);
    if (g_seen == MAP_FAILED)
        die("mmap");
    srand(seed);
    gen_file();
    for (int t = 0; t < trials && bad == 0; t++) {
        struct lines L;
        struct stat tst;
        int ntemps = 0;
        char oldh[HASH_CAP], newh[HASH_CAP], err[256];
        unsigned long long p0, pdt;
        enum kdf_write_status st;

        for (int w = 0; w < workers; w++)
            if ((pids[w] = fork()) == 0)
                worker_crash(w, workers);
        for (int k = 0; k < kills && g_helper != NULL; k++) {
            /* A worker killed here would leave its helper writing behind
             * the worker's successor: the helper is what dies. */
            if (kill_a_helper(pids, workers))
                killed++;
            else
                missed++;
        }
        for (int k = 0; k < kills && g_helper == NULL; k++) {
            int w = rand() % workers, status;
            nap_ms(5 + (unsigned)(rand() % 46));
            kill(pids[w], SIGKILL);
            if (waitpid(pids[w], &status, 0) != pids[w] || !WIFSIGNALED(status)) {
                fprintf(stderr, "FAIL: worker %d ended by itself (status %#x)\n", w, status);
                bad++;
            }
            killed++;
            if ((pids[w] = fork()) == 0)
                worker_crash(w, workers);
        }
        nap_ms(5 + (unsigned)(rand() % 46));
        for (int w = 0; w < workers; w++) {
            int status;
            kill(pids[w], SIGKILL);
            if (waitpid(pids[w], &status, 0) != pids[w] || !WIFSIGNALED(status)) {
                fprintf(stderr, "FAIL: worker %d ended by itself (status %#x)\n", w, status);
                bad++;
            }
            killed += g_helper == NULL;
        }
        if (g_helper != NULL)
            reap_orphans();

        /* every line is that user's line at a generation >= last trial's */
        if (stat(g_path, &tst) != 0 || load_lines(&L) < 0)
            die("cannot read the file after a trial");
        if (L.n != NUSERS) {
            fprintf(stderr, "FAIL trial %d: %d lines\n", t, L.n);
            bad++;
        }
        for (int i = 0; i < L.n && i < NUSERS; i++) {
            char rest[64];
            long g;
            orig_rest(i, rest, sizeof rest);
            g = line_gen(L.line[i], i, rest);
            if (g < prev[i] || (i >= NLOGIN && i != NUSERS - 1 && g != 0)) {
                fprintf(stderr, "FAIL trial %d line %d: '%.60s' (gen before %ld)\n", t, i,
                        L.line[i], prev[i]);
                bad++;
                break;
            }
            prev[i] = g;
        }
        free_lines(&L);
        if ((tst.st_mode & 0777) != TARGET_MODE || !temps_ok(&tst, &ntemps))
            bad++;
        temps_total += ntemps;

        /* the lock is free at once and the next upgrade sweeps the temps */
        fmt_hash(oldh, sizeof oldh, NUSERS - 1, probe_gen);
        fmt_hash(newh, sizeof newh, NUSERS - 1, probe_gen + 1);
        p0 = kdf_pam_now_ms();
        st = kdf_write_hash(g_path, g_lock, "u09999", oldh, newh, 1000, err, sizeof err);
        pdt = kdf_pam_now_ms() - p0;
        worst_probe = pdt > worst_probe ? pdt : worst_probe;
        if (st != KDF_WRITE_OK || pdt >= 1000) {
            fprintf(stderr, "FAIL trial %d: probe upgrade %s (%s) in %llu ms\n", t,
                    kdf_write_status_str(st), err, pdt);
            bad++;
        }
        probe_gen++;
        prev[NUSERS - 1] = probe_gen;
        if (!temps_ok(&tst, &ntemps) || ntemps != 0) {
            fprintf(stderr, "FAIL trial %d: %d temps left after the next upgrade\n", t, ntemps);
            bad++;
        }
    }
    /* A helper is nearly always running: a kill that found none in 200
     * tries is rare, and many would mean the trials killed nothing. */
    if (g_helper != NULL && missed > trials * kills / 10) {
        fprintf(stderr, "FAIL: %d of %d helper kills found no helper running\n", missed,
                trials * kills);
        bad++;
    }
    if (g_helper != NULL) {
        /* Some kills land on a helper that has just ended; most must not. */
        printf("# helpers seen killed: %ld before their rename, %ld after it\n",
               g_seen->before, g_seen->after);
        if (g_seen->before + g_seen->after < trials * kills / 4) {
            fprintf(stderr, "FAIL: only %ld of %d kills reached a running helper\n",
                    g_seen->before + g_seen->after, trials * kills);
            bad++;
        }
    }
    {
        long sum = 0;
        for (int i = 0; i < NLOGIN; i++)
            sum += prev[i];
        printf("# crash: %d trials, %d workers, %d SIGKILLs%s, %ld upgrades landed, "
               "%d stale temps seen (all swept), worst lock probe %llu ms, %.1f s: %s\n",
               trials, workers, killed, g_helper != NULL ? " of the helper" : "", sum,
               temps_total, worst_probe,
               (double)(kdf_pam_now_ms() - t0) / 1000.0, bad == 0 ? "0 lost or corrupted" : "FAILED");
    }
    free(pids);
    return bad == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: upgrade_torture concurrency DIR PROCS GENS ROUNDS\n"
                        "       upgrade_torture crash DIR TRIALS WORKERS KILLS\n"
                        "       upgrade_torture crash-helper DIR TRIALS WORKERS KILLS HELPER\n");
        return 2;
    }
    snprintf(g_dir, sizeof g_dir, "%s", argv[2]);
    snprintf(g_path, sizeof g_path, "%s/shadow", g_dir);
    snprintf(g_lock, sizeof g_lock, "%s/shadow.lock", g_dir);
    if (strcmp(argv[1], "concurrency") == 0 && argc == 6)
        return run_concurrency(atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    if (strcmp(argv[1], "crash") == 0 && argc == 6)
        return run_crash(atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    if (strcmp(argv[1], "crash-helper") == 0 && argc == 7 && argv[6][0] == '/') {
        g_helper = argv[6];
        g_pfx = "$2b$04$AAAAAAAAAAAAAAAAAAAAA.";
        g_sep = "";
        g_gw = 20;
        g_sfx = "AAAAA.";
        return run_crash(atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    }
    fprintf(stderr, "upgrade_torture: bad arguments\n");
    return 2;
}
