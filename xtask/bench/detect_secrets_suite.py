"""The detect-secrets cases of `cargo xtask bench --only redact`, with detect-secrets' verdicts.

Run by the benchmark with the interpreter of target/detect-secrets-venv (detect-secrets
installed there, pinned) and the path of the same version's sdist, both fetched from PyPI by
the benchmark itself; nothing of detect-secrets is kept in the repository.

Where the cases come from, in this order:
  1. the sdist's own plugin tests (`tests/plugins/*_test.py`): detect-secrets' sdists and
     wheels carry none (1.5.0, 1.4.0, 1.0.3 and 0.14.3 checked), so a pin that does would
     need an extractor first, and this script stops saying so rather than count nothing;
  2. the package's documented examples: every `# e.g.` comment (and its `# or` lines) above
     a detection regex in `detect_secrets/plugins/*.py` is a positive case of that plugin's
     family, its secret the quoted value (else the word after the operator); every example
     line in a filter's docstring that says what the filter drops
     (`detect_secrets/filters/heuristic.py`) is a negative case.

Further arguments, when given, are JSONL files of further cases (the bench passes the files
`$REMAIND_SECRET_SUITE` lists): one object a line with "family", "positive", "text", "secret"
and optionally "filename" (the file name the case is scanned as; default `case.txt`) and
"source", e.g. the cases of a scanner's own test suite extracted outside the repository. Each
file's cases are the suite named by its file stem (`gitleaks.jsonl` -> "gitleaks"), the
documented examples the suite "docs".

Each case is scanned by detect-secrets as a one-line file of the file type the documenting
regex serves (the keyword plugin picks its regexes by file extension), with the default
plugins and filters, as `detect-secrets scan` would. Prints one JSON object:
{"version", "test_files", "source", "suite_sources": {suite: line}, "cases": [{"suite", "family", "positive",
"text", "secret", "filename", "detect_secrets": bool}]}.
"""

import ast
import importlib
import json
import os
import re
import sys
import tarfile

from detect_secrets.core.scan import _process_line_based_plugins
from detect_secrets.settings import default_settings
from detect_secrets.util import filetype


def extension_for(file_type):
    """A file extension detect-secrets maps to `file_type`."""
    for ext in ('.py', '.go', '.m', '.cpp', '.yaml', '.txt'):
        if filetype.determine_file_type('case' + ext) == file_type:
            return ext
    for ext in ('.cls', '.java', '.js', '.swift', '.tf', '.cs', '.c', '.cnf', '.ini',
                '.properties', '.toml', '.php'):
        if filetype.determine_file_type('case' + ext) == file_type:
            return ext
    return '.txt'


def filename_for(module, regex_name):
    """The name of a one-line file whose type makes `module` use the regex `regex_name`."""
    pattern = getattr(module, regex_name, None)
    by_type = getattr(module, 'REGEX_BY_FILETYPE', None)
    if pattern is None or by_type is None:
        return 'case.txt'
    for file_type, table in by_type.items():
        if pattern in table:
            return 'case' + extension_for(file_type)
    return 'case.txt'


def secret_of(example):
    """The documented value of an example: its quoted string, else the word after `=`/`:`."""
    quoted = re.findall(r'"([^"]+)"|\'([^\']+)\'', example)
    if quoted:
        first = [a or b for a, b in quoted]
        # `"bar" == my_password`: the value comes first; `x = "bar"`: it comes last.
        return first[0] if re.match(r'\s*@?["\']', example) else first[-1]
    words = re.split(r'[=:>]+\s*', example)
    return words[-1].strip().rstrip(';')


def documented_positives(source_dir):
    cases = []
    plugins = os.path.join(source_dir, 'detect_secrets', 'plugins')
    for name in sorted(os.listdir(plugins)):
        if not name.endswith('.py') or name.startswith('_'):
            continue
        module = importlib.import_module('detect_secrets.plugins.' + name[:-3])
        with open(os.path.join(plugins, name), encoding='utf-8') as f:
            lines = f.read().splitlines()
        current = None
        examples = []
        for i, line in enumerate(lines):
            assign = re.match(r'^([A-Z_]+) = re\.compile\($', line)
            if assign:
                current = assign.group(1)
                continue
            comment = re.match(r'^\s*# (e\.g\.|or) (.*)$', line)
            if comment and current is not None:
                if comment.group(1) == 'e.g.':
                    examples.append((current, comment.group(2)))
                elif examples:
                    examples.append((current, comment.group(2)))
            elif not line.startswith(' ') and not line.startswith(')'):
                current = None
        family = name[:-3]
        for regex_name, example in examples:
            for one in example.split(' or '):
                one = one.strip()
                if not one or '...' in one:
                    continue
                cases.append({
                    'family': family,
                    'positive': True,
                    'text': one,
                    'secret': secret_of(one),
                    'filename': filename_for(module, regex_name),
                })
    return cases


def documented_negatives(source_dir):
    """The example lines of the heuristic filters' docstrings (what each filter drops)."""
    path = os.path.join(source_dir, 'detect_secrets', 'filters', 'heuristic.py')
    with open(path, encoding='utf-8') as f:
        tree = ast.parse(f.read())
    cases = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        doc = ast.get_docstring(node) or ''
        for line in doc.splitlines():
            # An example is an indented line of code between the prose: `secret = ...`.
            if line.startswith('    ') and re.search(r'\w\s*[=:]', line):
                cases.append({
                    'family': 'keyword',
                    'positive': False,
                    'text': line.strip(),
                    'secret': '',
                    'filename': 'case.py',
                })
    return cases


def suite_cases(path):
    """The cases of a JSONL suite file (see the module doc)."""
    name = os.path.splitext(os.path.basename(path))[0]
    cases = []
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            missing = [k for k in ('family', 'positive', 'text') if k not in row]
            if missing:
                sys.exit(f'{path}:{number}: no {", ".join(missing)}')
            cases.append({
                'suite': name,
                'family': row['family'],
                'positive': bool(row['positive']),
                'text': row['text'],
                'secret': row.get('secret') or ('' if row['positive'] else row['text']),
                'filename': row.get('filename') or 'case.txt',
            })
    return cases


def found_by_detect_secrets(case):
    with default_settings():
        found = [
            s.secret_value or ''
            for s in _process_line_based_plugins([(1, case['text'])], case['filename'])
        ]
    if case['positive']:
        return any(case['secret'] in value for value in found)
    return bool(found)


def main():
    sdist, work = sys.argv[1], sys.argv[2]
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
        tar.extractall(work, filter='data')
    test_files = [n for n in names if re.search(r'/tests/plugins/[^/]+_test\.py$', n)]
    if test_files:
        sys.exit(
            f'{sdist} carries {len(test_files)} plugin test files: write their extractor '
            'in xtask/bench/detect_secrets_suite.py before pinning this version'
        )
    top = os.path.join(work, names[0].split('/')[0])
    cases = documented_positives(top) + documented_negatives(top)
    for case in cases:
        case['suite'] = 'docs'
    suite_sources = {}
    for path in filter(None, sys.argv[3:]):
        extra = suite_cases(path)
        if extra:
            suite_sources[extra[0]['suite']] = f'{os.path.basename(path)}, {len(extra)} cases'
        cases += extra
    for case in cases:
        case['detect_secrets'] = found_by_detect_secrets(case)
    import importlib.metadata as metadata
    print(json.dumps({
        'version': metadata.version('detect-secrets'),
        'test_files': len(test_files),
        'source': 'documented examples (the sdist carries no tests)',
        'suite_sources': suite_sources,
        'cases': cases,
    }))


if __name__ == '__main__':
    main()
