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

#ifndef GST_PINNED_API
# ifdef BUILDING_GST_PINNED
#  define GST_PINNED_API GST_API_EXPORT
# else
#  define GST_PINNED_API GST_API_IMPORT
# endif
#endif
