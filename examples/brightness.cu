/* gst-pinned example: an application's own kernel. Sums the luma of an
 * RGBA frame in device memory into a device counter. */

#include <cuda_runtime.h>
#include <stdint.h>

__global__ void
brightness_kernel (const uint8_t * rgba, int pitch, int width, int height,
    unsigned long long *sum)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  unsigned int luma = 0;

  if (x < width) {
    const uint8_t *p = rgba + (size_t) y * pitch + (size_t) x * 4;
    luma = (77 * p[0] + 150 * p[1] + 29 * p[2]) >> 8;
  }
  /* one atomic per warp */
  for (int o = 16; o > 0; o /= 2)
    luma += __shfl_down_sync (0xffffffff, luma, o);
  if ((threadIdx.x & 31) == 0)
    atomicAdd (sum, (unsigned long long) luma);
}

extern "C" int
brightness_launch (const void *rgba, int pitch, int width, int height,
    unsigned long long *sum, void *stream)
{
  dim3 block (256);
  dim3 grid ((width + 255) / 256, height);

  brightness_kernel <<< grid, block, 0, (cudaStream_t) stream >>> (
      (const uint8_t *) rgba, pitch, width, height, sum);
  return (int) cudaGetLastError ();
}
