/* gate2.c — gate 2, bounds and writes, on a launched case: both guard
 * bands of every buffer intact, every input bitwise unchanged, every
 * pointer array's table unchanged and its guard band intact, every output
 * element written (poison left after the launch is confirmed by a relaunch
 * on other poison before it is called unwritten). */
#include "gate_checks.h"

#include <stdio.h>
#include <stdlib.h>

#include "dtype.h"
#include "guard.h"
#include "harness.h"
#include "launch.h"

/* An output element that holds poison A after the first launch may be a
 * value the kernel wrote (an int32 -1 is 0xFFFFFFFF). A relaunch on buffers
 * poisoned with B tells them apart: an element never written holds A, then B.
 * Counts those for output a into *n (first index in *first); 0, or the
 * failing gate. The relaunch's buffers are freed again for gate 4. */
static int confirm_unwritten(kc_gpu *gpu, const kc_kernels *K, kc_case *k, int a, size_t *n, size_t *first)
{
    int g = 0;
    CUresult r = kc_case_upload(gpu, k, 1, KC_POISON_B);
    if (r != CUDA_SUCCESS)
        g = kc_case_fail(k, KC_INTERNAL, "allocating the buffers to confirm unwritten elements failed: %s",
                         kc_cuda_error_name(&gpu->cu, r));
    if (!g) g = kc_case_launch(gpu, K, k, 1, 2);
    if (!g && (r = kc_dev_count_unwritten(gpu, kc_case_data(k, 0, a), kc_case_data(k, 1, a), k->count[a],
                                          kc_dtype_size(k->c->args[a].dtype), KC_POISON_A, KC_POISON_B, n, first)))
        g = kc_case_cuda_failed(gpu, k, r, "counting unwritten elements of", k->c->args[a].name);
    kc_case_free_set(gpu, k, 1);
    return g;
}

/* The tables of k's pointer arrays after the launch: bitwise the table
 * uploaded (a kernel reads them, never writes them), and their guard band
 * (after[a], a check of batch b) intact. 0, or the failing gate. */
static int check_ptr_tables(kc_gpu *gpu, kc_case *k, const kc_check_batch *b, const int *after)
{
    for (int a = 0; a < k->nargs; a++) {
        const kc_arg *ar = &k->c->args[a];
        if (ar->kind != KC_ARG_PTR_ARRAY || !k->count[a]) continue;
        const size_t n = k->count[a], bad = b->first[after[a]];
        if (bad < KC_GUARD_BYTES)
            return kc_case_fail(k, 2, "pointer array %s: written past its end (byte %zu after its %zu pointers)",
                                ar->name, bad, n);
        CUdeviceptr *now = malloc(n * sizeof *now);
        if (!now) return kc_case_fail(k, KC_INTERNAL, "no host memory to read pointer array %s back", ar->name);
        CUresult r = gpu->cu.MemcpyDtoH(now, k->dev[0][a], n * sizeof *now);
        if (r != CUDA_SUCCESS) {
            free(now);
            return kc_case_cuda_failed(gpu, k, r, "reading back the pointer array", ar->name);
        }
        size_t changed = 0, first = 0;
        for (size_t i = 0; i < n; i++)
            if (now[i] != kc_case_ptr_entry(k, 0, a, i) && !changed++) first = i;
        const unsigned long long was = kc_case_ptr_entry(k, 0, a, first), is = now[first];
        free(now);
        if (changed)
            return kc_case_fail(k, 2, "pointer array %s modified: %zu of %zu pointers changed, first %s[%zu] was 0x%llx now 0x%llx",
                                ar->name, changed, n, ar->name, first, was, is);
    }
    return 0;
}

/* Gate 2's checks, queued as one batch (harness.h): both guard bands of
 * every buffer, every input against its pristine copy, every output's
 * poison. The verdicts are then read in the order of the checks, so the
 * first failure named is the one a check-by-check scan names. */
int kc_gate2(kc_gpu *gpu, const kc_kernels *K, kc_case *k)
{
    const size_t G = KC_GUARD_BYTES;
    int before[KC_MAX_ARGS], after[KC_MAX_ARGS], in[KC_MAX_ARGS], out[KC_MAX_ARGS];
    kc_check_batch b;
    kc_batch_begin(&b);
    for (int a = 0; a < k->nargs; a++) {
        const kc_arg *ar = &k->c->args[a];
        before[a] = after[a] = in[a] = out[a] = -1;
        if (!kc_arg_owns_buffer(ar)) continue;
        const CUdeviceptr data = kc_case_data(k, 0, a);
        before[a] = kc_batch_count_not(gpu, &b, k->dev[0][a], k->front[a], kc_case_guard_byte(ar));
        after[a] = kc_batch_count_not(gpu, &b, data + k->bytes[a], G, kc_case_guard_byte(ar));
        if (ar->role == KC_IN)
            in[a] = kc_batch_count_differs(gpu, &b, k->in[a], data, k->count[a], kc_dtype_size(ar->dtype));
        if (ar->role == KC_OUT)
            out[a] = kc_batch_count_unwritten(gpu, &b, data, 0, k->count[a], kc_dtype_size(ar->dtype), KC_POISON_A, 0);
    }
    for (int a = 0; a < k->nargs; a++)
        if (k->c->args[a].kind == KC_ARG_PTR_ARRAY && k->count[a])
            after[a] = kc_batch_count_not(gpu, &b, k->dev[0][a] + k->count[a] * sizeof(CUdeviceptr), G, KC_CANARY);
    CUresult r = kc_batch_finish(gpu, &b);
    if (r != CUDA_SUCCESS) return kc_case_cuda_failed(gpu, k, r, "checking the guard bands, inputs and outputs of", k->c->name);
    for (int a = 0; a < k->nargs; a++) {
        const kc_arg *ar = &k->c->args[a];
        if (!kc_arg_owns_buffer(ar)) continue;
        size_t es = kc_dtype_size(ar->dtype), F = k->front[a], bad = b.first[before[a]];
        if (bad < F)
            return kc_case_fail(k, 2, "%s: written before its start (%s byte %zu bytes before element 0, element %lld)",
                                ar->name, bad >= G ? "offset" : "guard", F - bad, -(long long)((F - bad + es - 1) / es));
        bad = b.first[after[a]];
        if (bad < G)
            return kc_case_fail(k, 2, "%s: written past its end (byte %zu after the last of %zu elements, element index %zu)",
                                ar->name, bad, k->count[a], k->count[a] + bad / es);
    }
    const int tg = check_ptr_tables(gpu, k, &b, after);
    if (tg) return tg;
    for (int a = 0; a < k->nargs; a++) {
        const kc_arg *ar = &k->c->args[a];
        if (in[a] < 0 || !b.count[in[a]]) continue;
        size_t first = b.first[in[a]], n = b.count[in[a]];
        char was[64], now[64];
        kc_value_str(ar->dtype, kc_case_value_at(gpu, k, -1, a, first), was, sizeof was);
        kc_value_str(ar->dtype, kc_case_value_at(gpu, k, 0, a, first), now, sizeof now);
        return kc_case_fail(k, 2, "input %s modified: %zu of %zu elements changed, first %s[%zu] was %s now %s",
                            ar->name, n, k->count[a], ar->name, first, was, now);
    }
    for (int a = 0; a < k->nargs; a++) {
        const kc_arg *ar = &k->c->args[a];
        if (out[a] < 0 || !b.count[out[a]]) continue;
        size_t first = b.first[out[a]], n = b.count[out[a]];
        int g;
        if ((g = confirm_unwritten(gpu, K, k, a, &n, &first))) return g;
        if (n)
            return kc_case_fail(k, 2, "output %s: %zu of %zu elements never written (poison 0x%02X after the launch, 0x%02X after a relaunch), first %s[%zu]",
                                ar->name, n, k->count[a], KC_POISON_A, KC_POISON_B, ar->name, first);
    }
    return 0;
}
