/* test_registry.c — the registry as linked into the test binary (every
 * contract under kernels/ and every suite): items are sorted and unique, every
 * contract has its gates, limits and controls as items, every module and
 * control has an embedded fatbin, and every family has at least two controls. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "registry.h"

Test(registry, items_sorted_unique_and_complete)
{
    kc_item *items;
    char err[1024];
    int n = kc_registry_items(&items, err, sizeof err);
    cr_assert_geq(n, 0, "registry refused: %s", err);
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    cr_assert_gt(nc, 0, "no contract linked");
    int expect = 0;
    for (size_t i = 0; i < nc; i++) {
        int k = 0;
        while (k < KC_MAX_CONTROLS && cs[i]->controls[k].name) k++;
        expect += 2 + k;
    }
    const kc_suite *const *ss;
    expect += (int)kc_registry_suites(&ss);
    cr_expect_eq(n, expect);
    for (int i = 1; i < n; i++) cr_expect_lt(strcmp(items[i - 1].name, items[i].name), 0, "%s / %s", items[i - 1].name, items[i].name);
    free(items);
}

Test(registry, every_module_and_control_is_embedded)
{
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    for (size_t i = 0; i < nc; i++) {
        cr_expect_not_null(kc_fatbin_find(cs[i]->module, NULL), "%s: module %s", cs[i]->name, cs[i]->module);
        for (int k = 0; k < KC_MAX_CONTROLS && cs[i]->controls[k].name; k++) {
            const kc_fatbin *f = kc_fatbin_find(cs[i]->module, cs[i]->controls[k].name);
            cr_expect_not_null(f, "%s: control %s", cs[i]->name, cs[i]->controls[k].name);
            if (f) cr_expect_gt(f->end - f->start, 1000, "fatbin %s@%s is %td bytes", f->module, f->control, f->end - f->start);
        }
    }
}

Test(registry, find_contract)
{
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    cr_assert_gt(nc, 0);
    cr_expect_eq(kc_registry_find_contract(cs[0]->name), cs[0]);
    cr_expect_null(kc_registry_find_contract("no.such.contract"));
}

Test(registry, each_contract_has_two_controls_and_a_large_shape)
{
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    for (size_t i = 0; i < nc; i++) {
        int k = 0, large = 0, model = 0, edge = 0;
        while (k < KC_MAX_CONTROLS && cs[i]->controls[k].name) k++;
        for (const kc_shape *s = cs[i]->shapes; s->name; s++) {
            large += s->cls == KC_SHAPE_LARGE;
            model += s->cls == KC_SHAPE_MODEL;
            edge += s->cls == KC_SHAPE_EDGE;
        }
        cr_expect_geq(k, 2, "%s has %d controls", cs[i]->name, k);
        cr_expect_eq(large, 1, "%s has %d large shapes", cs[i]->name, large);
        cr_expect_gt(model, 0, "%s has no model shape", cs[i]->name);
        cr_expect_gt(edge, 0, "%s has no edge shape", cs[i]->name);
    }
}
