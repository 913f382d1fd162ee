/* gst-pinned: the pinnedconvert kernel, one thread a pixel. */

#include <cuda_runtime.h>
#include "convert.h"

extern "C" __global__ void
pinned_convert_kernel (PinnedConvertParams p)
{
  int32_t x = blockIdx.x * blockDim.x + threadIdx.x;
  int32_t y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x < p.width && y < p.height)
    pinned_convert_pixel (&p, x, y);
}

extern "C" int
pinned_convert_launch (const PinnedConvertParams * params, void *stream)
{
  dim3 block (32, 8);
  dim3 grid ((params->width + block.x - 1) / block.x,
      (params->height + block.y - 1) / block.y);

  pinned_convert_kernel <<< grid, block, 0, (cudaStream_t) stream >>> (*params);
  return (int) cudaGetLastError ();
}
