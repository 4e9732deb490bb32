/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_blocklist.c - the compromised-password list at its size: generate
 * N passwords (default 10 million), build the file with the CLI (`kdfhash
 * blocklist build`: entries per second, the builder's peak resident
 * memory), then with the reader the module links (accounts/blocklist.c):
 * bytes per entry, the open with the checksum over the whole table (info,
 * check-conf) and the PAM module's open (header, owner and mode) warm and
 * cold, a lookup warm and cold (the file's pages dropped with
 * posix_fadvise(POSIX_FADV_DONTNEED) first), what a login pays for the
 * check (open, one lookup, close), and the process's resident memory
 * after a lookup.
 *
 *   bench_blocklist [-n N] [-k KDFHASH] [-d DIR]
 *
 * KDFHASH defaults to cli/kdfhash (make bench runs from the build tree);
 * DIR, where the source and the list are written and removed, to ".".
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"
#include "blocklist.h"

#define REPS 15

static void
die(const char *what)
{
    fprintf(stderr, "bench_blocklist: %s\n", what);
    exit(1);
}

/* "kB" value of a /proc/self/status line, e.g. "VmRSS". */
static long
status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, key, n) == 0 && line[n] == ':')
            v = strtol(line + n + 1, NULL, 10);
    fclose(f);
    return v;
}

static void
gen_source(const char *path, unsigned long n)
{
    FILE *f = fopen(path, "w");

    if (f == NULL)
        die("cannot write the source");
    for (unsigned long i = 0; i < n; i++)
        fprintf(f, "pw-%lu-%08lx\n", i, (i * 2654435761ul) & 0xfffffffful);
    if (fclose(f) != 0)
        die("cannot write the source");
}

/* Run kdfhash blocklist build; its wall time, and its peak RSS in *maxrss. */
static double
run_build(const char *kdf, const char *src, const char *out, long *maxrss)
{
    struct rusage ru;
    double t0 = bench_now();
    int st;
    pid_t pid = fork();

    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        execl(kdf, kdf, "blocklist", "build", "-o", out, src, (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        die("kdfhash blocklist build failed");
    *maxrss = ru.ru_maxrss;
    return bench_now() - t0;
}

static void
drop_cache(const char *path)
{
    int fd = open(path, O_RDONLY);

    if (fd < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
        die("cannot drop the file's pages");
    close(fd);
}

static double
median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], bench_cmp_double);
    return v[n / 2];
}

/* Median seconds of an open with flags (+ close), warm or after dropping
 * the pages; with pw, of what a login pays: open, the lookup of pw, close. */
static double
time_open(const char *path, unsigned flags, const char *pw, int cold)
{
    struct kdf_blocklist bl;
    char err[256];
    double t[REPS];

    for (int i = 0; i < REPS; i++) {
        if (cold)
            drop_cache(path);
        double t0 = bench_now();
        if (kdf_blocklist_open(&bl, path, flags, err, sizeof err) != 0)
            die(err);
        if (pw != NULL && kdf_blocklist_has_password(&bl, pw, strlen(pw)) < 0)
            die("lookup");
        kdf_blocklist_close(&bl);
        t[i] = bench_now() - t0;
    }
    return median(t, REPS);
}

/* Pages of the file in the page cache (mincore): after a cold lookup, the
 * pages it read. */
static unsigned long
cached_pages(const struct kdf_blocklist *bl)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = (bl->map_len + pg - 1) / pg;
    unsigned char *v = malloc(n);
    unsigned long c = 0;

    if (v == NULL || mincore((void *)bl->map, bl->map_len, v) != 0)
        die("mincore");
    for (size_t i = 0; i < n; i++)
        c += v[i] & 1;
    free(v);
    return c;
}

static double g_cold_pages[REPS]; /* the pages each cold lookup read */

/* Median seconds of one lookup after dropping the pages (cold) or mean
 * seconds of many (warm); half the passwords listed. */
static double
time_lookup(const struct kdf_blocklist *bl, const char *path, unsigned long n, int cold)
{
    char pw[64];
    double t[REPS], t0;
    unsigned long hits = 0, m = 200000;

    if (cold) {
        for (int i = 0; i < REPS; i++) {
            snprintf(pw, sizeof pw, "pw-%lu-%08lx", (unsigned long)i * 7919 % n,
                     ((unsigned long)i * 7919 % n * 2654435761ul) & 0xfffffffful);
            /* Unmap our pages of it first: mapped pages stay cached. */
            (void)madvise((void *)bl->map, bl->map_len, MADV_DONTNEED);
            drop_cache(path);
            t0 = bench_now();
            hits += (unsigned long)kdf_blocklist_has_password(bl, pw, strlen(pw));
            t[i] = bench_now() - t0;
            g_cold_pages[i] = (double)cached_pages(bl);
        }
        if (hits != REPS)
            die("a listed password was not found");
        return median(t, REPS);
    }
    t0 = bench_now();
    for (unsigned long i = 0; i < m; i++) {
        unsigned long j = i * 104729 % n;
        snprintf(pw, sizeof pw, i % 2 ? "pw-%lu-%08lx" : "no-%lu-%08lx", j,
                 (j * 2654435761ul) & 0xfffffffful);
        hits += (unsigned long)kdf_blocklist_has_password(bl, pw, strlen(pw));
    }
    if (hits != m / 2)
        die("listed and unlisted passwords miscounted");
    return (bench_now() - t0) / (double)m;
}

static void
report_reader(const char *out, unsigned long n)
{
    struct kdf_blocklist bl;
    char err[256];
    long rss0 = status_kib("VmRSS"), rss, rssfile;
    double warm_open, cold_open, first, pages;
    const unsigned login = KDF_BLOCKLIST_TRUSTED;

    if (kdf_blocklist_open(&bl, out, login, err, sizeof err) != 0 ||
        kdf_blocklist_has_password(&bl, "pw-1-9e3779b1", 13) != 1)
        die("open, or the lookup of a listed password");
    rss = status_kib("VmRSS");
    rssfile = status_kib("RssFile");
    printf("resident after open and one lookup: VmRSS %ld KiB (%+ld KiB), RssFile %ld KiB\n",
           rss, rss - rss0, rssfile);
    warm_open = time_open(out, KDF_BLOCKLIST_VERIFY, NULL, 0);
    cold_open = time_open(out, KDF_BLOCKLIST_VERIFY, NULL, 1);
    printf("file: %zu bytes, %.2f bytes per entry (%llu entries)\n", bl.map_len,
           (double)bl.map_len / (double)bl.count, (unsigned long long)bl.count);
    printf("open with the checksum of the whole table (info, check-conf): warm %.1f ms, "
           "cold %.1f ms\n",
           warm_open * 1e3, cold_open * 1e3);
    printf("open as the PAM module does (header, owner and mode): warm %.1f us, cold %.1f us\n",
           time_open(out, login, NULL, 0) * 1e6, time_open(out, login, NULL, 1) * 1e6);
    printf("what a login pays (open, one lookup, close): warm %.1f us, cold %.1f us\n",
           time_open(out, login, "no-1-9e3779b1", 0) * 1e6,
           time_open(out, login, "no-1-9e3779b1", 1) * 1e6);
    /* The first pass maps the pages it touches (minor faults), the second
     * finds them mapped. */
    first = time_lookup(&bl, out, n, 0);
    printf("lookup (200000, half listed): warm %.2f us first pass, %.2f us second\n",
           first * 1e6, time_lookup(&bl, out, n, 0) * 1e6);
    first = time_lookup(&bl, out, n, 1);
    pages = median(g_cold_pages, REPS); /* sorts them: the last is the most */
    printf("lookup: cold %.1f us (median of %d), %.0f pages of the file read (median), "
           "%.0f at most\n",
           first * 1e6, REPS, pages, g_cold_pages[REPS - 1]);
    printf("resident at the end (the cold lookups unmapped the pages): VmRSS %ld KiB\n",
           status_kib("VmRSS"));
    kdf_blocklist_close(&bl);
}

int
main(int argc, char **argv)
{
    const char *kdf = "cli/kdfhash", *dir = ".";
    unsigned long n = 10000000;
    char src[4096], out[4096];
    long maxrss = 0;
    double t;
    int c;

    while ((c = getopt(argc, argv, "n:k:d:")) != -1) {
        if (c == 'n')
            n = strtoul(optarg, NULL, 10);
        else if (c == 'k')
            kdf = optarg;
        else if (c == 'd')
            dir = optarg;
        else
            die("usage: bench_blocklist [-n N] [-k KDFHASH] [-d DIR]");
    }
    if (n == 0)
        die("-n: at least 1");
    snprintf(src, sizeof src, "%s/bench-blocklist.src", dir);
    snprintf(out, sizeof out, "%s/bench-blocklist.blk", dir);
    t = bench_now();
    gen_source(src, n);
    printf("blocklist: %lu generated passwords (%.1f s to write them)\n", n, bench_now() - t);
    t = run_build(kdf, src, out, &maxrss);
    printf("build: %.2f s, %.0f entries/s, builder peak RSS %ld KiB\n", t, (double)n / t,
           maxrss);
    unlink(src);
    report_reader(out, n);
    unlink(out);
    return 0;
}
