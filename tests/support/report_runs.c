/* report_runs.c — test support shared by the report tests (report_runs.h). */
#include "report_runs.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "run_output.h"

static char *const NO_GPU[] = { "KC_LIBCUDA=none", NULL };

void kc_report_tmpname(char *buf, size_t cap, const char *tag)
{
    snprintf(buf, cap, "%s/kc_test_report_%s_XXXXXX", kc_test_tmpdir(), tag);
    int fd = mkstemp(buf);
    cr_assert(fd >= 0, "mkstemp");
    close(fd);
}

kc_proc kc_report_fixture(char **args, char *const *env)
{
    char *argv[24] = { (char *)kc_test_fixture_bin() };
    int a = 1;
    for (; args[a - 1]; a++) argv[a] = args[a - 1];
    argv[a] = NULL;
    kc_proc p;
    cr_assert_eq(kc_spawn(argv, env ? env : NO_GPU, 20, &p), 0, "cannot start %s", argv[0]);
    return p;
}

kc_proc kc_report_python(const char *script, const char *file)
{
    return kc_run_python3((char *[]){ "-c", (char *)script, (char *)file, NULL }, 20);
}

const char *const KC_REPORT_PY_JUNIT =
    "import sys, xml.etree.ElementTree as ET\n"
    "root = ET.parse(sys.argv[1]).getroot()\n"
    "s = root.find('testsuite')\n"
    "print('suites', root.tag, root.get('tests'), root.get('failures'), root.get('errors'), root.get('skipped'))\n"
    "print('suite', s.get('tests'), s.get('failures'), s.get('errors'), s.get('skipped'))\n"
    "for c in s.findall('testcase'):\n"
    "    kids = [k.tag for k in c]\n"
    "    f = c.find('failure') if c.find('failure') is not None else c.find('error')\n"
    "    print('case', c.get('classname'), ascii(c.get('name')), c.get('time'), ','.join(kids),\n"
    "          ascii(f.get('message')) if f is not None else '-', ascii(f.text) if f is not None else '-')\n";
