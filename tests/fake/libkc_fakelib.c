/* libkc_fakelib.c — a library kernel for the fake driver (tests/fake/fake_cuda.c),
 * built as build/lib/libkc_fakelib.so (and @<control>.so per KC_CONTROL_ switch)
 * and called through kc_contract.library by the fixture contracts of
 * tests/fixtures/fake_library_contracts.c. Under the fake driver a device
 * pointer is a host address, so the "library" computes on the host, as a real
 * one would launch kernels on the current context. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kcontract.h"

#define CUDA_ERROR_INVALID_VALUE_ 1   /* CUDA_ERROR_INVALID_VALUE, without cuda.h */
#define CUDA_ERROR_NOT_INITIALIZED_ 3 /* CUDA_ERROR_NOT_INITIALIZED */

/* Which build this is, for the release log. */
#if defined(KC_CONTROL_error_return)
#define KC_FAKELIB_BUILD "error_return"
#elif defined(KC_CONTROL_runtime_error)
#define KC_FAKELIB_BUILD "runtime_error"
#elif defined(KC_CONTROL_skip_last)
#define KC_FAKELIB_BUILD "skip_last"
#else
#define KC_FAKELIB_BUILD "clean"
#endif

/* y = 2 x: args y (float *, OUT), x (const float *, IN), n (long long). */
int kc_fakelib_double_f32(void *const *args, const kc_shape *s, const kc_device *dev)
{
    float *y = (float *)(uintptr_t)*(const unsigned long long *)args[0];
    const float *x = (const float *)(uintptr_t)*(const unsigned long long *)args[1];
    long long n = *(const long long *)args[2];
    (void)s;
    (void)dev;
    /* An environment fault, in every build, clean and controls alike: the
     * library cannot start here (as cublasCreate without a usable driver). */
    if (getenv("KC_FAKELIB_ENV_FAULT")) return CUDA_ERROR_NOT_INITIALIZED_;
#if defined(KC_CONTROL_error_return)
    return CUDA_ERROR_INVALID_VALUE_;      /* planted: the library refuses the call */
#endif
#if defined(KC_CONTROL_runtime_error)
    return 9;                              /* planted: cudaErrorInvalidConfiguration, a code no CUresult has */
#endif
#if defined(KC_CONTROL_skip_last)
    n--;                                   /* planted: the last element is left */
#endif
    for (long long i = 0; i < n; i++) y[i] = 2.0f * x[i];
    return 0;
}

/* KC_HOST_RELEASE: appends "release <this library's build>" to
 * $KC_FAKELIB_RELEASE_LOG when set (one line a call, for the tests to count);
 * returns $KC_FAKELIB_RELEASE_FAIL's code when set (a release that fails),
 * in the build $KC_FAKELIB_RELEASE_FAIL_BUILD names only when that is set. */
int kc_host_release(void)
{
    const char *log = getenv("KC_FAKELIB_RELEASE_LOG"), *fail = getenv("KC_FAKELIB_RELEASE_FAIL");
    const char *only = getenv("KC_FAKELIB_RELEASE_FAIL_BUILD");
    if (only && *only && strcmp(only, KC_FAKELIB_BUILD) != 0) fail = NULL;
    if (log && *log) {
        FILE *f = fopen(log, "a");
        if (f) {
            fprintf(f, "release %s\n", KC_FAKELIB_BUILD);
            fclose(f);
        }
    }
    return fail && *fail ? atoi(fail) : 0;
}
