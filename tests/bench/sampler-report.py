#!/usr/bin/env python3
# Sums up the samples of tests/bench/sampler.c: CPU share by library and by
# function (self: where the sample was taken; inclusive: anywhere on its
# stack), for the busiest thread of a name, and who calls a function.
#
#   sampler-report.py SAMPLES [--thread NAME|all] [--skip NAME]
#                     [--callers FUNCTION ...]
#
# gst-pinned's own libraries are symbolised from build/ with addr2line
# (their functions are hidden from the dynamic symbol table); the others
# by the exported symbol the sampler saw, or '?'.
import argparse
import collections
import glob
import os
import subprocess

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument('samples')
ap.add_argument('--thread', default='src:src',
                help='thread name; its busiest thread is reported '
                '("all": every thread together)')
ap.add_argument('--callers', nargs='*', default=[])
ap.add_argument('--skip', action='append', default=[],
                help='with --thread all: leave out threads of this name')
ap.add_argument('--top', type=int, default=40)
args = ap.parse_args()

ours = {}
for p in glob.glob(top + '/build/src/*.so*') + glob.glob(top + '/build/gst/*.so'):
    ours.setdefault(os.path.basename(p), p)

samples = []
for line in open(args.samples):
    f = line.split()
    if len(f) >= 3:
        if f[0].split('/', 1)[1] not in args.skip:
            samples.append((f[0], f[2:]))   # f[1]: the signal trampoline

threads = collections.Counter(t for t, _ in samples)
if args.thread == 'all':
    # Every thread together (many streams), with the share of each name.
    names = collections.Counter(t.split('/', 1)[1] for t, _ in samples)
    print('threads: %s' % ', '.join('%s %.1f%%' % (n, 100.0 * c / len(samples))
                                     for n, c in names.most_common(12)))
    thread = 'all'
    picked = [fr for _, fr in samples]
else:
    named = [t for t, _ in threads.most_common()
             if t.split('/', 1)[1] == args.thread]
    if not named:
        raise SystemExit('no thread named %s: %s' % (args.thread,
                                                    threads.most_common(8)))
    thread = named[0]
    picked = [fr for t, fr in samples if t == thread]

def split(frame):
    lib, rest = frame.split('+', 1)
    off, sym = rest.split(':', 1)
    return lib, int(off, 16) if off.startswith('0x') else 0, sym

resolved = {}
wanted = collections.defaultdict(set)
for fr in picked:
    for x in fr:
        lib, off, _ = split(x)
        if lib in ours:
            wanted[lib].add(off)
for lib, offs in wanted.items():
    offs = sorted(offs)
    # Return addresses point after the call: look up the call itself.
    out = subprocess.run(['addr2line', '-f', '-e', ours[lib]] +
                         ['0x%x' % max(o - 1, 0) for o in offs],
                         capture_output=True, text=True).stdout.split('\n')
    for k, o in enumerate(offs):
        resolved[(lib, o)] = out[2 * k]

def name(x):
    lib, off, sym = split(x)
    short = lib.split('.so')[0]
    fn = resolved.get((lib, off))
    return '%s:%s' % (short, fn if fn and fn != '??' else (sym or '?'))

total = len(picked)
by_lib = collections.Counter()
self_ = collections.Counter()
incl = collections.Counter()
stacks = []
for fr in picked:
    names = [name(x) for x in fr]
    stacks.append(names)
    self_[names[0]] += 1
    by_lib[names[0].split(':')[0]] += 1
    for n in set(names):
        incl[n] += 1

print('thread %s: %d samples (threads: %s)' % (thread, total,
      ', '.join('%s %d' % t for t in threads.most_common(6))))
for title, counter, k in (('self, by library', by_lib, 15),
                          ('self', self_, args.top),
                          ('inclusive', incl, args.top)):
    print('--- %s' % title)
    for n, c in counter.most_common(k):
        print('%6.1f%% %s' % (100.0 * c / total, n))
for target in args.callers:
    chains = collections.Counter()
    for names in stacks:
        for i, n in enumerate(names):
            if n.endswith(':' + target):
                chains[' <- '.join(names[i:i + 5])] += 1
                break
    print('--- callers of %s' % target)
    for n, c in chains.most_common(10):
        print('%6.1f%% %s' % (100.0 * c / total, n))
