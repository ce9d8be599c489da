/* runtime_errors.c — the CUDA runtime's error codes with no CUresult twin
 * and their names, as CUDA 13.0's driver_types.h (enum cudaError) gives
 * them; the codes both APIs share are named by the driver (cuGetErrorName). */
#include "runtime_errors.h"

#include <stddef.h>

static const struct { int code; const char *name; } only_runtime[] = {
    { 9, "cudaErrorInvalidConfiguration" },      { 12, "cudaErrorInvalidPitchValue" },
    { 13, "cudaErrorInvalidSymbol" },            { 16, "cudaErrorInvalidHostPointer" },
    { 17, "cudaErrorInvalidDevicePointer" },     { 18, "cudaErrorInvalidTexture" },
    { 19, "cudaErrorInvalidTextureBinding" },    { 20, "cudaErrorInvalidChannelDescriptor" },
    { 21, "cudaErrorInvalidMemcpyDirection" },   { 22, "cudaErrorAddressOfConstant" },
    { 23, "cudaErrorTextureFetchFailed" },       { 24, "cudaErrorTextureNotBound" },
    { 25, "cudaErrorSynchronizationError" },     { 26, "cudaErrorInvalidFilterSetting" },
    { 27, "cudaErrorInvalidNormSetting" },       { 28, "cudaErrorMixedDeviceExecution" },
    { 31, "cudaErrorNotYetImplemented" },        { 32, "cudaErrorMemoryValueTooLarge" },
    { 35, "cudaErrorInsufficientDriver" },       { 37, "cudaErrorInvalidSurface" },
    { 43, "cudaErrorDuplicateVariableName" },    { 44, "cudaErrorDuplicateTextureName" },
    { 45, "cudaErrorDuplicateSurfaceName" },     { 49, "cudaErrorIncompatibleDriverContext" },
    { 52, "cudaErrorMissingConfiguration" },     { 53, "cudaErrorPriorLaunchFailure" },
    { 65, "cudaErrorLaunchMaxDepthExceeded" },   { 66, "cudaErrorLaunchFileScopedTex" },
    { 67, "cudaErrorLaunchFileScopedSurf" },     { 68, "cudaErrorSyncDepthExceeded" },
    { 69, "cudaErrorLaunchPendingCountExceeded" }, { 98, "cudaErrorInvalidDeviceFunction" },
    { 103, "cudaErrorSoftwareValidityNotEstablished" }, { 127, "cudaErrorStartupFailure" },
};

const char *kc_cuda_runtime_error_name(int code)
{
    for (size_t i = 0; i < sizeof only_runtime / sizeof only_runtime[0]; i++)
        if (only_runtime[i].code == code) return only_runtime[i].name;
    return NULL;
}
