/* test_registry.c — the registry as linked into the test binary (every
 * contract under kernels/ and every suite): items are sorted and unique, every
 * contract has its gates, limits and controls as items, every module and
 * control has an embedded fatbin (a library kernel: a built shared library, in
 * build/lib/ or $KC_LIBDIR), and every family has at least two controls. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fatbin.h"
#include "hostlib.h"
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
        expect += (cs[i]->library ? 1 : 2) + k;   /* a library kernel has no :limits item */
        expect += cs[i]->no_sanitize ? 0 : 1;     /* <name>:sanitize unless it says why not */
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
        if (cs[i]->library) continue;   /* library kernels: every_library_and_control_is_built */
        cr_expect_not_null(kc_fatbin_find(cs[i]->module, NULL), "%s: module %s", cs[i]->name, cs[i]->module);
        for (int k = 0; k < KC_MAX_CONTROLS && cs[i]->controls[k].name; k++) {
            const kc_fatbin *f = kc_fatbin_find(cs[i]->module, cs[i]->controls[k].name);
            cr_expect_not_null(f, "%s: control %s", cs[i]->name, cs[i]->controls[k].name);
            if (f) cr_expect_gt(f->end - f->start, 1000, "fatbin %s@%s is %td bytes", f->module, f->control, f->end - f->start);
        }
    }
}

/* The harness looks for a library next to its binary (build/lib/ for the
 * binaries `make test` runs); the build must have made it and one per control. */
Test(registry, every_library_and_control_is_built)
{
    const char *dir = getenv("KC_LIBDIR");
    if (!dir || !*dir) setenv("KC_LIBDIR", "build/lib", 1);
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    int libs = 0;
    for (size_t i = 0; i < nc; i++) {
        if (!cs[i]->library) continue;
        libs++;
        char path[4200];
        kc_hostlib_path(cs[i]->library, NULL, path, sizeof path);
        cr_expect_eq(access(path, R_OK), 0, "%s: library %s not built: %s", cs[i]->name, cs[i]->library, path);
        for (int k = 0; k < KC_MAX_CONTROLS && cs[i]->controls[k].name; k++) {
            kc_hostlib_path(cs[i]->library, cs[i]->controls[k].name, path, sizeof path);
            cr_expect_eq(access(path, R_OK), 0, "%s: control %s not built: %s (is KC_CONTROL_%s used in lib%s.cu?)",
                         cs[i]->name, cs[i]->controls[k].name, path, cs[i]->controls[k].name, cs[i]->library);
        }
    }
    cr_expect_gt(libs, 0, "no library kernel linked (kernels/cublas_gemm, kernels/cub)");
}

/* A library contract is library + entry, without module, symbol or launch. */
Test(registry, library_contract_is_one_kind_or_the_other)
{
    const kc_contract *const *cs;
    size_t nc = kc_registry_contracts(&cs);
    const kc_contract *lib = NULL;
    for (size_t i = 0; i < nc && !lib; i++)
        if (cs[i]->library) lib = cs[i];
    cr_assert_not_null(lib);
    cr_expect_null(lib->module);
    cr_expect_null(lib->launch);
    cr_expect_null(lib->symbol);
    cr_expect_not_null(lib->entry);
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
