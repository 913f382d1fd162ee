#!/usr/bin/env python3
# The public API's table in docs/test-map.md ("The public API, function by
# function") kept with the code: every function the public headers export
# (GST_PINNED_API, but the _get_type functions of their types) has a row,
# every row names only functions that exist, and every test and sabotage
# entry a row names exists (a GST_START_TEST of tests/check, a meson test,
# an id of tests/sabotage/changes.txt).
#
#   tests/api-table.py [SOURCE_ROOT]
import glob
import os
import re
import sys

top = sys.argv[1] if len(sys.argv) > 1 else \
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

exported = set()
for header in glob.glob(os.path.join(top, 'include/gst/pinned/*.h')):
    text = open(header, encoding='utf-8').read()
    for decl in re.finditer(r'GST_PINNED_API\s+(.*?);', text, re.S):
        name = re.search(r'\b(\w+)\s*\(', decl.group(1))
        if not name or name.group(1).startswith('G_DECLARE_'):
            continue
        if name.group(1).startswith('_') or name.group(1).endswith('_get_type'):
            continue
        exported.add(name.group(1))

doc = open(os.path.join(top, 'docs/test-map.md'), encoding='utf-8').read()
section = re.search(r'^## The public API, function by function\n(.*?)(?=^## |\Z)',
                    doc, re.S | re.M)
if not section:
    sys.exit('docs/test-map.md has no section "The public API, function by '
             'function"')
rows = [line for line in section.group(1).split('\n')
        if line.startswith('| `')]

tests = set()
for path in glob.glob(os.path.join(top, 'tests/check/*.c')):
    tests.update(re.findall(r'GST_START_TEST \((\w+)\)',
                            open(path, encoding='utf-8').read()))
programs = {os.path.basename(p)[:-2]
            for p in glob.glob(os.path.join(top, 'tests/check/*.c'))}
for build_file in glob.glob(os.path.join(top, 'tests/**/meson.build'),
                            recursive=True):
    text = open(build_file, encoding='utf-8').read()
    programs.update(re.findall(r"test\('([\w-]+)'", text))
    programs.update(re.findall(r"^\s*'([\w-]+)'\s*:\s*\[", text, re.M))
    # test(t + '-suffix', ...): the suffix after each check program
    for suffix in re.findall(r"test\(t \+ '([\w-]+)'", text):
        programs.update(p + suffix for p in list(programs))
changes = set(re.findall(r'^== (\S+)', open(
    os.path.join(top, 'tests/sabotage/changes.txt'), encoding='utf-8').read(),
    re.M))

problems = []
listed = set()
for row in rows:
    cells = [c.strip() for c in row.strip().strip('|').split('|')]
    if len(cells) != 3:
        problems.append('not three cells: ' + row[:80])
        continue
    names = re.findall(r'`(\w+)`', cells[0])
    for name in names:
        if name not in exported:
            problems.append('%s: in the table, not exported' % name)
        listed.add(name)
    named_tests = re.findall(r'`(test_\w+)`', cells[1])
    for t in named_tests:
        if t not in tests:
            problems.append('%s (row of %s): no such test' % (t, names[0]))
    for word in re.findall(r'`([\w-]+)`', cells[1]):
        if not word.startswith('test_') and word not in programs:
            problems.append('%s (row of %s): no such test program'
                            % (word, names[0]))
    if not named_tests and '*none*' not in cells[1] and \
            not re.findall(r'`([\w-]+)`', cells[1]):
        problems.append('row of %s names no test' % names[0])
    for ident in re.findall(r'`([\w-]+)`', cells[2]):
        if ident not in changes:
            problems.append('%s (row of %s): no such sabotage entry'
                            % (ident, names[0]))

for name in sorted(exported - listed):
    problems.append('%s: exported, no row in the table' % name)

for p in problems:
    print(p)
print('%d public functions, %d rows, %d problems'
      % (len(exported), len(rows), len(problems)))
sys.exit(1 if problems else 0)
