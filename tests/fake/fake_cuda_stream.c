/* fake_cuda_stream.c — the fake driver's streams (fake_cuda.c says what the
 * library is): which handles are streams (stream 0, CU_STREAM_LEGACY,
 * CU_STREAM_PER_THREAD and the created ones), their creation, destruction
 * and synchronization, with the per-thread default stream's
 * cuStreamSynchronize_ptsz, and the streams a process never destroyed,
 * named on stderr at its exit. */
#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "fake_cuda.h"
#include "fake_cuda_state.h"

/* Stream 0 and the two handles every context has (cuda.h). */
int special_stream(CUstream s) { return !s || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD; }

/* Streams: the fake runs every launch at once, in order, so a stream is a
 * token (one of FAKE_STREAMS slots). A launch on, or a destroy of, a stream
 * that is not live fails; streams a live context never destroyed are named
 * on stderr at exit, where a test sees them (tests/test_sanitize_target.c). */
#define FAKE_STREAMS 64
static _Atomic unsigned char stream_live[FAKE_STREAMS];
static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;    /* a slot's taking and its giving back */
int stream_slot(CUstream s)
{
    uintptr_t i = (uintptr_t)s - 0x57001;
    return s && i < FAKE_STREAMS && stream_live[i] ? (int)i : -1;
}
CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
    CONTEXT_CALL();
    if (!s || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING)) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&streams_lock);
    for (int i = 0; i < FAKE_STREAMS; i++)
        if (!stream_live[i]) {
            stream_live[i] = 1;
            *s = (CUstream)(uintptr_t)(0x57001 + i);
            r = CUDA_SUCCESS;
            break;
        }
    pthread_mutex_unlock(&streams_lock);
    return r;
}
CUresult cuStreamDestroy(CUstream s)
{
    CONTEXT_CALL();
    pthread_mutex_lock(&streams_lock);
    int i = stream_slot(s);
    if (i >= 0) stream_live[i] = 0;
    pthread_mutex_unlock(&streams_lock);
    return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}
/* A stream's work is done at once (launches run when made): what a
 * synchronization sees is the context's fault, as cuCtxSynchronize's. */
CUresult cuStreamSynchronize(CUstream s)
{
    CONTEXT_CALL();
    if (!special_stream(s) && stream_slot(s) < 0) return CUDA_ERROR_INVALID_HANDLE;
    see_late();
    return fake_sticky;
}
CUresult cuStreamSynchronize_ptsz(CUstream s);
CUresult cuStreamSynchronize_ptsz(CUstream s) { return cuStreamSynchronize(s); }
__attribute__((destructor)) static void streams_left(void)
{
    int n = 0;
    for (int i = 0; i < FAKE_STREAMS; i++) n += stream_live[i];
    if (n && !fake_sticky) fprintf(stderr, "fake_cuda: %d stream%s created and never destroyed\n", n, n == 1 ? "" : "s");
}
