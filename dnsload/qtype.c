/* The query-type table: every mnemonic a query file may use, with its code
 * from the IANA registry. Types that cannot be asked in a query (OPT) are
 * left out; anything else can still be given as TYPEnnn. */
#include "dnsload/qtype.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

static const struct {
    const char *name;
    uint16_t code;
} qtypes[] = {
    {"A", 1},           {"NS", 2},          {"MD", 3},        {"MF", 4},      {"CNAME", 5},
    {"SOA", 6},         {"MB", 7},          {"MG", 8},        {"MR", 9},      {"NULL", 10},
    {"WKS", 11},        {"PTR", 12},        {"HINFO", 13},    {"MINFO", 14},  {"MX", 15},
    {"TXT", 16},        {"RP", 17},         {"AFSDB", 18},    {"X25", 19},    {"ISDN", 20},
    {"RT", 21},         {"NSAP", 22},       {"NSAP-PTR", 23}, {"SIG", 24},    {"KEY", 25},
    {"PX", 26},         {"GPOS", 27},       {"AAAA", 28},     {"LOC", 29},    {"NXT", 30},
    {"SRV", 33},        {"NAPTR", 35},      {"KX", 36},       {"CERT", 37},   {"A6", 38},
    {"DNAME", 39},      {"APL", 42},        {"DS", 43},       {"SSHFP", 44},  {"IPSECKEY", 45},
    {"RRSIG", 46},      {"NSEC", 47},       {"DNSKEY", 48},   {"DHCID", 49},  {"NSEC3", 50},
    {"NSEC3PARAM", 51}, {"TLSA", 52},       {"SMIMEA", 53},   {"HIP", 55},    {"CDS", 59},
    {"CDNSKEY", 60},    {"OPENPGPKEY", 61}, {"CSYNC", 62},    {"ZONEMD", 63}, {"SVCB", 64},
    {"HTTPS", 65},      {"SPF", 99},        {"NID", 104},     {"L32", 105},   {"L64", 106},
    {"LP", 107},        {"EUI48", 108},     {"EUI64", 109},   {"TKEY", 249},  {"TSIG", 250},
    {"IXFR", 251},      {"AXFR", 252},      {"MAILB", 253},   {"MAILA", 254}, {"ANY", 255},
    {"URI", 256},       {"CAA", 257},       {"AVC", 258},     {"DOA", 259},   {"AMTRELAY", 260},
    {"TA", 32768},      {"DLV", 32769},
};

int dns_qtype_parse(const char *s, uint16_t *type)
{
    for (size_t i = 0; i < sizeof(qtypes) / sizeof(qtypes[0]); i++) {
        if (strcasecmp(s, qtypes[i].name) == 0) {
            *type = qtypes[i].code;
            return 0;
        }
    }
    if (strncasecmp(s, "TYPE", 4) == 0 && isdigit((unsigned char)s[4])) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s + 4, &end, 10);
        if (errno || *end || v > 65535) return -1;
        *type = (uint16_t)v;
        return 0;
    }
    return -1;
}

const char *dns_qtype_name(uint16_t type, char *buf, size_t buflen)
{
    for (size_t i = 0; i < sizeof(qtypes) / sizeof(qtypes[0]); i++)
        if (qtypes[i].code == type) return qtypes[i].name;
    snprintf(buf, buflen, "TYPE%u", (unsigned)type);
    return buf;
}
