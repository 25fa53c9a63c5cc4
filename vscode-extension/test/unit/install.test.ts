// Install CLI for Terminals and Agents (src/host/install.ts): where the binary goes on each
// platform, whether that folder is on PATH and exactly what to do if not, and the copy itself —
// current copies left alone, someone else's file replaced only when asked.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { installCli, installPlace, onPath, pathAdvice } from '../../src/host/install';
import { tempDir } from '../shared/fixtures';

test('where it goes: ~/.local/bin on Linux and macOS, %LOCALAPPDATA%\\Programs\\Rail on Windows', () => {
  assert.deepEqual(installPlace('linux', {}, '/home/ann'), { dir: '/home/ann/.local/bin', file: '/home/ann/.local/bin/rail' });
  assert.deepEqual(installPlace('darwin', {}, '/Users/ann'), { dir: '/Users/ann/.local/bin', file: '/Users/ann/.local/bin/rail' });
  assert.deepEqual(installPlace('win32', { LOCALAPPDATA: 'C:\\Users\\ann\\AppData\\Local' }, 'C:\\Users\\ann'), {
    dir: 'C:\\Users\\ann\\AppData\\Local\\Programs\\Rail',
    file: 'C:\\Users\\ann\\AppData\\Local\\Programs\\Rail\\rail.exe',
  });
  assert.equal(installPlace('win32', {}, 'C:\\Users\\ann').dir, 'C:\\Users\\ann\\AppData\\Local\\Programs\\Rail', 'no LOCALAPPDATA');
});

test('on PATH or not, and exactly how to add it', () => {
  assert.equal(onPath('/home/ann/.local/bin', 'linux', { PATH: '/usr/bin:/home/ann/.local/bin/' }), true);
  assert.equal(onPath('/home/ann/.local/bin', 'linux', { PATH: '/usr/bin:/bin' }), false);
  assert.equal(onPath('/home/ann/.local/bin', 'linux', {}), false);
  const win = 'C:\\Users\\ann\\AppData\\Local\\Programs\\Rail';
  assert.equal(
    onPath(win, 'win32', { Path: 'C:\\Windows;c:\\users\\ann\\appdata\\local\\programs\\rail\\' }),
    true,
    'case and trailing slash',
  );
  assert.equal(onPath(win, 'win32', { Path: 'C:\\Windows' }), false);
  assert.equal(
    pathAdvice('/home/ann/.local/bin', 'linux'),
    "/home/ann/.local/bin is not on your PATH. Add this line to ~/.profile (or your shell's rc file), then open a new terminal:\n" +
      'export PATH="/home/ann/.local/bin:$PATH"',
  );
  assert.equal(
    pathAdvice(win, 'win32'),
    `${win} is not on your PATH. Add it for your user in PowerShell, then open a new terminal:\n` +
      `[Environment]::SetEnvironmentVariable('Path', [Environment]::GetEnvironmentVariable('Path', 'User') + ';${win}', 'User')`,
  );
});

test("the copy: installed, then current; someone else's file only on request", () => {
  const dir = tempDir();
  const source = path.join(dir, 'bundled-rail');
  fs.writeFileSync(source, '#!/bin/sh\necho rail 0.1.0\n');
  const place = installPlace('linux', {}, path.join(dir, 'home'));
  assert.deepEqual(installCli(source, place, false), { kind: 'installed', file: place.file, replaced: false });
  assert.ok(fs.readFileSync(place.file).equals(fs.readFileSync(source)));
  assert.equal(fs.statSync(place.file).mode & 0o777, 0o755, 'executable');
  assert.deepEqual(installCli(source, place, false), { kind: 'current', file: place.file });
  fs.writeFileSync(place.file, "someone else's rail\n");
  assert.deepEqual(installCli(source, place, false), { kind: 'occupied', file: place.file });
  assert.equal(fs.readFileSync(place.file, 'utf8'), "someone else's rail\n", 'left alone');
  assert.deepEqual(installCli(source, place, true), { kind: 'installed', file: place.file, replaced: true });
  assert.ok(fs.readFileSync(place.file).equals(fs.readFileSync(source)));
  assert.deepEqual(fs.readdirSync(place.dir), ['rail'], 'no temporary file left');
});

test('a copy that cannot be made throws, and leaves nothing behind', () => {
  const dir = tempDir();
  const source = path.join(dir, 'bundled-rail');
  fs.writeFileSync(source, 'rail\n');
  const blocked = path.join(dir, 'home', '.local');
  fs.mkdirSync(path.dirname(blocked), { recursive: true });
  fs.writeFileSync(blocked, 'a file where the folder would go\n');
  const place = installPlace('linux', {}, path.join(dir, 'home'));
  assert.throws(() => installCli(source, place, false), /ENOTDIR|EEXIST/);
  assert.equal(fs.readFileSync(blocked, 'utf8'), 'a file where the folder would go\n', 'untouched');
  // The target folder exists but the binary cannot be renamed over a directory of that name.
  const other = installPlace('linux', {}, path.join(dir, 'home2'));
  fs.mkdirSync(other.file, { recursive: true });
  assert.throws(() => installCli(source, other, true));
  assert.deepEqual(fs.readdirSync(other.dir), ['rail'], 'no temporary file left');
});
