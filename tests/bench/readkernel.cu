/* gst-pinned benchmark: a kernel that reads every byte of a frame once, as
 * a GPU filter reads its input, from device memory or from mapped host
 * memory over the link (zero copy). */

#include <cuda_runtime.h>

__global__ void
bench_read_kernel (const uint4 * data, size_t n_vec, unsigned long long *sum)
{
  unsigned long long acc = 0;
  size_t i;

  for (i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n_vec;
      i += (size_t) gridDim.x * blockDim.x) {
    uint4 v = data[i];

    acc += v.x + v.y + v.z + v.w;
  }
  atomicAdd (sum, acc);
}

/* Sums @size bytes at @data (a multiple of 16) into *@sum, on @stream. */
extern "C" int
bench_read (const void *data, size_t size, unsigned long long *sum,
    void *stream)
{
  size_t n_vec = size / 16;
  unsigned int blocks = (unsigned int) ((n_vec + 255) / 256);

  if (blocks > 1024)
    blocks = 1024;
  if (blocks == 0)
    blocks = 1;
  bench_read_kernel <<< blocks, 256, 0, (cudaStream_t) stream >>>
      ((const uint4 *) data, n_vec, sum);
  return (int) cudaGetLastError ();
}
