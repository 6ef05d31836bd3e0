/* The machine's description, read from /proc and /sys. See machine.h. */
#include "loadgen/preflight/machine.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Reads a small file into buf (NUL-terminated); its length, or -1. */
static long slurp(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = 0;
    while (n + 1 < len) {
        ssize_t r = read(fd, buf + n, len - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    return (long)n;
}

/* The first unsigned number in a small file; `fallback` when there is none. */
static uint64_t read_u64(const char *path, uint64_t fallback)
{
    char buf[64];
    if (slurp(path, buf, sizeof(buf)) <= 0 || !isdigit((unsigned char)buf[0])) return fallback;
    return strtoull(buf, NULL, 10);
}

static int read_int(const char *path)
{
    char buf[32];
    if (slurp(path, buf, sizeof(buf)) <= 0 || !isdigit((unsigned char)buf[0])) return -1;
    return atoi(buf);
}

int lg_machine_parse_cpulist(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    const char *p = text;
    while (*p && *p != '\n') {
        char *end;
        if (!isdigit((unsigned char)*p)) return -1;
        unsigned long a = strtoul(p, &end, 10), b = a;
        if (*end == '-') {
            const char *q = end + 1;
            if (!isdigit((unsigned char)*q)) return -1;
            b = strtoul(q, &end, 10);
        }
        if (b < a || b >= CPU_SETSIZE) return -1;
        for (unsigned long c = a; c <= b; c++)
            CPU_SET((int)c, set);
        p = end;
        if (*p == ',')
            p++;
        else if (*p && *p != '\n')
            return -1;
    }
    return 0;
}

void lg_machine_format_cpulist(const cpu_set_t *set, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set)) continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        char item[32];
        int n = last > c ? snprintf(item, sizeof(item), "%s%d-%d", used ? "," : "", c, last)
                         : snprintf(item, sizeof(item), "%s%d", used ? "," : "", c);
        if (used + (size_t)n + 4 > len) {
            snprintf(buf + used, len - used, "...");
            return;
        }
        memcpy(buf + used, item, (size_t)n + 1);
        used += (size_t)n;
        c = last;
    }
}

/* The value of "Key: value" lines: the number after the key, or -1. */
static int64_t meminfo_kb(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *line = text; *line;) {
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
            const char *p = line + kl + 1;
            while (*p == ' ')
                p++;
            if (!isdigit((unsigned char)*p)) return -1;
            return (int64_t)strtoull(p, NULL, 10);
        }
        const char *nl = strchr(line, '\n');
        if (!nl) break;
        line = nl + 1;
    }
    return -1;
}

int lg_machine_parse_meminfo(const char *text, uint64_t *total, uint64_t *available)
{
    int64_t t = meminfo_kb(text, "MemTotal"), a = meminfo_kb(text, "MemAvailable");
    if (t < 0 || a < 0) return -1;
    *total = (uint64_t)t * 1024;
    *available = (uint64_t)a * 1024;
    return 0;
}

int lg_machine_parse_cpu_model(const char *text, char *out, size_t len)
{
    static const char *const keys[] = {"model name", "Hardware", "Processor", "cpu model"};
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        size_t kl = strlen(keys[k]);
        for (const char *line = text; line && *line;) {
            const char *nl = strchr(line, '\n');
            const char *eol = nl ? nl : line + strlen(line);
            if (strncmp(line, keys[k], kl) == 0) {
                const char *p = line + kl;
                while (p < eol && (*p == ' ' || *p == '\t'))
                    p++;
                if (p < eol && *p == ':') {
                    p++;
                    while (p < eol && (*p == ' ' || *p == '\t'))
                        p++;
                    const char *e = eol;
                    while (e > p && isspace((unsigned char)e[-1]))
                        e--;
                    if (e > p) {
                        size_t n = (size_t)(e - p) < len - 1 ? (size_t)(e - p) : len - 1;
                        memcpy(out, p, n);
                        out[n] = '\0';
                        return 0;
                    }
                }
            }
            line = nl ? nl + 1 : NULL;
        }
    }
    return -1;
}

unsigned lg_machine_reserved_in_range(const char *text, unsigned lo, unsigned hi)
{
    unsigned n = 0;
    const char *p = text;
    while (isdigit((unsigned char)*p)) {
        char *end;
        unsigned long a = strtoul(p, &end, 10), b = a;
        if (*end == '-') b = strtoul(end + 1, &end, 10);
        for (unsigned long x = a < lo ? lo : a; x <= b && x <= hi; x++)
            n++;
        p = end;
        if (*p != ',') break;
        p++;
    }
    return n;
}

int lg_machine_parse_cgroup(const char *text, char *path, size_t len, bool *v1)
{
    const char *v2 = NULL;
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t ll = nl ? (size_t)(nl - line) : strlen(line);
        /* hierarchy-id:controllers:path */
        const char *c1 = memchr(line, ':', ll);
        const char *c2 = c1 ? memchr(c1 + 1, ':', ll - (size_t)(c1 + 1 - line)) : NULL;
        if (c2) {
            size_t cl = (size_t)(c2 - c1 - 1);
            const char *ctl = c1 + 1;
            bool memory = false;
            for (const char *q = ctl; q < c2;) {
                const char *comma = memchr(q, ',', (size_t)(c2 - q));
                const char *qe = comma ? comma : c2;
                if (qe - q == 6 && memcmp(q, "memory", 6) == 0) memory = true;
                q = qe + 1;
            }
            size_t pl = ll - (size_t)(c2 + 1 - line);
            if (memory || (cl == 0 && !v2)) {
                if (pl >= len) return -1;
                memcpy(path, c2 + 1, pl);
                path[pl] = '\0';
                if (memory) {
                    *v1 = true;
                    return 0;
                }
                v2 = path;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!v2) return -1;
    *v1 = false;
    return 0;
}

/* The memory cgroup's limit and usage, when it has a limit. */
static void read_cgroup(struct lg_machine *m)
{
    char text[4096], rel[1024], path[1200];
    bool v1;
    if (slurp("/proc/self/cgroup", text, sizeof(text)) <= 0 ||
        lg_machine_parse_cgroup(text, rel, sizeof(rel), &v1) < 0)
        return;
    uint64_t limit, usage;
    if (v1) {
        snprintf(path, sizeof(path), "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", rel);
        limit = read_u64(path, 0);
        snprintf(path, sizeof(path), "/sys/fs/cgroup/memory%s/memory.usage_in_bytes", rel);
        usage = read_u64(path, 0);
    } else {
        /* "max" reads as no number: no limit */
        snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max", rel);
        limit = read_u64(path, 0);
        snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current", rel);
        usage = read_u64(path, 0);
    }
    /* v1 writes "no limit" as a number near 2^63 */
    if (limit == 0 || limit >= (1ull << 62)) return;
    m->cgroup_limit = limit;
    m->cgroup_usage = usage;
}

uint64_t lg_machine_memory_left(const struct lg_machine *m)
{
    uint64_t left = m->mem_available;
    if (m->cgroup_limit) {
        uint64_t in_group =
            m->cgroup_limit > m->cgroup_usage ? m->cgroup_limit - m->cgroup_usage : 0;
        if (in_group < left) left = in_group;
    }
    return left;
}

/* Physical cores (distinct sibling sets among online CPUs) and the SMT
 * siblings among the allowed CPUs. */
static void read_topology(struct lg_machine *m, const cpu_set_t *online)
{
    enum { MAX_CORES = 1024 };
    cpu_set_t *cores = calloc(MAX_CORES, sizeof(*cores));
    if (!cores) return;
    unsigned n = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, online)) continue;
        char path[128], text[256];
        cpu_set_t sib;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
                 cpu);
        if (slurp(path, text, sizeof(text)) <= 0 || lg_machine_parse_cpulist(text, &sib) < 0)
            continue;
        CPU_AND(&sib, &sib, online);
        bool seen = false;
        for (unsigned i = 0; i < n && !seen; i++)
            seen = CPU_EQUAL(&cores[i], &sib);
        if (!seen && n < MAX_CORES) cores[n++] = sib;
        if (CPU_ISSET(cpu, &m->allowed)) {
            cpu_set_t mine;
            CPU_AND(&mine, &sib, &m->allowed);
            if (CPU_COUNT(&mine) > 1) {
                m->allowed_siblings++;
                if (m->sibling_a < 0) {
                    m->sibling_a = cpu;
                    for (int o = 0; o < CPU_SETSIZE; o++)
                        if (o != cpu && CPU_ISSET(o, &mine)) {
                            m->sibling_b = o;
                            break;
                        }
                }
            }
        }
    }
    m->physical_cores = n;
    free(cores);
}

/* Scaling governor of the allowed CPUs, and boost. */
static void read_frequency(struct lg_machine *m)
{
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &m->allowed)) continue;
        char path[128], text[64];
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
        if (slurp(path, text, sizeof(text)) <= 0) continue;
        text[strcspn(text, "\n")] = '\0';
        if (!m->governor[0])
            snprintf(m->governor, sizeof(m->governor), "%.31s", text);
        else if (strcmp(m->governor, text) != 0)
            m->governors_differ = true;
    }
    int boost = read_int("/sys/devices/system/cpu/cpufreq/boost");
    if (boost < 0) {
        int no_turbo = read_int("/sys/devices/system/cpu/intel_pstate/no_turbo");
        if (no_turbo >= 0) boost = !no_turbo;
    }
    m->boost = boost < 0 ? -1 : boost != 0;
}

static void read_cpus(struct lg_machine *m)
{
    char text[16384]; /* the first CPU's block of /proc/cpuinfo, flags and all */
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    m->logical_cpus = n > 0 ? (unsigned)n : 0;
    if (slurp("/proc/cpuinfo", text, sizeof(text)) <= 0 ||
        lg_machine_parse_cpu_model(text, m->cpu_model, sizeof(m->cpu_model)) < 0) {
        struct utsname u;
        snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown (%s)",
                 uname(&u) == 0 ? u.machine : "?");
    }
    if (sched_getaffinity(0, sizeof(m->allowed), &m->allowed) != 0) CPU_ZERO(&m->allowed);
    m->n_allowed = (unsigned)CPU_COUNT(&m->allowed);
    cpu_set_t online;
    if (slurp("/sys/devices/system/cpu/online", text, sizeof(text)) <= 0 ||
        lg_machine_parse_cpulist(text, &online) < 0) {
        CPU_ZERO(&online);
        for (unsigned c = 0; c < m->logical_cpus && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &online);
    }
    read_topology(m, &online);
    int smt = read_int("/sys/devices/system/cpu/smt/active");
    m->smt = smt >= 0 ? smt != 0 : m->physical_cores > 0 ? m->logical_cpus > m->physical_cores : -1;
    read_frequency(m);
}

static void read_net(struct lg_machine *m)
{
    char text[4096];
    if (slurp("/proc/sys/net/ipv4/ip_local_port_range", text, sizeof(text)) > 0) {
        unsigned lo, hi;
        if (sscanf(text, "%u %u", &lo, &hi) == 2 && lo <= hi) {
            m->port_lo = lo;
            m->port_hi = hi;
        }
    }
    if (m->port_hi && slurp("/proc/sys/net/ipv4/ip_local_reserved_ports", text, sizeof(text)) > 0)
        m->ports_reserved = lg_machine_reserved_in_range(text, m->port_lo, m->port_hi);
    m->tw_reuse = read_int("/proc/sys/net/ipv4/tcp_tw_reuse");
    m->tcp_timestamps = read_int("/proc/sys/net/ipv4/tcp_timestamps");
    if (access("/proc/sys/net/netfilter/nf_conntrack_max", R_OK) == 0) {
        m->conntrack = true;
        m->conntrack_max = read_u64("/proc/sys/net/netfilter/nf_conntrack_max", 0);
        m->conntrack_count = read_u64("/proc/sys/net/netfilter/nf_conntrack_count", 0);
        m->conntrack_tw_s =
            (unsigned)read_u64("/proc/sys/net/netfilter/nf_conntrack_tcp_timeout_time_wait", 120);
        m->conntrack_udp_s =
            (unsigned)read_u64("/proc/sys/net/netfilter/nf_conntrack_udp_timeout", 30);
    }
    m->rmem_default = read_u64("/proc/sys/net/core/rmem_default", 0);
    m->rmem_max = read_u64("/proc/sys/net/core/rmem_max", 0);
}

void lg_machine_read(struct lg_machine *m)
{
    memset(m, 0, sizeof(*m));
    m->smt = m->boost = -1;
    m->sibling_a = m->sibling_b = -1;
    m->tw_reuse = m->tcp_timestamps = -1;
    m->loadavg1 = -1;
    if (gethostname(m->hostname, sizeof(m->hostname) - 1) != 0) m->hostname[0] = '\0';
    struct utsname u;
    if (uname(&u) == 0) snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
    read_cpus(m);
    char text[4096];
    if (slurp("/proc/meminfo", text, sizeof(text)) > 0)
        lg_machine_parse_meminfo(text, &m->mem_total, &m->mem_available);
    read_cgroup(m);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        m->fd_soft = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
        m->fd_hard = rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_max;
    }
    read_net(m);
    if (slurp("/proc/loadavg", text, sizeof(text)) > 0) m->loadavg1 = strtod(text, NULL);
}
