// The extension's manifest as a store and VS Code read it: the icon is a 128x128 PNG, the
// Marketplace fields are there, Restricted Mode and virtual workspaces are declared as the code
// behaves (src/host/trust.ts), and what the manifest names is in the package (.vscodeignore).

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { EXTENSION_DIR } from '../shared/fixtures';

const pkg = JSON.parse(fs.readFileSync(path.join(EXTENSION_DIR, 'package.json'), 'utf8'));
const ignore = fs.readFileSync(path.join(EXTENSION_DIR, '.vscodeignore'), 'utf8');

test('the icon is a 128x128 PNG in the package', () => {
  assert.equal(pkg.icon, 'media/icon.png');
  const png = fs.readFileSync(path.join(EXTENSION_DIR, pkg.icon));
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(png.toString('latin1', 12, 16), 'IHDR');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
  assert.match(ignore, /^!media\/\*\*$/m);
});

test('Marketplace details: repository, categories, keywords, changelog', () => {
  assert.equal(pkg.repository?.type, 'git');
  assert.match(pkg.repository?.url ?? '', /^https:\/\//);
  const known = [
    'AI',
    'Chat',
    'Data Science',
    'Debuggers',
    'Education',
    'Extension Packs',
    'Formatters',
    'Keymaps',
    'Language Packs',
    'Linters',
    'Machine Learning',
    'Notebooks',
    'Other',
    'Programming Languages',
    'SCM Providers',
    'Snippets',
    'Testing',
    'Themes',
    'Visualization',
  ];
  for (const c of pkg.categories) assert.ok(known.includes(c), `category ${c}`);
  assert.ok(pkg.keywords.length > 0 && pkg.keywords.length <= 30, 'the Marketplace takes at most 30 keywords');
  assert.ok(fs.existsSync(path.join(EXTENSION_DIR, 'CHANGELOG.md')));
  assert.match(ignore, /^!CHANGELOG\.md$/m);
});

test('Restricted Mode and virtual workspaces are stated as the code behaves', () => {
  const untrusted = pkg.capabilities.untrustedWorkspaces;
  assert.equal(untrusted.supported, 'limited');
  assert.match(untrusted.description, /no rail CLI/);
  assert.match(untrusted.description, /no git/);
  // A workspace's settings must not choose the program Rail runs once trusted... or before,
  // nor, untrusted, which rail is shown (who acts is never a workspace's: config.ts).
  assert.deepEqual(untrusted.restrictedConfigurations, ['rail.path', 'rail.railDirectory']);
  assert.equal(pkg.capabilities.virtualWorkspaces.supported, false);
  // The one gate: every process the extension starts goes through git.ts, repo.ts or native.ts,
  // and each asks host/trust.ts first.
  const src = path.join(EXTENSION_DIR, 'src');
  const files = fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const spawning = files.filter((f) =>
    /\b(spawn|spawnSync|execFile|execFileSync|exec|execSync|fork)\(/.test(fs.readFileSync(path.join(src, f), 'utf8')),
  );
  assert.deepEqual(spawning.sort(), ['host/git.ts', 'host/native.ts', 'host/repo.ts']);
  for (const f of spawning) assert.match(fs.readFileSync(path.join(src, f), 'utf8'), /processesAllowed\(\)/, f);
});
