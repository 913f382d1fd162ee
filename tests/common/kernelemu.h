/* gst-pinned
 * Copyright (C) 2026 gst-pinned developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The shipped filters' kernels as CPU emulations on the stand-in runtime,
 * shared by the suites that run the filters there. */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* On the stand-in, registers pinnedconvert's kernel (the kernel's own
 * fixed-point function, gst/kernels/convert.h, pixel by pixel), pinnedbatch's
 * (gst/kernels/batch.h, likewise, reading its slot table from device memory)
 * and pinnedbusy's (a sleep of its busy time): what the elements hand their
 * kernels (pointers, pitches, channels, coefficients) is then checked by
 * their output. On a GPU the real kernels run: nothing to do. */
void pinned_test_emulate_kernels (void);

G_END_DECLS
