/* gst-pinned: the pinnedbatch kernel, one launch a batch: a thread a
 * tensor pixel (its three channels), blockIdx.z the slot. */

#include <cuda_runtime.h>
#include "batch.h"

extern "C" __global__ void
pinned_batch_kernel (PinnedBatchParams p)
{
  int32_t x = blockIdx.x * blockDim.x + threadIdx.x;
  int32_t y = blockIdx.y * blockDim.y + threadIdx.y;
  int32_t n = blockIdx.z;

  if (x < p.width && y < p.height)
    pinned_batch_pixel (&p, &p.slots[n], n, x, y);
}

extern "C" int
pinned_batch_launch (const PinnedBatchParams * params, void *stream)
{
  dim3 block (32, 8);
  dim3 grid ((params->width + block.x - 1) / block.x,
      (params->height + block.y - 1) / block.y, params->batch);

  pinned_batch_kernel <<< grid, block, 0, (cudaStream_t) stream >>> (*params);
  return (int) cudaGetLastError ();
}
