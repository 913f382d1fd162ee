/* gst-pinned tests: a kernel that keeps its stream busy for a while, as
 * torch.cuda._sleep() does in the seed tutorial, so that a copy enqueued
 * after it runs late and the host can race it. */

#include <cuda_runtime.h>

__global__ void
pinned_test_spin_kernel (unsigned long long ns)
{
  unsigned long long start, now;

  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (start));
  do {
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (now));
  } while (now - start < ns);
}

extern "C" int
pinned_test_spin (void *stream, unsigned long long ns)
{
  pinned_test_spin_kernel <<< 1, 1, 0, (cudaStream_t) stream >>> (ns);
  return (int) cudaGetLastError ();
}
