# gst-pinned
# Copyright (C) 2026 gst-pinned developers
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Library General Public
# License as published by the Free Software Foundation; either
# version 2.1 of the License, or (at your option) any later version.
"""Runs a Python script of the tree against a build folder, as
`meson devenv -C BUILD` would: GStreamer finds the plugin, GObject
introspection the typelib, the loader the library, Python the GstPinned
override (src/python of the source tree). The loader reads LD_LIBRARY_PATH at
start only, so the script starts again once with the environment set.

    import pinnedenv
    build = pinnedenv.setup(sys.argv)       # BUILD is argv[1] (default build)
    pinnedenv.require_torch_gpu("GstApp")   # or exit 77: what a GPU script needs
"""
import os
import sys

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _prepend(env, name, value):
    old = env.get(name)
    env[name] = value + (os.pathsep + old if old else "")


def setup(argv):
    """Sets the environment for the build folder argv[1] (removed from
    argv), starting the script again if it must. Returns the folder."""
    args = list(argv)
    if len(argv) > 1 and not argv[1].startswith("-"):
        build = argv.pop(1)
    else:
        build = os.path.join(SOURCE, "build")
    build = os.path.abspath(build)
    if not os.path.isdir(os.path.join(build, "src")):
        sys.exit("%s is no build folder of gst-pinned (meson setup BUILD)"
                 % build)
    if os.environ.get("GST_PINNED_PYENV") != build:
        env = dict(os.environ)
        # GStreamer reads GST_PLUGIN_PATH_1_0 instead of GST_PLUGIN_PATH
        # where it is set (a runtime folder's environment may set it).
        _prepend(env, "GST_PLUGIN_PATH_1_0" if "GST_PLUGIN_PATH_1_0" in env
                 else "GST_PLUGIN_PATH", os.path.join(build, "gst"))
        _prepend(env, "GI_TYPELIB_PATH", os.path.join(build, "src"))
        _prepend(env, "LD_LIBRARY_PATH", os.path.join(build, "src"))
        _prepend(env, "PYTHONPATH", os.path.join(SOURCE, "src", "python"))
        env["GST_PINNED_PYENV"] = build
        os.execve(sys.executable, [sys.executable] + args, env)
    return build


def skip(why):
    print("SKIP: %s" % why)
    sys.exit(77)


def require_torch_gpu(*namespaces):
    """Exits 77 (skip) unless PyGObject with Gst, GstVideo, GstPinned and
    @namespaces, PyTorch with a CUDA device, and a build with DLPack are
    there: what the GPU tensor scripts need."""
    try:
        import gi
        for ns in ("Gst", "GstVideo", "GstPinned") + namespaces:
            gi.require_version(ns, "1.0")
        from gi.repository import GstPinned
    except (ImportError, ValueError, AttributeError) as e:
        # AttributeError: no PyGObject, and the override's gi/ folder alone
        skip("no PyGObject or no GstPinned typelib (%s)" % e)
    try:
        import torch
    except ImportError:
        skip("no PyTorch")
    if not torch.cuda.is_available():
        skip("no CUDA device for PyTorch")
    if not hasattr(GstPinned, "tensor_import"):
        skip("gst-pinned was built without DLPack")
