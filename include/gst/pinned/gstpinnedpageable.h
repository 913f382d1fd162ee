/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#pragma once

#include <gst/gst.h>
#include <gst/pinned/gstpinnedcontext.h>

G_BEGIN_DECLS

/**
 * GstPinnedPageableMode:
 * @GST_PINNED_PAGEABLE_AUTO: register memory that comes back, stage the
 *   rest
 * @GST_PINNED_PAGEABLE_REGISTER: page-lock pageable memory at first sight
 *   (cudaHostRegister()), within the byte bound; stage what cannot be
 * @GST_PINNED_PAGEABLE_STAGE: copy through page-locked staging buffers on
 *   several threads, overlapped with the DMA
 * @GST_PINNED_PAGEABLE_DIRECT: hand pageable memory to CUDA as it is (its
 *   own staging, on the calling thread)
 *
 * How frames in pageable (not page-locked) host memory are copied.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_PINNED_PAGEABLE_AUTO,
  GST_PINNED_PAGEABLE_REGISTER,
  GST_PINNED_PAGEABLE_STAGE,
  GST_PINNED_PAGEABLE_DIRECT,
} GstPinnedPageableMode;

#define GST_TYPE_PINNED_PAGEABLE_MODE (gst_pinned_pageable_mode_get_type ())
GST_PINNED_API
GType gst_pinned_pageable_mode_get_type (void);

/**
 * GstPinnedPageablePath:
 * @GST_PINNED_PATH_PINNED: gst-pinned page-locked or device memory
 * @GST_PINNED_PATH_LOCKED: page-locked memory of another owner
 * @GST_PINNED_PATH_REGISTERED: memory this object registered
 * @GST_PINNED_PATH_STAGED: pageable memory, through threaded staging
 * @GST_PINNED_PATH_DIRECT: pageable memory, through CUDA's staging
 *
 * The ways a memory of a frame went, for gst_pinned_pageable_get_count().
 *
 * Since: 0.1
 */
typedef enum
{
  GST_PINNED_PATH_PINNED,
  GST_PINNED_PATH_LOCKED,
  GST_PINNED_PATH_REGISTERED,
  GST_PINNED_PATH_STAGED,
  GST_PINNED_PATH_DIRECT,
  /*< private >*/
  GST_PINNED_PATH_LAST
} GstPinnedPageablePath;

#define GST_TYPE_PINNED_PAGEABLE (gst_pinned_pageable_get_type ())
GST_PINNED_API
G_DECLARE_FINAL_TYPE (GstPinnedPageable, gst_pinned_pageable, GST,
    PINNED_PAGEABLE, GstObject);

GST_PINNED_API
GstPinnedPageable *   gst_pinned_pageable_new          (GstPinnedContext * context);

GST_PINNED_API
void                  gst_pinned_pageable_set_mode     (GstPinnedPageable * self,
                                                        GstPinnedPageableMode mode);

GST_PINNED_API
GstPinnedPageableMode gst_pinned_pageable_get_mode     (GstPinnedPageable * self);

GST_PINNED_API
void                  gst_pinned_pageable_set_threads  (GstPinnedPageable * self,
                                                        guint n_threads);

GST_PINNED_API
guint                 gst_pinned_pageable_get_threads  (GstPinnedPageable * self);

GST_PINNED_API
guint                 gst_pinned_pageable_get_running_threads (GstPinnedPageable * self);

GST_PINNED_API
void                  gst_pinned_pageable_set_register_limit (GstPinnedPageable * self,
                                                        guint64 bytes);

GST_PINNED_API
guint64               gst_pinned_pageable_get_registered_bytes (GstPinnedPageable * self);

GST_PINNED_API
void                  gst_pinned_pageable_set_staging_allocator (GstPinnedPageable * self,
                                                        GstAllocator * allocator);

GST_PINNED_API
guint                 gst_pinned_pageable_get_n_held   (GstPinnedPageable * self);

GST_PINNED_API
guint64               gst_pinned_pageable_get_count    (GstPinnedPageable * self,
                                                        GstPinnedPageablePath path);

GST_PINNED_API
GstStructure *        gst_pinned_pageable_get_stats    (GstPinnedPageable * self);

GST_PINNED_API
gboolean              gst_pinned_pageable_flush        (GstPinnedPageable * self,
                                                        GError ** error);

G_END_DECLS
