#!/usr/bin/env python3
# The house rules of src/ and gst/ (docs/design.md, "The pieces"), checked
# on the source text:
#
#   size     no file of src/ or gst/ has more than 800 lines;
#   loops    no two families call each other in a loop. A family is the
#            functions one file exports (not static); file A depends on
#            file B where A names a function B exports (a call, or its
#            address taken as a callback), or a type B defines (its
#            GST_TYPE_PINNED_X, GST_IS_PINNED_X or GST_PINNED_X cast,
#            which call its _get_type). The graph of files must have no
#            cycle: each one is printed with the edges that close it and
#            the names that make them;
#   prefix   every exported function is named for its file: its name
#            (underscores dropped) starts with the file's, and no other
#            file's name matches it further (gst_pinned_fence_wait_gate()
#            lives in gstpinnedfencewait.c, not gstpinnedfence.c). A
#            memory's file is also its allocator's, as GStreamer's
#            gstcudamemory.c is (gstpinnedhostmemory.c:
#            gst_pinned_host_allocator_*); a type's _get_type is the
#            type's own.
#
# Comments, strings and character literals are dropped before the scan.
# The exceptions, each with its reason, are EXCEPTIONS below: keep it
# short. Exits 1 listing what breaks a rule.
#
#   tests/house.py [SOURCE_ROOT]
import collections
import glob
import os
import re
import sys

MAX_LINES = 800

# Files whose exported names do not say the file (None: all of them), and
# why. Public names cannot change; everything else is renamed or moved.
EXCEPTIONS = {
    # The fence's constructor, public, in the stream's words; in
    # gstpinnedstream.c the stream and the fence would call each other.
    'src/sync/gstpinnedfence.c': {'gst_pinned_stream_record_fence'},
    # Public helpers named as GStreamer's gstcudautils.c names its own
    # (gst_cuda_handle_set_context(), gst_cuda_ensure_element_context()).
    'src/element/gstpinnedcontextutils.c': None,
    # Public: GstPinnedContext from and to a GstCudaContext, named for the
    # object they act on, and kept in the part built only with nvcodec.
    'src/interop/gstpinnedcudacontext.c': None,
    # Public: the GstCudaMemory interop (gst_pinned_cuda_*,
    # gst_pinned_caps_is_cuda(), gst_pinned_is_cuda_buffer()), likewise.
    'src/interop/gstpinnedcudamemory.c': None,
    # Public: the tensor API's error domain, flags type and plane count
    # (gst_pinned_tensor_*), named for the API as GStreamer names its
    # own, beside the layout helpers they share.
    'src/tensor/gstpinnedtensorlayout.c': None,
}

top = sys.argv[1] if len(sys.argv) > 1 else \
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TOKEN = re.compile(r'''
    /\*.*?\*/                     # a comment
  | //[^\n]*                      # a line comment
  | "(?:\\.|[^"\\\n])*"           # a string
  | '(?:\\.|[^'\\\n])+'           # a character
''', re.S | re.X)


def strip(text):
    """The code without comments, strings and characters; lines kept."""
    def blank(m):
        s = m.group(0)
        if s.startswith('"'):
            return '""'
        if s.startswith("'"):
            return "' '"
        return '\n' * s.count('\n') or ' '
    return TOKEN.sub(blank, text)


def rel(path):
    return os.path.relpath(path, top)


def family(path):
    """The name a file gives its functions, underscores dropped."""
    return os.path.basename(path).rsplit('.', 1)[0]


def plain(name):
    return name.lstrip('_').replace('_', '')


problems = []

# Size: every file of src/ and gst/.
for path in sorted(glob.glob(os.path.join(top, 'src', '**', '*'),
                             recursive=True) +
                   glob.glob(os.path.join(top, 'gst', '**', '*'),
                             recursive=True)):
    if not os.path.isfile(path) or '__pycache__' in path:
        continue
    try:
        n = sum(1 for _ in open(path, encoding='utf-8'))
    except UnicodeDecodeError:
        continue
    if n > MAX_LINES:
        problems.append('size: %s has %d lines (at most %d)'
                        % (rel(path), n, MAX_LINES))

# The C files and what each exports.
files = sorted(glob.glob(os.path.join(top, 'src', '**', '*.c'),
                         recursive=True) +
               glob.glob(os.path.join(top, 'gst', '*.c')))
code = {f: strip(open(f, encoding='utf-8').read()) for f in files}

DEFINITION = re.compile(r'^(_?gst_pinned_\w+|gst_is_pinned_\w+)\s*\(', re.M)
TYPE_DEFINE = re.compile(
    r'\b(?:G_DEFINE_(?:ABSTRACT_|FINAL_)?TYPE(?:_WITH_CODE|_WITH_PRIVATE)?'
    r'|G_DEFINE_BOXED_TYPE|GST_DEFINE_MINI_OBJECT_TYPE)\s*\(\s*\w+\s*,'
    r'\s*(\w+)')

exports = {}                     # name -> file
for f in files:
    text = code[f]
    for m in DEFINITION.finditer(text):
        # The return type is the line before (GNU style): not static.
        start = text.rfind('\n', 0, m.start() - 1) + 1
        head = text[start:m.start()]
        if re.search(r'\bstatic\b', head) or head.strip().endswith(';'):
            continue
        # A definition, not a prototype: its body follows.
        if not re.match(r'[^;{]*\{', text[m.end():]):
            continue
        exports.setdefault(m.group(1), f)
    for m in TYPE_DEFINE.finditer(text):
        exports.setdefault(m.group(1) + '_get_type', f)

# Loops.
WORD = re.compile(r'\b_?gst_(?:is_)?pinned_\w+\b')
TYPE_MACRO = re.compile(r'\bGST_(?:TYPE_|IS_)?PINNED_([A-Z0-9_]+)\b')
edges = collections.defaultdict(lambda: collections.defaultdict(set))
for f in files:
    text = code[f]
    for name in set(WORD.findall(text)):
        target = exports.get(name)
        if target and target != f:
            edges[f][target].add(name)
    for macro in set(TYPE_MACRO.findall(text)):
        name = 'gst_pinned_' + macro.lower() + '_get_type'
        target = exports.get(name)
        if target and target != f:
            edges[f][target].add(name)

# Tarjan's strongly connected components, iteratively.
index, low, on_stack, stack, loops = {}, {}, set(), [], []
counter = [0]
for root in files:
    if root in index:
        continue
    work = [(root, iter(sorted(edges[root])))]
    index[root] = low[root] = counter[0]
    counter[0] += 1
    stack.append(root)
    on_stack.add(root)
    while work:
        node, children = work[-1]
        child = next(children, None)
        if child is not None:
            if child not in index:
                index[child] = low[child] = counter[0]
                counter[0] += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[node])
        if low[node] == index[node]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == node:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

for component in loops:
    lines = ['loop: ' + ' '.join(rel(f) for f in component)]
    for a in component:
        for b in sorted(edges[a]):
            if b in component:
                lines.append('    %s -> %s: %s' % (
                    os.path.basename(a), os.path.basename(b),
                    ', '.join(sorted(edges[a][b]))))
    problems.append('\n'.join(lines))

# Prefixes.
names_of = {f: plain(family(f)) for f in files}
for name, f in sorted(exports.items()):
    if name.startswith('gst_is_') or name.endswith('_get_type'):
        continue
    allowed = EXCEPTIONS.get(rel(f), set())
    if allowed is None or name in allowed:
        continue
    flat = plain(name)
    homes = [names_of[f]]
    if names_of[f].endswith('memory'):
        homes.append(names_of[f][:-len('memory')] + 'allocator')
    own = max((h for h in homes if flat.startswith(h)), key=len, default=None)
    if own is None:
        problems.append('prefix: %s() in %s: its name does not start with '
                        'the file\'s' % (name, rel(f)))
        continue
    longer = [g for g in files if g != f and names_of[g] != names_of[f] and
              flat.startswith(names_of[g]) and len(names_of[g]) > len(own)]
    if longer:
        problems.append('prefix: %s() in %s: its name is %s\'s'
                        % (name, rel(f), rel(longer[0])))

for p in problems:
    print(p)
print('house: %d files, %d exported functions, %d loops, %d problems'
      % (len(files), len(exports), len(loops), len(problems)))
sys.exit(1 if problems else 0)
