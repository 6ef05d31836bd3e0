/* cmd_merge.c — `loadstats merge [--shards] A B ...`: one collector document
 * from the documents of generators that ran the same levels at the same time.
 * The arithmetic lives in merge.c and the shard-set rules in shardset.c; this
 * file finds the descriptors, reports what it finds, and writes the result. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stats/cmd/cmd.h"
#include "stats/read/doccut.h"
#include "stats/runs/machines.h"
#include "stats/read/metrickind.h"
#include "stats/runs/merge.h"
#include "stats/write/numfmt.h"
#include "stats/runs/runmeta.h"
#include "stats/runs/samerun.h"
#include "stats/runs/shardset.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/* Exit status of a merge that --allow-partial let through an incomplete set. */
#define EXIT_PARTIAL 3

struct merge_settings {
    const char *output, *meta_output;
    bool shards, allow_partial, allow_duplicate;
    struct stats_shard_rules rules;
    struct stats_merge_options merge;
};

enum {
    OPT_SHARDS = CMD_LONG_ONLY,
    OPT_PARTIAL,
    OPT_DUPLICATE,
    OPT_LAG,
    OPT_ACCEPT_LAG,
    OPT_MAX,
    OPT_SEED,
    OPT_META
};

static const struct cmd_option merge_options[] = {
    {"shards", OPT_SHARDS, false, "--shards",
     "the inputs are the shards of one run: refuse the set when a\n"
     "descriptor is missing, a shard index is missing or twice,\n"
     "shard counts or run ids differ, the shards ran different tests\n"
     "(tool, target, options, levels and their order and requested\n"
     "starts), a shard was interrupted, or a level started late\n"
     "(one line each)"},
    {"allow-partial", OPT_PARTIAL, false, "--allow-partial",
     "with --shards: merge a set with missing or interrupted shards\n"
     "anyway, name them on stderr, and exit 3"},
    {"allow-duplicate", OPT_DUPLICATE, false, "--allow-duplicate",
     "without --shards: merge one run given twice (the same\n"
     "descriptor's run, or the same content) anyway, with a warning"},
    {"max-start-lag", OPT_LAG, true, "--max-start-lag S",
     "with --shards: refuse a shard whose level started more than S\n"
     "seconds from its requested start (default 0.05)"},
    {"accept-start-lag", OPT_ACCEPT_LAG, false, "--accept-start-lag",
     "with --shards: merge such a shard anyway, with a warning"},
    {"max-samples", OPT_MAX, true, "--max-samples N",
     "at most N samples per metric per level (default: no cap, or\n"
     "the largest input's count when an input was cut)"},
    {"seed", OPT_SEED, true, "--seed N",
     "seed of the weighted draw (default 1: the same inputs give\n"
     "the same document)"},
    {"meta", OPT_META, true, "--meta FILE",
     "write a descriptor of the merged document (its true counts)"},
    {"output", 'o', true, "-o, --output OUT",
     "write the document to OUT instead of standard output"},
};

/* --max-samples and --seed: a whole number, the first at least 1. */
static int take_whole_number(struct merge_settings *s, int id, const char *value)
{
    const char *name = id == OPT_MAX ? "--max-samples" : "--seed";
    double number;
    if (parse_number_option("merge", name, value, &number) != EXIT_FINE) return EXIT_USAGE;
    if (number >= 18446744073709551616.0 || number != (double)(uint64_t)number ||
        (id == OPT_MAX && number < 1))
        return usage_error("merge", "%s needs a whole number%s, not '%s'", name,
                           id == OPT_MAX ? " of at least 1" : "", value);
    if (id == OPT_MAX)
        s->merge.max_samples = (size_t)number;
    else
        s->merge.seed = (uint64_t)number;
    return EXIT_FINE;
}

static int take_option(void *settings, int id, const char *value)
{
    struct merge_settings *s = settings;
    switch (id) {
    case 'o':
        s->output = value;
        return EXIT_FINE;
    case OPT_SHARDS:
        s->shards = true;
        return EXIT_FINE;
    case OPT_PARTIAL:
        s->allow_partial = true;
        return EXIT_FINE;
    case OPT_DUPLICATE:
        s->allow_duplicate = true;
        return EXIT_FINE;
    case OPT_LAG:
        return parse_number_option("merge", "--max-start-lag", value, &s->rules.max_start_lag_s);
    case OPT_ACCEPT_LAG:
        s->rules.accept_start_lag = true;
        return EXIT_FINE;
    case OPT_META:
        s->meta_output = value;
        return EXIT_FINE;
    default: /* OPT_MAX, OPT_SEED */
        return take_whole_number(s, id, value);
    }
}

static int check_options(void *settings)
{
    const struct merge_settings *s = settings;
    if (s->allow_partial && !s->shards)
        return usage_error("merge", "--allow-partial needs --shards");
    if (s->rules.accept_start_lag && !s->shards)
        return usage_error("merge", "--accept-start-lag needs --shards");
    if (s->allow_duplicate && s->shards)
        return usage_error("merge", "--allow-duplicate does not go with --shards, which refuses a "
                                    "shard given twice");
    return EXIT_FINE;
}

static const struct cmd_spec merge_spec = {
    .name = "merge",
    .synopsis = "[options] A B ...",
    .about =
        "Writes one collector document made from the documents of several generators that\n"
        "ran the same levels at the same time (shards of one run); one input may be - (stdin).\n"
        "Each metric is merged by its kind (the table in loadstats(1)):\n"
        "  - exact counts (attempts, requests, errors, errors.<class>, rcode.<NAME>, unfinished,\n"
        "    connections, bytes_received, scheduled, unsent, ...) are summed; a document\n"
        "    without the key adds 0;\n"
        "  - per-second timelines (requests_per_second, generator_cpu_s, watch.<NAME>.cpu_s)\n"
        "    are added second by second, over the seconds every input's level ran;\n"
        "  - how long a level ran (ran_s) is the shortest input's;\n"
        "  - samples (latencies, phases) are pooled, never averaged. Where --max-samples or\n"
        "    --max-doc-bytes cut an input (its descriptor's \"seen\" says how many it saw),\n"
        "    each input gives samples in proportion to its true count, so the pool stays a\n"
        "    uniform sample of all requests; an input that shows a cut (requests above its\n"
        "    latency samples) without true counts is refused;\n"
        "  - gauges (generator_rss_bytes, loop_lag_ms, watch.<NAME>.*_bytes and .fds) are\n"
        "    kept apart per input, as c<N>.shard<K>.<metric> (input<K> without --shards);\n"
        "  - a key whose unit differs between documents is an error.\n"
        "The descriptor of A.json is A.meta.json (the generators' --meta): used when present.\n"
        "One run given twice is refused, its counts would double: two inputs whose descriptors\n"
        "name the same run (tool, host, start, command line, run id, shard), or, where either\n"
        "has no such descriptor, that hold the same metrics and samples (a path given twice,\n"
        "a link, a copy).\n",
    .epilog = "Exit status: 0 merged, 1 an input is invalid or cut without true counts, units\n"
              "conflict, a sum is beyond a double, one run is given twice or the shard set is\n"
              "refused, 2 usage or I/O error, 3 merged an incomplete or interrupted set\n"
              "(--allow-partial), 4 out of memory.\n",
    .help_column = 26,
    .options = merge_options,
    .n_options = sizeof merge_options / sizeof *merge_options,
    .operands = CMD_SOME_FILES,
    .take = take_option,
    .check = check_options,
};

struct merge_input {
    const char *path;
    char *descriptor; /* its descriptor's path (NULL for stdin) */
    bool has_meta;
    struct stats_runmeta meta;
    char meta_error[256];
    char *sidecar;
    struct stats_content_digest digest; /* of the document as read */
};

struct merge_reading {
    struct stats_merge *merge;
    struct merge_input *input;
    size_t document;
    bool shards;
    unsigned long warned_level; /* the last level warned about, to warn once */
    struct stats_doccut cut;    /* the document's own evidence of a cut */
};

/* Reads each input's descriptor. Without --shards a missing one is fine, an
 * unreadable or invalid one is not: merge would weigh samples wrongly. */
static int read_descriptors(struct merge_input *inputs, size_t count, bool shards)
{
    for (size_t d = 0; d < count; d++) {
        struct merge_input *in = &inputs[d];
        if (strcmp(in->path, "-") == 0) {
            if (shards)
                return usage_error("merge", "--shards needs files: standard input has no "
                                            "descriptor beside it");
            continue;
        }
        in->descriptor = stats_runmeta_path_for(in->path);
        if (in->descriptor == NULL) return no_memory("merge", "naming a descriptor");
        int rc =
            stats_runmeta_read(in->descriptor, &in->meta, in->meta_error, sizeof in->meta_error);
        if (rc == -1 && errno == ENOMEM) return no_memory("merge", "reading %s", in->descriptor);
        if (rc == 0) {
            in->has_meta = true;
        } else if (!shards && !(rc == -1 && errno == ENOENT)) {
            complain("merge", "%s: %s", in->descriptor, in->meta_error);
            return rc == -1 ? EXIT_USAGE : EXIT_FAILS;
        }
    }
    return EXIT_FINE;
}

static void print_lines(const struct stats_shard_lines *lines)
{
    for (size_t i = 0; i < lines->count; i++)
        complain("merge", "%s", lines->lines[i]);
}

/* --shards: refuses the set (EXIT_FAILS), lets it through (EXIT_FINE), or lets
 * an incomplete one through under --allow-partial (EXIT_PARTIAL). */
static int check_shards(struct merge_input *inputs, size_t count, const struct merge_settings *s)
{
    struct stats_shard_input *set = calloc(count, sizeof *set);
    if (set == NULL) return no_memory("merge", "checking the shards");
    for (size_t d = 0; d < count; d++)
        set[d] = (struct stats_shard_input){inputs[d].path, inputs[d].descriptor,
                                            inputs[d].has_meta ? &inputs[d].meta : NULL,
                                            inputs[d].meta_error};
    struct stats_shard_findings findings;
    int rc = stats_shardset_check(set, count, &s->rules, &findings);
    free(set);
    if (rc != 0) return no_memory("merge", "checking the shards");
    print_lines(&findings.refusals);
    print_lines(&findings.missing);
    print_lines(&findings.partial);
    print_lines(&findings.warnings);
    int status = EXIT_FINE;
    bool partial = findings.missing.count > 0 || findings.partial.count > 0;
    if (findings.refusals.count > 0) {
        complain("merge", "refusing the set: its documents are not the shards of one run that "
                          "ran together");
        status = EXIT_FAILS;
    } else if (partial && !s->allow_partial) {
        complain("merge", "refusing an incomplete set (--allow-partial merges it anyway)");
        status = EXIT_FAILS;
    } else if (partial) {
        complain("merge",
                 "merging the %zu shards present anyway (--allow-partial): the totals "
                 "lack %s; exit status 3",
                 count,
                 findings.missing.count && findings.partial.count
                     ? "the missing shards and what the interrupted ones did not measure"
                 : findings.missing.count ? "the missing shards"
                                          : "what the interrupted shards did not measure");
        status = EXIT_PARTIAL;
    }
    stats_shard_findings_free(&findings);
    return status;
}

/* Are inputs a and b one run? Where both descriptors name their runs, they
 * say; otherwise the documents' content does, once `read`. `why` says how. */
static bool one_run(const struct merge_input *a, const struct merge_input *b, bool read, char *why,
                    size_t size)
{
    if (a->has_meta && b->has_meta && stats_runmeta_names_run(&a->meta) &&
        stats_runmeta_names_run(&b->meta)) {
        if (!stats_same_run(&a->meta, &b->meta)) return false;
        snprintf(why, size, "their descriptors name one run: %.40s on host %.100s started at %.40s",
                 a->meta.tool, a->meta.host, a->meta.started_at);
        return true;
    }
    if (!read || !stats_same_content(&a->digest, &b->digest)) return false;
    snprintf(why, size, "the same metrics with the same samples");
    return true;
}

/* An input that is a run given before it: refused (EXIT_FAILS), one line each,
 * or with --allow-duplicate merged after one warning. Before the documents are
 * `read` only descriptors can tell, after it their content too. */
static int refuse_repeated_runs(const struct merge_input *inputs, size_t count, bool read,
                                bool allow)
{
    size_t repeats = 0, first = 0, first_of = 0;
    char why[256], first_why[256] = "";
    for (size_t e = 1; e < count; e++)
        for (size_t d = 0; d < e; d++) {
            if (!one_run(&inputs[d], &inputs[e], read, why, sizeof why)) continue;
            if (!allow)
                complain("merge",
                         "%s and %s are one run (%s): merged twice, its counts would double "
                         "(--allow-duplicate merges it anyway)",
                         input_name(inputs[d].path), input_name(inputs[e].path), why);
            if (repeats++ == 0) {
                first = e;
                first_of = d;
                memcpy(first_why, why, sizeof why);
            }
            break;
        }
    if (repeats == 0) return EXIT_FINE;
    if (!allow) return EXIT_FAILS;
    complain("merge",
             "warning: %s and %s are one run (%s)%s; merged anyway (--allow-duplicate): a run "
             "given twice counts twice",
             input_name(inputs[first_of].path), input_name(inputs[first].path), first_why,
             repeats > 1 ? ", and more inputs repeat a run" : "");
    return EXIT_FINE;
}

/* The true count of a metric of this document, from its descriptor. */
static int true_count(struct merge_reading *r, const char *key, size_t n, uint64_t *seen)
{
    unsigned long clients;
    const char *metric;
    *seen = n;
    if (!r->input->has_meta || !stats_key_level(key, &clients, &metric)) return 0;
    const struct stats_runmeta_level *level = stats_runmeta_level(&r->input->meta, clients);
    if (level == NULL) {
        if (r->shards) {
            complain("merge", "%s holds level c%lu, which its descriptor %s does not list",
                     r->input->path, clients, r->input->descriptor);
            return -1;
        }
        if (r->warned_level != clients)
            complain("merge",
                     "warning: %s holds level c%lu, which %s does not list; its samples are "
                     "taken as whole",
                     r->input->path, clients, r->input->descriptor);
        r->warned_level = clients;
        return 0;
    }
    if (stats_runmeta_seen(level, metric, seen) == STATS_SEEN_UNKNOWN) {
        /* pooled as if whole, its few samples would stand for too few requests */
        complain("merge",
                 "%s: %s was cut (its descriptor lists it in \"sampled\"), but %s has no true "
                 "count (\"seen\") to weigh it by; refusing to pool it as if whole",
                 r->input->path, key, r->input->descriptor);
        return -1;
    }
    return 0;
}

/* A document's metric added to the merge. Only the walk is shared (read_document, over
 * docread_walk): runset's and the report's take_metric reduce a metric, merge keeps it whole. */
static int add_metric(void *ctx, struct docread_metric *metric)
{
    struct merge_reading *r = ctx;
    char error[256];
    uint64_t seen;
    if (true_count(r, metric->key, metric->n, &seen) != 0) return 1;
    stats_digest_metric(&r->input->digest, metric->key, metric->unit, metric->samples, metric->n);
    if (stats_doccut_note(&r->cut, metric->key, metric->n == 1 ? metric->samples[0] : -1.0,
                          metric->n, seen) != 0)
        return no_memory("merge", "at metric \"%s\"", metric->key);
    int rc = stats_merge_add(r->merge, r->document, metric->key, metric->unit, &metric->samples,
                             metric->n, seen, error, sizeof error);
    if (rc == -2) return no_memory("merge", "%s", error);
    if (rc != 0) {
        complain("merge", "%s: %s", input_name(r->input->path), error);
        return 1;
    }
    return 0;
}

/* May a document lack this key without anything being wrong? The generators
 * write a count with a class in its name (errors.<class>, rcode.<NAME>) only
 * where it is not 0, and a gauge when it could be taken; a plain count
 * (attempts, requests) and every other metric is in every document of a level,
 * so a document without it is news, though the merge adds 0 for it. */
/* Keys some documents lack (but not those that may be absent), timelines of
 * different lengths, and the metrics drawn by weight. */
static void report_merge(const struct stats_merge *merge, const struct merge_input *inputs)
{
    for (size_t i = 0; i < merge->keys.count; i++) {
        const struct stats_merged_metric *m = &merge->metrics[i];
        const char *key = merge->keys.keys[i];
        struct stats_metric_info info;
        stats_metric_info(key, m->unit, &info);
        /* a count with a class (errors.X, rcode.X) is written only where it
         * is not 0: the table says SOMETIMES for those, ALWAYS for plain ones */
        if (m->documents < merge->documents && info.always && m->kind != STATS_KIND_GAUGE) {
            fprintf(stderr, "loadstats merge: warning: \"%s\" is missing from", key);
            for (size_t d = 0; d < merge->documents; d++)
                if (m->parts[d].n == 0) fprintf(stderr, " %s", input_name(inputs[d].path));
            if (m->kind == STATS_KIND_COUNT)
                fputs("; counted as 0 there\n", stderr);
            else
                fprintf(stderr, "; merged from the %zu document%s that %s it\n", m->documents,
                        m->documents == 1 ? "" : "s", m->documents == 1 ? "has" : "have");
        }
        if (m->kind == STATS_KIND_SPAN && m->n == 1 && m->longest > m->samples[0])
            complain("merge",
                     "warning: \"%s\": the inputs ran this level for %g to %g s (one was cut "
                     "short); the merge keeps the shortest, and the level's per-second "
                     "timelines end with the last whole second every input ran",
                     key, m->samples[0], m->longest);
        if (m->lengths_differ)
            complain("merge",
                     "warning: the %s timelines of \"%s\" have different lengths; seconds "
                     "missing from a shorter one count as 0",
                     stats_unit_name(m->unit), key);
        if (m->drawn)
            complain("merge",
                     "\"%s\": %zu of %llu samples kept, drawn from each input in proportion to "
                     "its true count (--max-samples)",
                     key, m->n, (unsigned long long)m->seen);
    }
}

static void write_document(FILE *out, const struct stats_merge *merge, const char *sidecar)
{
    char number[STATS_NUMBER_MAX];
    fputs("{\"metrics\": {", out);
    for (size_t i = 0; i < merge->keys.count; i++) {
        const struct stats_merged_metric *m = &merge->metrics[i];
        fputs(i ? ",\n" : "\n", out);
        json_write_string(out, merge->keys.keys[i]);
        fprintf(out, ": {\"unit\": \"%s\", \"samples\": [", stats_unit_name(m->unit));
        for (size_t j = 0; j < m->n; j++) {
            if (j) putc(',', out);
            fwrite(number, 1, stats_format_double(m->samples[j], number), out);
        }
        fputs("]}", out);
    }
    fputs("\n}", out);
    if (sidecar != NULL) {
        fputs(", \"sidecar\": ", out);
        json_write_string(out, sidecar);
    }
    fputs("}\n", out);
}

/* The sidecar survives only when every document names the same one. */
static const char *common_sidecar(const struct merge_input *inputs, size_t count)
{
    bool any = false, same = true;
    for (size_t d = 0; d < count; d++) {
        const char *mine = inputs[d].sidecar, *first = inputs[0].sidecar;
        any |= mine != NULL;
        if (mine == NULL || first == NULL || strcmp(mine, first) != 0) same = false;
    }
    if (any && !same)
        complain("merge",
                 "warning: the documents name different sidecars; the merged one has none");
    return same ? inputs[0].sidecar : NULL;
}

/* A level's self_watch in the merged descriptor: limited when any input's
 * generator limited it (that input's figures are in the merge), null when no
 * input's descriptor said. */
static const char *merged_self_watch(const struct merge_input *inputs, size_t count,
                                     unsigned long clients)
{
    bool known = false;
    for (size_t d = 0; d < count; d++) {
        if (!inputs[d].has_meta) continue;
        const struct stats_runmeta_level *l = stats_runmeta_level(&inputs[d].meta, clients);
        if (l == NULL || !l->has_self_watch) continue;
        if (l->generator_limited) return "{\"limited\": true}";
        known = true;
    }
    return known ? "{\"limited\": false}" : "null";
}

/* --meta FILE: what a later merge needs to weigh this document: its levels and,
 * for each metric drawn or cut, how many requests its samples stand for; and
 * whether a generator limited a level. */
static void write_descriptor(FILE *out, const struct stats_merge *merge,
                             const struct merge_input *inputs, size_t count)
{
    const char *run_id = inputs[0].has_meta ? inputs[0].meta.run_id : NULL;
    for (size_t d = 1; d < count && run_id; d++)
        if (!inputs[d].has_meta || inputs[d].meta.run_id == NULL ||
            strcmp(inputs[d].meta.run_id, run_id) != 0)
            run_id = NULL;
    fputs("{\n  \"tool\": \"loadstats merge\",\n  \"version\": \"" PACKAGE_VERSION
          "\",\n  \"run_id\": ",
          out);
    if (run_id)
        json_write_string(out, run_id);
    else
        fputs("null", out);
    fputs(",\n  \"shard\": {\"index\": 0, \"count\": 1},\n  \"inputs\": [", out);
    for (size_t d = 0; d < count; d++) {
        if (d) fputs(", ", out);
        json_write_string(out, input_name(inputs[d].path));
    }
    fputs("],\n  \"levels\": [", out);
    unsigned long previous = 0;
    bool first_level = true;
    for (;;) { /* levels in ascending client count */
        unsigned long level = 0, clients;
        const char *metric;
        for (size_t i = 0; i < merge->keys.count; i++)
            if (stats_key_level(merge->keys.keys[i], &clients, &metric) && clients > previous &&
                (level == 0 || clients < level))
                level = clients;
        if (level == 0) break;
        fprintf(out, "%s\n    {\"clients\": %lu, \"self_watch\": %s, \"sampled\": [",
                first_level ? "" : ",", level, merged_self_watch(inputs, count, level));
        for (int pass = 0; pass < 2; pass++) {
            bool first = true;
            if (pass == 1) fputs("], \"seen\": {", out);
            for (size_t i = 0; i < merge->keys.count; i++) {
                const struct stats_merged_metric *m = &merge->metrics[i];
                if (!stats_key_level(merge->keys.keys[i], &clients, &metric) || clients != level ||
                    m->kind != STATS_KIND_SAMPLES || m->seen <= m->n)
                    continue;
                fputs(first ? "" : ", ", out);
                json_write_string(out, metric);
                if (pass == 1) fprintf(out, ": %llu", (unsigned long long)m->seen);
                first = false;
            }
        }
        fputs("}}", out);
        first_level = false;
        previous = level;
    }
    fputs("\n  ]\n}\n", out);
}

static int write_file(const char *path, const char *what, const struct stats_merge *merge,
                      const struct merge_input *inputs, size_t count, bool descriptor)
{
    FILE *out = stdout;
    if (path != NULL && strcmp(path, "-") != 0) out = fopen(path, "w");
    if (out == NULL) return cannot_write("merge", path);
    static char buffer[1 << 20];
    if (!descriptor) setvbuf(out, buffer, _IOFBF, sizeof buffer);
    if (descriptor)
        write_descriptor(out, merge, inputs, count);
    else
        write_document(out, merge, common_sidecar(inputs, count));
    return finish_output("merge", out, path ? path : what);
}

/* A document whose requests exceed what its latency samples stand for had
 * them cut; without true counts to weigh them by, it is refused. */
static int refuse_cut(const struct merge_reading *r)
{
    const struct stats_doccut_level *level = stats_doccut_find(&r->cut);
    if (level == NULL) return EXIT_FINE;
    const struct merge_input *in = r->input;
    complain("merge",
             "%s: level c%lu counts %llu requests but its latency samples (latency_cold_ms and "
             "latency_warm_ms) stand for %llu: they were cut (--max-samples, --max-doc-bytes), "
             "and %s%s%s gives no true count to weigh them by; refusing to pool them as if whole",
             input_name(in->path), level->clients, (unsigned long long)level->requests,
             (unsigned long long)level->latency, in->has_meta ? "its descriptor " : "",
             in->has_meta ? in->descriptor : "no descriptor",
             in->has_meta ? "" : " (A.meta.json beside A.json, from --meta)");
    return EXIT_FAILS;
}

/* How a gauge kept apart names its document: the shard, or the input's place. */
static int name_parts(struct stats_merge *merge, const struct merge_input *inputs, size_t count,
                      bool shards)
{
    for (size_t d = 0; d < count; d++) {
        char name[40];
        if (shards)
            snprintf(name, sizeof name, "shard%lu", inputs[d].meta.shard_index);
        else
            snprintf(name, sizeof name, "input%zu", d);
        if (stats_merge_name_part(merge, d, name) != 0) return -1;
    }
    return 0;
}

static int merge_inputs(struct merge_input *inputs, size_t count, const struct merge_settings *s)
{
    struct stats_merge merge;
    if (stats_merge_init(&merge, count) != 0) {
        stats_merge_free(&merge);
        return no_memory("merge", "for the merge");
    }
    if (name_parts(&merge, inputs, count, s->shards) != 0) {
        stats_merge_free(&merge);
        return usage_error("merge", "a shard's name is too long");
    }
    int status = EXIT_FINE;
    for (size_t d = 0; d < count && status == EXIT_FINE; d++) {
        struct merge_reading reading = {
            .merge = &merge, .input = &inputs[d], .document = d, .shards = s->shards};
        struct docread_options read_options = {.on_metric = add_metric, .ctx = &reading};
        struct docread_result result;
        status = read_document("merge", inputs[d].path, &read_options, &result);
        inputs[d].sidecar = result.sidecar; /* now ours to free */
        if (status == EXIT_FINE) status = refuse_cut(&reading);
        stats_doccut_free(&reading.cut);
    }
    if (status == EXIT_FINE && !s->shards) /* --shards refuses a shard index given twice */
        status = refuse_repeated_runs(inputs, count, true, s->allow_duplicate);
    char error[256];
    int finished =
        status == EXIT_FINE ? stats_merge_finish(&merge, &s->merge, error, sizeof error) : 0;
    if (finished == -1) status = no_memory("merge", "%s", error);
    if (finished == -2) {
        complain("merge", "%s", error);
        status = EXIT_FAILS;
    }
    if (status == EXIT_FINE) {
        report_merge(&merge, inputs);
        status = write_file(s->output, "standard output", &merge, inputs, count, false);
    }
    if (status == EXIT_FINE && s->meta_output != NULL)
        status = write_file(s->meta_output, "standard output", &merge, inputs, count, true);
    stats_merge_free(&merge);
    return status;
}

int cmd_merge(int argc, char **argv)
{
    struct merge_settings settings = {.rules = {.max_start_lag_s = 0.05}, .merge = {.seed = 1}};
    char **paths;
    int n_paths;
    int status = cmd_parse(&merge_spec, argc, argv, &settings, &paths, &n_paths);
    if (status != CMD_PROCEED) return status;
    size_t count = (size_t)n_paths;
    size_t stdin_uses = 0;
    for (size_t d = 0; d < count; d++)
        stdin_uses += strcmp(paths[d], "-") == 0;
    if (stdin_uses > 1) return usage_error("merge", "standard input (-) can be read only once");
    if (settings.meta_output && settings.output &&
        strcmp(settings.meta_output, settings.output) == 0)
        return usage_error("merge", "--meta and --output name the same file");

    struct merge_input *inputs = calloc(count, sizeof *inputs);
    if (inputs == NULL) return no_memory("merge", "for the inputs");
    for (size_t d = 0; d < count; d++) {
        inputs[d].path = paths[d];
        stats_digest_init(&inputs[d].digest);
    }
    status = read_descriptors(inputs, count, settings.shards);
    /* a run its descriptors name twice is refused before any document is read */
    if (status == EXIT_FINE && !settings.shards && !settings.allow_duplicate)
        status = refuse_repeated_runs(inputs, count, false, false);
    stats_machines_warn(stderr, "merge", (const char *const *)paths, count);
    int completeness = EXIT_FINE;
    if (status == EXIT_FINE && settings.shards) {
        completeness = check_shards(inputs, count, &settings);
        if (completeness != EXIT_PARTIAL) status = completeness;
    }
    if (status == EXIT_FINE) status = merge_inputs(inputs, count, &settings);
    if (status == EXIT_FINE) status = completeness;
    for (size_t d = 0; d < count; d++) {
        free(inputs[d].descriptor);
        free(inputs[d].sidecar);
        stats_runmeta_free(&inputs[d].meta);
    }
    free(inputs);
    return status;
}
