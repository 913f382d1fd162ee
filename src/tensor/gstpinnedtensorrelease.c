/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* A consumer's end of a tensor that it did not hand over: its deleter
 * called, for DLPack 0.6's tensor and 1.x's versioned one alike. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "tensor/gstpinnedtensor-private.h"

/**
 * gst_pinned_tensor_release:
 * @tensor: (nullable): a `DLManagedTensor *`
 *
 * Calls the deleter of @tensor, as a DLPack consumer does when it is done:
 * for code that made a tensor and did not hand it over.
 *
 * Since: 0.1
 */
void
gst_pinned_tensor_release (gpointer tensor)
{
  DLManagedTensor *managed = tensor;

  if (managed && managed->deleter)
    managed->deleter (managed);
}

/**
 * gst_pinned_tensor_release_full:
 * @tensor: (nullable): a `DLManagedTensor *`, or a
 *   `DLManagedTensorVersioned *` with %GST_PINNED_TENSOR_FLAG_VERSIONED
 * @flags: #GstPinnedTensorFlags: %GST_PINNED_TENSOR_FLAG_VERSIONED says
 *   which of the two @tensor is
 *
 * Calls the deleter of @tensor, as gst_pinned_tensor_release() does, for
 * tensors of either version.
 *
 * Since: 0.2
 */
void
gst_pinned_tensor_release_full (gpointer tensor, GstPinnedTensorFlags flags)
{
  GstPinnedDLVersioned *versioned = tensor;

  if (!(flags & GST_PINNED_TENSOR_FLAG_VERSIONED))
    gst_pinned_tensor_release (tensor);
  else if (versioned && versioned->deleter)
    versioned->deleter (versioned);
}
