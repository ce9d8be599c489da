// kcontract_watchdog.cuh — a kernel's own hang watchdog, whose bound
// kcontract sets. A kernel that polls (an mbarrier phase, a flag another
// block sets) may give up after a bound and trap instead of spinning until
// its process is killed: the launch fails with CUDA_ERROR_LAUNCH_FAILED and
// gate 1 reports the hang in a fraction of a second (a planted lost
// transaction, a wrong phase parity). The bound is wall time (%globaltimer),
// and a healthy wait is not always short: under compute-sanitizer every
// instrumented access is slow, and racecheck's device side waits for its
// host analysis (H100, racecheck with one analysis thread: a healthy TMA +
// wgmma GEMM trapped at 250 ms; docs/receipts/2026-12-05-h100-gpu-time). So
// the bound is a module variable, KC_WATCHDOG_SYMBOL (kcontract.h), which
// the sanitizer's target raises to KC_WATCHDOG_UNDER_TOOL_NS after loading
// the module, where the module's own is lower (sanitize_target.h); the
// gates leave the module's default. Use:
//     #include "kcontract_watchdog.cuh"     // at file scope, once a module
//     const unsigned long long t0 = kc_globaltimer_ns();
//     while (!ready()) if (kc_watchdog_expired(t0)) __trap();
// A module may set its default before the include:
//     #define KC_WATCHDOG_NS 100000000ull   // 100 ms
#ifndef KCONTRACT_WATCHDOG_CUH
#define KCONTRACT_WATCHDOG_CUH
#include "kcontract.h"

#ifndef KC_WATCHDOG_NS
// 250 ms: the longest wait a healthy kernel saw outside a sanitizer is the
// other contexts' time slices on the GPU: a few milliseconds each under
// --jobs, 108 ms beside a control's four sanitizer sessions (H200,
// docs/receipts/2026-12-04-h200-stalls, the launch probe).
#define KC_WATCHDOG_NS 250000000ull
#endif

// The bound in nanoseconds (KC_WATCHDOG_SYMBOL). C linkage: the harness
// finds it by that name, unmangled even where the header is included inside
// a namespace. In constant memory: a kernel cannot write it, so it carries
// no state from one item to the next and the module may still be kept
// loaded across items in flight (module_cache.h keeps no module with
// .nv.global variables).
extern "C" {
__constant__ unsigned long long kc_watchdog_ns = KC_WATCHDOG_NS;
}

// The GPU's global timer, nanoseconds (PTX %globaltimer; its ticks are
// coarse, about a microsecond: fine for a bound of milliseconds).
static __device__ __forceinline__ unsigned long long kc_globaltimer_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Whether a wait that began at t0 (kc_globaltimer_ns) has passed the bound.
static __device__ __forceinline__ bool kc_watchdog_expired(unsigned long long t0)
{
    return kc_globaltimer_ns() - t0 > kc_watchdog_ns;
}
#endif
