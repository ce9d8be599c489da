/* main.c — kcontract's entry point: parse the command line, build the item
 * list from the registry, and dispatch to run, list or info. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "registry.h"
#include "runner.h"

int main(int argc, char **argv)
{
    kc_opts o;
    int rc = kc_cli_parse(argc, argv, &o);
    if (rc) {
        kc_opts_free(&o);
        return rc;
    }
    if (o.cmd == KC_CMD_HELP) {
        kc_cli_usage(stdout);
        kc_opts_free(&o);
        return 0;
    }
    if (o.cmd == KC_CMD_INFO) {
        kc_opts_free(&o);
        return kc_info();
    }
    kc_item *items;
    char err[1024];
    int n = kc_registry_items(&items, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "kcontract: bad registration: %s\n", err);
        kc_opts_free(&o);
        return 4;
    }
    rc = o.cmd == KC_CMD_LIST ? kc_list(&o, items, n) : kc_run(&o, items, n);
    free(items);
    kc_opts_free(&o);
    return rc;
}
