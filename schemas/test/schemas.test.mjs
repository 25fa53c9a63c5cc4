// The JSON Schemas editors use for claims/<owner>.yaml and rail.yaml (schemas/*.schema.json,
// contributed to VS Code by the extension's `yamlValidation`) agree with rail-core, the one
// reader that counts. Core (its Node wasm build) is the oracle, never the other way round:
//
//   1. every claim file and rail.yaml of the fixture corpus (tests/fixtures): a file core reads
//      without a diagnostic passes the schema and the YAML parser; for each diagnostic core
//      reports, the schema or the YAML parser reports a problem of the same kind on the same
//      line — except the kinds a schema cannot see (UNSEEN, with reasons);
//   2. no problem the other way: the schema reports nothing on a line core finds fine;
//   3. value by value (names, paths, times, durations): the schema accepts what core accepts,
//      except the listed DIVERGENCES, each with its reason.
//
// Run by scripts/test.sh after the wasm build: node --test schemas/test/

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const require = createRequire(import.meta.url);
const core = require(join(repo, 'wasm', 'pkg', 'node', 'rail_wasm.js'));

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const schema = (name) => JSON.parse(readFileSync(join(here, '..', name), 'utf8'));
const validators = { claim: ajv.compile(schema('claim-file.schema.json')), config: ajv.compile(schema('rail.schema.json')) };

/** Core's diagnostics codes a schema cannot see, and why. */
const UNSEEN = {
  'owner-mismatch': 'the owner must match the file name; a schema sees the content only',
  'yaml-unsupported':
    "Rail reads a subset of YAML (no anchors, tags, directives, complex keys, several documents): valid YAML, so editors' YAML parsers accept it",
};

/** What kind of schema/YAML problem stands for each core code. */
const KIND = {
  // A nested flow list is YAML, but not Rail's: the schema sees a list item that is no string.
  'yaml-syntax': ['yaml', 'type'],
  'duplicate-key': ['yaml'],
  'missing-owner': ['required', 'type', 'minLength'],
  'bad-value': ['type'],
  'bad-config': ['type', 'pattern', 'enum', 'minLength'],
  'invalid-task': ['pattern', 'maxLength', 'minLength', 'type'],
  'invalid-session': ['pattern', 'maxLength', 'minLength', 'type'],
  'invalid-resource': ['pattern', 'maxLength', 'minLength', 'type'],
  'invalid-path': ['pattern', 'type'],
  'bad-time': ['pattern', 'type'],
  'bad-duration': ['pattern', 'minLength', 'type'],
  'unknown-field': ['additionalProperties'],
};

/** Problems the schema and YAML parser find in a file: {kind, from, to} (1-based lines). */
function schemaProblems(kind, text) {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const lineOf = (offset) => lines.linePos(offset).line;
  const problems = [];
  for (const e of [...doc.errors]) problems.push({ kind: 'yaml', from: lineOf(e.pos[0]), to: lineOf(e.pos[1]), why: e.message });
  if (doc.errors.length > 0) return problems;
  const value = doc.toJS();
  const validate = validators[kind];
  if (validate(value ?? (kind === 'config' ? null : undefined))) return problems;
  for (const e of validate.errors) {
    const path = e.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (e.keyword === 'additionalProperties') path.push(e.params.additionalProperty);
    const [from, to] = span(doc, path, lineOf);
    problems.push({ kind: e.keyword, from, to, why: `${e.instancePath || '/'} ${e.message}` });
  }
  return problems;
}

/** The lines a value at `path` covers: from its key to the end of its value. */
function span(doc, path, lineOf) {
  let node = doc.contents;
  let start = node?.range?.[0] ?? 0;
  let end = node?.range?.[1] ?? 0;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && String(isScalar(p.key) ? p.key.value : p.key) === seg);
      if (!pair) break;
      start = pair.key?.range?.[0] ?? start;
      end = pair.value?.range?.[1] ?? pair.key?.range?.[1] ?? end;
      node = pair.value;
    } else if (isSeq(node)) {
      node = node.items[Number(seg)];
      if (!node) break;
      [start, end] = [node.range[0], node.range[1]];
    } else break;
  }
  return [lineOf(start), lineOf(Math.max(start, end - 1))];
}

function coreDiagnostics(kind, path, text) {
  const texts = kind === 'config' ? { config: { path, text } } : { claim_files: [{ path, text }] };
  return core.validate(texts).filter((d) => d.file === path);
}

/** Every claim file and rail.yaml in tests/fixtures. */
function corpus() {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name === 'rail.yaml') files.push({ kind: 'config', path: 'rail.yaml', full });
      else if (name.endsWith('.yaml') && (dir.endsWith('/claims') || dir.includes('/fixtures/yaml/')))
        files.push({ kind: 'claim', path: `claims/${name}`, full });
    }
  };
  walk(join(repo, 'tests', 'fixtures'));
  return files;
}

describe('the fixture corpus: schema and core agree, line by line', () => {
  const files = corpus();
  test('the corpus has valid and invalid claim files and rail.yaml', () => {
    assert.ok(files.filter((f) => f.kind === 'claim').length >= 40, `${files.length} files`);
    assert.ok(files.some((f) => f.kind === 'config'));
  });
  for (const file of files) {
    const name = file.full.slice(join(repo, 'tests', 'fixtures').length + 1);
    test(name, () => {
      const text = readFileSync(file.full, 'utf8');
      const diags = coreDiagnostics(file.kind, file.path, text);
      const problems = schemaProblems(file.kind, text);
      const show = () =>
        `core: ${JSON.stringify(diags.map((d) => `${d.line}: ${d.code}`))}; schema: ${JSON.stringify(problems.map((p) => `${p.from}-${p.to}: ${p.kind} ${p.why}`))}`;
      const seen = diags.filter((d) => !(d.code in UNSEEN));
      // After a construct Rail's YAML does not read (an anchor, a tag), core reads the rest
      // differently from YAML: what follows is not compared, line by line.
      const subset = diags.some((d) => d.code === 'yaml-unsupported');
      // After a syntax error, parsers recover differently: a YAML problem anywhere stands for
      // core's syntax errors, and the other way round.
      const yamlBroken = problems.some((p) => p.kind === 'yaml');
      const coreYaml = diags.some((d) => d.code.startsWith('yaml-') || d.code === 'duplicate-key');
      for (const d of seen) {
        const kinds = KIND[d.code];
        assert.ok(kinds, `core code ${d.code} has no KIND mapping (new diagnostic? decide how the schema sees it); ${show()}`);
        const match = problems.some((p) => kinds.includes(p.kind) && p.from <= d.line && d.line <= p.to);
        assert.ok(
          match || subset || (yamlBroken && d.code !== 'missing-owner'),
          `line ${d.line} ${d.code}: no ${kinds.join('/')} problem there; ${show()}`,
        );
      }
      for (const p of problems) {
        const explained =
          diags.some((d) => p.from <= d.line && d.line <= p.to) ||
          (p.kind === 'yaml' && coreYaml) ||
          (p.kind === 'required' && diags.some((d) => d.code === 'missing-owner'));
        assert.ok(explained, `the schema's ${p.kind} on lines ${p.from}-${p.to} has no core diagnostic there; ${show()}`);
      }
    });
  }
});

/** Values whose verdicts differ on purpose: a schema cannot say it, and what happens then. */
const DIVERGENCES = {
  'since: 2026-02-30T10:00Z': 'a pattern cannot know month lengths; core refuses Feb 30 (bad-time)',
  'lease: 4000d': 'the ten-year cap is arithmetic, not a pattern; core refuses it (bad-duration)',
  [`task: ${'a'.repeat(127)}é`]: 'maxLength counts characters, core counts bytes (128)',
};

const cases = {
  task: [
    'auth-refresh',
    'tâche-2',
    'a.b_c+d#e:f@g',
    '1st',
    '-lead',
    '../x',
    'a..b',
    'a/b',
    'a b',
    'a|b',
    `${'a'.repeat(128)}`,
    `${'a'.repeat(129)}`,
    `${'a'.repeat(127)}é`,
  ],
  owner: ['session-a', 'feature/search', 'alice@laptop', 'a//b', 'a/', 'a/.hidden', 'x.lock', 'x.', '.x', 'two words', 'a..b'],
  branch: ['main', 'feature/x', 'feature//x'],
  lease: ['90s', '45m', '2h', '1h30m', '1d', '0m', '0h30m', '30m1h', '2h2h', 'h', '2x', '2 h', '4000d'],
  since: [
    '2026-10-22T14:05Z',
    '2026-10-22T14:05:09Z',
    '2026-10-22T14:05:09.25Z',
    '2026-10-22 14:05+02:00',
    '2026-10-22T14:05+0200',
    '2026-10-22T14:05',
    '2026-13-01T00:00Z',
    '2026-02-30T10:00Z',
    'yesterday',
    '2026-10-22T24:00Z',
  ],
  resources: ['port:3000', 'shared:simulator:x', 'shared:', 'a b', 'a,b', 'a|b'],
  paths: [
    'src/auth/**',
    'src/*.ts',
    '{web,api}/src/**',
    'src/billing/',
    'docs/billing.md',
    '/etc/passwd',
    '../up',
    'a//b',
    'a/./b',
    'a\\b',
    '!neg',
    'a**',
    '**/x.md',
  ],
};

describe('value by value: the schema accepts what core accepts', () => {
  for (const [key, values] of Object.entries(cases)) {
    for (const value of values) {
      const list = key === 'resources' || key === 'paths';
      const quoted = JSON.stringify(value);
      const text = key === 'owner' ? `owner: ${quoted}\n` : `owner: someone\n${key}: ${list ? `[${quoted}]` : quoted}\n`;
      const label = `${key}: ${value}`;
      test(label, () => {
        const coreOk = coreDiagnostics('claim', 'claims/x.yaml', text).filter((d) => d.code !== 'owner-mismatch').length === 0;
        const schemaOk = schemaProblems('claim', text).length === 0;
        if (label in DIVERGENCES)
          assert.notEqual(schemaOk, coreOk, `listed as a divergence (${DIVERGENCES[label]}) but they agree: take it off the list`);
        else assert.equal(schemaOk, coreOk, `core ${coreOk ? 'accepts' : 'refuses'} it, the schema ${schemaOk ? 'accepts' : 'refuses'} it`);
      });
    }
  }
  test('rail.yaml: settings and their values', () => {
    for (const text of [
      'lease: 1h\nexpiring: 30m\n',
      'on_stop: renew\n',
      'on_stop: maybe\n',
      'hook_failure: warn\n',
      'hook_failure: x\n',
      'lock_timeout: 0s\n',
      'colour: red\n',
      'check: cargo test\nremote: origin\n',
      '',
    ]) {
      const coreOk = coreDiagnostics('config', 'rail.yaml', text).length === 0;
      const schemaOk = schemaProblems('config', text).length === 0;
      assert.equal(schemaOk, coreOk, `${JSON.stringify(text)}: core ${coreOk}, schema ${schemaOk}`);
    }
  });
});

test('the schema knows the keys core knows', () => {
  // core's own list, as its unknown-key warning prints it.
  const known = (kind, text) => {
    const d = coreDiagnostics(kind, kind === 'config' ? 'rail.yaml' : 'claims/x.yaml', text).find((x) => x.code === 'unknown-field');
    return d.message
      .match(/\(known: (.*)\)/)[1]
      .split(', ')
      .sort();
  };
  assert.deepEqual(Object.keys(schema('claim-file.schema.json').properties).sort(), known('claim', 'owner: x\nzz: 1\n'));
  assert.deepEqual(Object.keys(schema('rail.schema.json').properties).sort(), known('config', 'zz: 1\n'));
});

test('the extension contributes both schemas to YAML editing, from the files its build copies', () => {
  const pkg = JSON.parse(readFileSync(join(repo, 'vscode-extension', 'package.json'), 'utf8'));
  const contributed = Object.fromEntries(pkg.contributes.yamlValidation.map((v) => [v.url, v.fileMatch]));
  assert.deepEqual(contributed, {
    './dist/schemas/claim-file.schema.json': ['claims/*.yaml'],
    './dist/schemas/rail.schema.json': ['rail.yaml'],
  });
  const build = readFileSync(join(repo, 'vscode-extension', 'scripts', 'build.mjs'), 'utf8');
  for (const url of Object.keys(contributed)) {
    const name = url.split('/').pop();
    assert.ok(existsSync(join(here, '..', name)), `schemas/${name}`);
    assert.ok(build.includes(`'${name}'`), `vscode-extension/scripts/build.mjs copies ${name} into dist/schemas`);
  }
  assert.match(readFileSync(join(repo, 'vscode-extension', '.vscodeignore'), 'utf8'), /^!dist\/schemas\/\*\*$/m);
});
