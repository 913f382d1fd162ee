/* gst-pinned tests: the kernel of the pinnedfault test filter. On the frame
 * it is told to fault on it writes through an address no allocation holds,
 * as a buggy kernel would: the device reports cudaErrorIllegalAddress, and
 * the context is unusable from then on (a sticky error). */

#include <cuda_runtime.h>
#include <stdint.h>

#include "fault.h"

extern "C" __global__ void
pinned_test_fault_kernel (volatile unsigned int *target)
{
  if (target != NULL && threadIdx.x == 0)
    *target = 0xdeadu;
}

extern "C" int
pinned_test_fault_launch (int fault, void *stream)
{
  /* The first page is never mapped on the device. */
  volatile unsigned int *target = fault ?
      (volatile unsigned int *) (uintptr_t) 64 : NULL;

  pinned_test_fault_kernel <<< 1, 32, 0, (cudaStream_t) stream >>> (target);
  return (int) cudaGetLastError ();
}
