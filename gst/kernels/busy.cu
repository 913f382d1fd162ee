/* gst-pinned: the pinnedbusy kernel, which keeps the GPU busy for a given
 * time, so that overlap with copies can be measured. */

#include <cuda_runtime.h>
#include "busy.h"

extern "C" __global__ void
pinned_busy_kernel (unsigned long long ns)
{
  unsigned long long start, now;

  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (start));
  do {
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (now));
  } while (now - start < ns);
}

extern "C" int
pinned_busy_launch (unsigned long long ns, void *stream)
{
  pinned_busy_kernel <<< 1, 1, 0, (cudaStream_t) stream >>> (ns);
  return (int) cudaGetLastError ();
}
