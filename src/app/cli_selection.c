/* cli_selection.c — the command line held to the items it selects
 * (cli_selection.h): --block-size against the selected contracts. */
#include "cli_selection.h"
#include "cli_checks.h"
#include "filter.h"
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "128, 256" of contract c's block sizes, or "none". */
static void block_list(const kc_contract *c, char *buf, size_t cap)
{
    buf[0] = 0;
    for (int i = 0; i < KC_MAX_BLOCK_SIZES && c->block_sizes[i]; i++)
        kc_strcatf(buf, cap, "%s%u", i ? ", " : "", c->block_sizes[i]);
    if (!buf[0]) snprintf(buf, cap, "none");
}

static int lists_block(const kc_contract *c, unsigned b)
{
    for (int i = 0; i < KC_MAX_BLOCK_SIZES && c->block_sizes[i]; i++)
        if (c->block_sizes[i] == b) return 1;
    return 0;
}

/* A --block-size that a selected contract does not list is the command
 * line's mistake, not its items' failure: it used to FAIL each kernel and
 * MISS each control of such a contract at run time (SKIP without a GPU, so
 * a run could pass). So it is refused before anything runs, for the whole
 * selection: one that mixes contracts that list B with ones that do not
 * would check B on some and nothing on the rest. Suites have no launch
 * variants and run as without it. */
int kc_cli_check_block_size(const kc_opts *o, const kc_item *items, int n)
{
    enum { SHOWN = 3 };
    const unsigned b = o->block_size;
    if (!b || n <= 0) return 0;
    const kc_contract **seen = calloc((size_t)n, sizeof *seen);
    if (!seen) return kc_cli_usage_error("out of memory%s%s", "", "");
    int nseen = 0, nmiss = 0, nlist = 0;
    char miss[600] = "", list[600] = "", globs[600] = "", sizes[120];
    for (int i = 0; i < n; i++) {
        const kc_contract *c = items[i].contract;
        if (!c || (o->npatterns && !kc_filter_match(items[i].name, o->patterns, o->npatterns))) continue;
        int dup = 0;
        for (int j = 0; j < nseen && !dup; j++) dup = seen[j] == c;
        if (dup) continue;
        seen[nseen++] = c;
        block_list(c, sizes, sizeof sizes);
        if (!lists_block(c, b)) {
            if (nmiss++ < SHOWN) kc_strcatf(miss, sizeof miss, "%s%s (lists %s)", nmiss > 1 ? ", " : "", c->name, sizes);
        } else if (nlist++ < SHOWN) {
            kc_strcatf(list, sizeof list, "%s%s (%s)", nlist > 1 ? ", " : "", c->name, sizes);
            kc_strcatf(globs, sizeof globs, "%s'%s*'", nlist > 1 ? " " : "", c->name);
        }
    }
    free(seen);
    if (!nmiss) return 0;
    char why[2400], more[48] = "", whose[64];
    if (nmiss > SHOWN) snprintf(more, sizeof more, " and %d more", nmiss - SHOWN);
    if (nlist)
        snprintf(whose, sizeof whose, "%d of the %d selected contracts %s not list", nmiss, nseen, nmiss == 1 ? "does" : "do");
    else if (nmiss == 1)
        snprintf(whose, sizeof whose, "the selected contract does not list");
    else
        snprintf(whose, sizeof whose, "none of the %d selected contracts lists", nmiss);
    int len = snprintf(why, sizeof why, "--block-size %u: %s that block size: %s%s. --block-size runs that launch variant "
                       "of every selected contract, so each must list it (kc_contract.block_sizes)", b, whose, miss, more);
    if (len > 0 && (size_t)len < sizeof why && nlist)
        snprintf(why + len, sizeof why - (size_t)len, "; %d do%s: %s%s: select only their items, e.g. %s", nlist,
                 nlist == 1 ? "es" : "", list, nlist > SHOWN ? " and more" : "", globs);
    return kc_cli_usage_error("%s%s", why, "");
}
