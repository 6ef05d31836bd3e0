/* Parsers for /proc texts, and one reader that fills a reused buffer.
 * See procfs.h. Every parser stays within the given length and accepts
 * only what the kernel writes. */
#include "loadgen/watching/procfs.h"
#include "loadgen/core/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads an unsigned decimal at *p (after spaces); false if none. */
static bool scan_u64(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s >= end || *s < '0' || *s > '9') return false;
    uint64_t v = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s - '0');
        s++;
    }
    *p = s;
    *out = v;
    return true;
}

/* Skips one space-separated field (possibly signed) at *p. */
static bool skip_field(const char **p, const char *end)
{
    const char *s = *p;
    while (s < end && *s == ' ')
        s++;
    if (s >= end || *s == '\n') return false;
    while (s < end && *s != ' ' && *s != '\n')
        s++;
    *p = s;
    return true;
}

/* A signed field kept as unsigned: negative values (never seen for times)
 * read as zero. */
static bool scan_field_u64(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    while (s < end && *s == ' ')
        s++;
    if (s < end && *s == '-') {
        *out = 0;
        *p = s;
        return skip_field(p, end);
    }
    *p = s;
    return scan_u64(p, end, out);
}

int lg_procfs_parse_stat(const char *text, size_t len, struct lg_proc_stat *st)
{
    const char *end = text + len;
    const char *p = text;
    uint64_t pid;
    if (!scan_u64(&p, end, &pid) || pid == 0 || pid > 0x7fffffff) return -1;
    const char *open = memchr(p, '(', (size_t)(end - p));
    if (!open) return -1;
    const char *close = NULL;
    for (const char *q = end; q > open + 1; q--)
        if (q[-1] == ')') {
            close = q - 1;
            break;
        }
    if (!close) return -1;
    size_t n = (size_t)(close - open - 1);
    if (n >= LG_COMM_MAX) n = LG_COMM_MAX - 1;
    memset(st, 0, sizeof(*st));
    memcpy(st->comm, open + 1, n);
    st->comm[n] = '\0';
    st->pid = (int)pid;
    p = close + 1;
    while (p < end && *p == ' ')
        p++;
    if (p >= end || *p == ' ' || *p == '\n') return -1;
    st->state = *p++;
    /* fields are numbered as in proc(5): state is 3, ppid 4, ... */
    uint64_t v;
    for (int field = 4; field <= 24; field++) {
        switch (field) {
        case 4:
            if (!scan_u64(&p, end, &v) || v > 0x7fffffff) return -1;
            st->ppid = (int)v;
            break;
        case 14:
            if (!scan_u64(&p, end, &st->utime)) return -1;
            break;
        case 15:
            if (!scan_u64(&p, end, &st->stime)) return -1;
            break;
        case 16:
            if (!scan_field_u64(&p, end, &st->cutime)) return -1;
            break;
        case 17:
            if (!scan_field_u64(&p, end, &st->cstime)) return -1;
            break;
        case 22:
            if (!scan_u64(&p, end, &st->starttime)) return -1;
            break;
        case 24:
            if (!scan_field_u64(&p, end, &st->rss_pages)) return -1;
            break;
        default:
            if (!skip_field(&p, end)) return -1;
        }
    }
    /* the last CPU comes later; lines cut short (old kernels, fixtures) lack it */
    st->processor = -1;
    for (int field = 25; field < 39; field++)
        if (!skip_field(&p, end)) return 0;
    if (scan_u64(&p, end, &v) && v < 0x7fffffff) st->processor = (int)v;
    return 0;
}

int lg_procfs_parse_rollup(const char *text, size_t len, struct lg_proc_rollup *r)
{
    static const struct {
        const char *key;
        unsigned bit;
    } keys[] = {{"Rss:", 1}, {"Pss:", 2}, {"Private_Clean:", 4}, {"Private_Dirty:", 8}};
    const char *end = text + len;
    unsigned found = 0;
    uint64_t kb[4] = {0};
    for (const char *line = text; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *eol = nl ? nl : end;
        for (unsigned k = 0; k < 4; k++) {
            size_t kl = strlen(keys[k].key);
            if ((size_t)(eol - line) > kl && memcmp(line, keys[k].key, kl) == 0) {
                const char *p = line + kl;
                uint64_t v;
                if (scan_u64(&p, eol, &v)) {
                    kb[k] = v;
                    found |= keys[k].bit;
                }
                break;
            }
        }
        line = eol + 1;
    }
    if (found != 15) return -1;
    r->rss = kb[0] * 1024;
    r->pss = kb[1] * 1024;
    r->uss = (kb[2] + kb[3]) * 1024;
    return 0;
}

int lg_procfs_parse_statm(const char *text, size_t len, uint64_t *resident_pages)
{
    const char *p = text, *end = text + len;
    uint64_t size;
    if (!scan_u64(&p, end, &size) || !scan_u64(&p, end, resident_pages)) return -1;
    return 0;
}

int lg_procfs_parse_schedstat(const char *text, size_t len, uint64_t *run_ns, uint64_t *wait_ns)
{
    const char *p = text, *end = text + len;
    if (!scan_u64(&p, end, run_ns) || !scan_u64(&p, end, wait_ns)) return -1;
    return 0;
}

int lg_procfs_parse_pid(const char *text, size_t len, int *pid)
{
    const char *p = text, *end = text + len;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    uint64_t v;
    if (!scan_u64(&p, end, &v) || v == 0 || v > 0x7fffffff) return -1;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    if (p != end && *p != '\0') return -1;
    *pid = (int)v;
    return 0;
}

static bool have_inode(const uint64_t *inodes, size_t n, uint64_t ino)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (inodes[mid] == ino) return true;
        if (inodes[mid] < ino)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

uint64_t lg_procfs_udp_drops(const char *text, size_t len, const uint64_t *inodes, size_t n)
{
    /* sl local rem st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops */
    const char *end = text + len;
    uint64_t total = 0;
    for (const char *line = text; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *eol = nl ? nl : end;
        const char *p = line;
        uint64_t ino = 0, drops = 0;
        bool ok = true;
        for (int field = 0; field < 13 && ok; field++) {
            if (field == 9)
                ok = scan_u64(&p, eol, &ino);
            else if (field == 12)
                ok = scan_u64(&p, eol, &drops);
            else
                ok = skip_field(&p, eol);
        }
        if (ok && have_inode(inodes, n, ino)) total += drops;
        line = eol + 1;
    }
    return total;
}

void lg_procfs_key_component(const char *comm, char out[LG_COMM_MAX])
{
    size_t i = 0;
    for (; comm[i] && i < LG_COMM_MAX - 1; i++) {
        char ch = comm[i];
        bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
        out[i] = keep ? ch : '_';
    }
    if (i == 0) out[i++] = '_';
    out[i] = '\0';
}

long lg_procfs_read(int dirfd, const char *path, char **buf, size_t *cap)
{
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t len = 0;
    for (;;) {
        if (!lg_grow(buf, cap, len + 2, 1, 4096)) {
            close(fd);
            errno = ENOMEM;
            return -1;
        }
        ssize_t n = read(fd, *buf + len, *cap - len - 1);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        if (n == 0) break;
        len += (size_t)n;
    }
    close(fd);
    (*buf)[len] = '\0';
    return (long)len;
}
