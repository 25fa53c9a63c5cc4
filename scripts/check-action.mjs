#!/usr/bin/env node
// The composite action (action.yml) as GitHub reads it: parsed as YAML, with the shape a
// composite action must have, every `${{ inputs.X }}` declared (GitHub substitutes an undeclared
// one with nothing, silently), and each `run:` script valid bash that passes shellcheck (with the
// `${{ }}` expressions stood in by placeholders). actionlint checks the workflows that use it.
// A stage of `npm test` (scripts/check-release.sh).

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = join(root, 'action.yml');
const problems = [];
const fail = (msg) => problems.push(msg);

const doc = parseDocument(readFileSync(file, 'utf8'), { prettyErrors: true, uniqueKeys: true });
for (const e of doc.errors) fail(`YAML: ${e.message}`);
const action = doc.toJS() ?? {};

for (const key of ['name', 'description', 'runs']) if (!action[key]) fail(`no ${key}`);
const inputs = action.inputs ?? {};
for (const [name, input] of Object.entries(inputs)) {
  if (!input?.description) fail(`input ${name} has no description`);
  if (typeof input?.default !== 'string' && input?.required !== true) fail(`input ${name}: give it a default or make it required`);
}
if (action.runs?.using !== 'composite') fail(`runs.using is ${action.runs?.using}, not composite`);
const steps = action.runs?.steps ?? [];
if (steps.length === 0) fail('no steps');

const ids = new Set(steps.map((s) => s.id).filter(Boolean));
const expressions = (text) => [...String(text).matchAll(/\$\{\{(.*?)\}\}/g)].map((m) => m[1]);
const checkExpr = (where, text) => {
  for (const expr of expressions(text)) {
    for (const [, name] of expr.matchAll(/\binputs\.([A-Za-z0-9_-]+)/g))
      if (!(name in inputs)) fail(`${where}: inputs.${name} is not declared`);
    for (const [, id] of expr.matchAll(/\bsteps\.([A-Za-z0-9_-]+)\./g)) if (!ids.has(id)) fail(`${where}: no step with id ${id}`);
  }
};
for (const [name, out] of Object.entries(action.outputs ?? {})) {
  if (!out?.value) fail(`output ${name} has no value (composite outputs need one)`);
  checkExpr(`output ${name}`, out?.value);
}

steps.forEach((step, i) => {
  const where = `step ${step.name ?? step.id ?? i + 1}`;
  if (!step.run && !step.uses) fail(`${where}: neither run nor uses`);
  for (const [k, v] of Object.entries(step.env ?? {})) checkExpr(`${where} env ${k}`, v);
  checkExpr(`${where} with`, JSON.stringify(step.with ?? {}));
  checkExpr(`${where} working-directory`, step['working-directory'] ?? '');
  if (!step.run) return;
  if (step.shell !== 'bash') fail(`${where}: composite run steps need a shell; Rail's are bash (every runner has it)`);
  // Values reach the scripts through env, never pasted into the script text (injection).
  if (expressions(step.run).length > 0) fail(`${where}: \${{ }} inside run: pass it through env`);
  const script = step.run;
  const syntax = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
  if (syntax.status !== 0) fail(`${where}: bash -n: ${syntax.stderr.trim()}`);
  const lint = spawnSync('shellcheck', ['--shell=bash', '--severity=style', '-'], { input: script, encoding: 'utf8' });
  if (lint.error) fail(`shellcheck is missing (scripts/bootstrap.sh test installs it): ${lint.error.message}`);
  else if (lint.status !== 0) fail(`${where}: shellcheck:\n${lint.stdout}`);
});

if (problems.length > 0) {
  console.error(`check-action: action.yml:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.error(`check-action: action.yml: ${Object.keys(inputs).length} inputs, ${steps.length} steps, scripts pass bash -n and shellcheck`);
