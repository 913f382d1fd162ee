#!/usr/bin/env python3
# The sabotage run: breaks the code on purpose, one small change at a time,
# and checks that the stand-in ('fake') suite notices each.
#
#   python3 tests/sabotage/run.py [--only ID,ID] [--tests NAME,NAME] [--full]
#                                 [--list] [--check] [-j N] [--keep] [--dir DIR]
#
# Each change of tests/sabotage/changes.txt is applied alone to a scratch
# copy of the tree (tracked and untracked files, never the tree itself),
# built incrementally in one scratch build folder, and the fake suite's
# tests run on it, those the change names first, in parallel, stopping at
# the first failure. A test that fails, crashes or times out catches the
# change. Before the changes, the unchanged copy must pass every test.
#
# Prints one line per change (caught, by which test; or MISSED) and a
# total; exits 0 when every change was caught. Needs meson, ninja and the
# CUDA toolkit as the build does (./setup.sh); $CUDA_PATH as setup.sh.
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHANGES = os.path.join(TOP, 'tests', 'sabotage', 'changes.txt')
# A sabotaged test that runs this long counts as hung: caught.
TEST_TIMEOUT = int(os.environ.get('SABOTAGE_TEST_TIMEOUT', '120'))


class Change:
    def __init__(self, ident):
        self.ident = ident
        self.rule = ''
        self.file = None
        self.expect = []
        self.edits = []          # (find, replace)


def parse_changes(path):
    """The format is described at the top of changes.txt."""
    changes = []
    change = None
    mode = None                  # None, 'find', 'replace'
    find = replace = None

    def close_edit():
        nonlocal find, replace, mode
        if find is not None:
            if replace is None:
                raise SystemExit('%s: "--- find" without "--- replace"'
                                 % change.ident)
            change.edits.append(('\n'.join(find), '\n'.join(replace)))
        find = replace = None
        mode = None

    for lineno, line in enumerate(open(path, encoding='utf-8'), 1):
        line = line.rstrip('\n')
        if line.startswith('== '):
            if change:
                close_edit()
            change = Change(line[3:].strip())
            changes.append(change)
            continue
        if change is None:
            continue             # the header
        if line == '--- find':
            close_edit()
            find, mode = [], 'find'
        elif line == '--- replace':
            if mode != 'find':
                raise SystemExit('%s:%d: "--- replace" without "--- find"'
                                 % (path, lineno))
            replace, mode = [], 'replace'
        elif mode == 'find':
            find.append(line)
        elif mode == 'replace':
            replace.append(line)
        elif line.startswith('rule:'):
            change.rule = line[5:].strip()
        elif line.startswith('file:'):
            change.file = line[5:].strip()
        elif line.startswith('expect:'):
            change.expect = [t.strip() for t in line[7:].split(',') if t.strip()]
        elif line.strip() and not line.startswith('#'):
            raise SystemExit('%s:%d: unexpected line: %s' % (path, lineno, line))
    if change:
        close_edit()
    # Trailing blank lines of a replacement separate blocks; drop them.
    for c in changes:
        c.edits = [(f.rstrip('\n'), r.rstrip('\n')) for f, r in c.edits]
    return changes


def apply_change(text, change):
    """The sabotaged text, or None with a reason when it does not apply."""
    for find, replace in change.edits:
        n = text.count(find)
        if n != 1:
            return None, '"%s..." found %d times' % (find.splitlines()[0][:50], n)
        text = text.replace(find, replace)
    return text, None


def tree_files():
    try:
        out = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard', '-z'],
                             cwd=TOP, check=True, capture_output=True).stdout
        return [f for f in out.decode().split('\0') if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(TOP):
            dirs[:] = [d for d in dirs if d not in ('build', '.git')]
            files += [os.path.relpath(os.path.join(root, n), TOP) for n in names]
        return files


def copy_tree(dest):
    """Copies the tree into @dest, rewriting (so that ninja sees a newer
    file) only what differs from an earlier copy."""
    for f in tree_files():
        src = os.path.join(TOP, f)
        if not os.path.isfile(src):
            continue
        dst = os.path.join(dest, f)
        data = open(src, 'rb').read()
        if os.path.exists(dst) and open(dst, 'rb').read() == data:
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, 'wb') as out:
            out.write(data)
        shutil.copymode(src, dst)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def fake_tests(build):
    tests = json.loads(run(['meson', 'introspect', '--tests', build],
                           check=True).stdout)
    return [t for t in tests if 'fake' in t['suite'] or
            any(s.endswith(':fake') for s in t['suite'])]


def run_tests(tests, build, jobs, order, full=False):
    """Runs @tests (in @order, @jobs at a time) until one fails (all of them
    if @full). Returns (failed test names, {name: seconds}, failure logs)."""
    pending = sorted(tests, key=lambda t: order(t['name']))
    running = {}
    times = {}
    failed = []
    log = ''
    base_env = dict(os.environ)
    base_env.pop('LD_LIBRARY_PATH', None)
    while (pending or running) and (full or not failed):
        while pending and len(running) < jobs:
            t = pending.pop(0)
            env = dict(base_env)
            env.update(t.get('env') or {})
            out = tempfile.TemporaryFile()
            p = subprocess.Popen(t['cmd'], env=env, cwd=t.get('workdir') or build,
                                 stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True)
            running[p] = (t, time.monotonic(), out)
        time.sleep(0.05)
        for p, (t, start, out) in list(running.items()):
            rc = p.poll()
            elapsed = time.monotonic() - start
            if rc is None and elapsed < TEST_TIMEOUT:
                continue
            if rc is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                rc = 'timeout'
            del running[p]
            times[t['name']] = elapsed
            # 77: skipped (the python test without a typelib).
            if rc not in (0, 77):
                failed.append('%s (%s)' % (t['name'], 'timed out'
                                           if rc == 'timeout' else 'exit %d' % rc))
                out.seek(0)
                log += out.read().decode(errors='replace')
            out.close()
    for p, (t, start, out) in running.items():
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        out.close()
    return failed, times, log


def failure_lines(log, n=3):
    """The lines of a test log that say what failed."""
    keep = [l for l in log.splitlines()
            if ':F:' in l or ':E:' in l or 'fakecuda:' in l or 'ERROR' in l[:40]
            or 'Bail out' in l or 'not ok' in l]
    return keep[:n]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--only', help='comma-separated change ids')
    ap.add_argument('--list', action='store_true', help='list the changes')
    ap.add_argument('--check', action='store_true',
                    help='only check that every change still applies')
    ap.add_argument('-j', '--jobs', type=int, default=os.cpu_count() or 2)
    ap.add_argument('--keep', action='store_true',
                    help='keep the scratch folder (printed)')
    ap.add_argument('--dir', help='scratch folder (default: a new temporary one)')
    ap.add_argument('--tests', help='comma-separated test names: run only '
                    'these (default: the whole fake suite)')
    ap.add_argument('--full', action='store_true',
                    help='run every test for each change and print every '
                    'failed check (slower)')
    args = ap.parse_args()

    changes = parse_changes(CHANGES)
    if args.list:
        for c in changes:
            print('%-36s %-32s %s' % (c.ident, c.file, c.rule))
        print('%d changes' % len(changes))
        return 0
    if args.only:
        wanted = args.only.split(',')
        unknown = set(wanted) - {c.ident for c in changes}
        if unknown:
            raise SystemExit('unknown change(s): ' + ', '.join(sorted(unknown)))
        changes = [c for c in changes if c.ident in wanted]

    started = time.monotonic()
    cuda = os.environ.get('CUDA_PATH', '/usr/local/cuda')
    os.environ['PATH'] = os.path.join(cuda, 'bin') + os.pathsep + os.environ['PATH']

    # Changes that no longer match the code are reported, not run.
    originals = {}
    stale = []
    for c in changes:
        path = os.path.join(TOP, c.file)
        if c.file not in originals:
            originals[c.file] = open(path, encoding='utf-8').read() \
                if os.path.exists(path) else None
        if originals[c.file] is None:
            stale.append((c, 'no file %s' % c.file))
            continue
        _, why = apply_change(originals[c.file], c)
        if why:
            stale.append((c, why))
    stale_ids = {c.ident for c, _ in stale}
    if args.check:
        for c, why in stale:
            print('%-8s %-36s does not apply: %s' % ('STALE', c.ident, why))
        print('%d of %d changes apply' % (len(changes) - len(stale), len(changes)))
        return 1 if stale else 0

    scratch = args.dir or tempfile.mkdtemp(prefix='gst-pinned-sabotage-')
    try:
        return sabotage(args, changes, originals, stale, scratch, started)
    finally:
        if not args.keep and not args.dir:
            shutil.rmtree(scratch, ignore_errors=True)


def sabotage(args, changes, originals, stale, scratch, started):
    stale_ids = {c.ident for c, _ in stale}
    src = os.path.join(scratch, 'src')
    build = os.path.join(scratch, 'build')
    print('scratch copy in %s' % scratch, flush=True)
    copy_tree(src)
    if not os.path.exists(os.path.join(build, 'build.ninja')):
        # No introspection (regenerating the typelib per change is slow;
        # the python test then skips), no examples.
        r = run(['meson', 'setup', build, src, '-Dintrospection=disabled',
                 '-Dexamples=disabled'])
        if r.returncode:
            print(r.stdout[-3000:] + r.stderr[-3000:])
            raise SystemExit('meson setup failed')
    r = run(['ninja', '-C', build])
    if r.returncode:
        print(r.stdout[-3000:])
        raise SystemExit('the unchanged tree does not build')

    tests = fake_tests(build)
    names = {t['name'] for t in tests}
    if args.tests:
        wanted = set(args.tests.split(','))
        if wanted - names:
            raise SystemExit('unknown test(s): ' + ', '.join(sorted(wanted - names)))
        tests = [t for t in tests if t['name'] in wanted]
    for c in changes:
        for e in c.expect:
            if e not in names:
                raise SystemExit('%s: expects unknown test %s (tests: %s)'
                                 % (c.ident, e, ', '.join(sorted(names))))

    failed, durations, log = run_tests(tests, build, args.jobs, lambda n: 0)
    if failed:
        print('\n'.join(log.splitlines()[-40:]))
        raise SystemExit('the unchanged tree fails %s: fix that first'
                         % ', '.join(failed))
    print('unchanged tree: %d tests pass (%.0f s)\n'
          % (len(tests), time.monotonic() - started), flush=True)

    caught = []
    missed = []
    broken = []
    for c in changes:
        if c.ident in stale_ids:
            continue
        t0 = time.monotonic()
        path = os.path.join(src, c.file)
        text, _ = apply_change(originals[c.file], c)
        try:
            with open(path, 'w', encoding='utf-8') as f:
                f.write(text)
            r = run(['ninja', '-C', build])
            if r.returncode:
                broken.append(c)
                print('%-8s %-36s does not build' % ('BROKEN', c.ident), flush=True)
                continue
            # Expected tests first, then the quickest.
            order = lambda n: (0 if n in c.expect else 1, durations.get(n, 0))
            failed, _, log = run_tests(tests, build, args.jobs, order,
                                       full=args.full)
        finally:
            with open(path, 'w', encoding='utf-8') as f:
                f.write(originals[c.file])
        secs = time.monotonic() - t0
        if failed:
            caught.append(c)
            print('%-8s %-36s by %s, %.0f s' % ('caught', c.ident,
                                                ', '.join(failed), secs),
                  flush=True)
            for l in failure_lines(log, 100 if args.full else 3):
                print('         ' + l.strip()[:150])
        else:
            missed.append(c)
            print('%-8s %-36s (%s) %.0f s' % ('MISSED', c.ident, c.rule, secs),
                  flush=True)

    run(['ninja', '-C', build])   # leave the scratch build as the tree
    total = time.monotonic() - started
    print()
    for c, why in stale:
        print('%-8s %-36s does not apply: %s' % ('STALE', c.ident, why))
    print('caught %d of %d changes (%d missed, %d do not build, %d stale), '
          '%.1f min' % (len(caught), len(changes), len(missed), len(broken),
                        len(stale), total / 60))
    return 0 if len(caught) == len(changes) else 1


if __name__ == '__main__':
    sys.exit(main())
