// The README's JavaScript example runs as shown: the ```js block after the
// "clients-test: javascript" marker of README.md ("Clients", "JavaScript")
// is run with node against the server, and what it prints must be the
// plain block after it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import pg from 'pg';

import { ensureExtension, serverSkip } from './helpers.mjs';

const readme = fileURLToPath(new URL('../../../../README.md', import.meta.url));

function example() {
  const lines = readFileSync(readme, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.startsWith('<!-- clients-test: javascript'));
  assert.ok(at >= 0, 'README.md has no "clients-test: javascript" marker');
  assert.equal(lines[at + 1], '```js', 'the marker is not followed by a ```js block');
  const end = lines.indexOf('```', at + 2);
  assert.equal(lines[end + 1], '```', 'the ```js block is not followed by its output');
  const outEnd = lines.indexOf('```', end + 2);
  return { code: lines.slice(at + 2, end).join('\n'), shown: lines.slice(end + 2, outEnd).join('\n') };
}

test('the README example prints what README.md shows', { skip: serverSkip() }, async () => {
  const { code, shown } = example();
  // the README's reader has the extension installed
  const client = new pg.Client();
  await client.connect();
  try {
    await ensureExtension(client);
  } finally {
    await client.end();
  }
  // inside the package, so that 'bloomfilter' imports the package itself
  const file = fileURLToPath(new URL('../.readme-example.mjs', import.meta.url));
  writeFileSync(file, code);
  try {
    const out = execFileSync(process.execPath, [file], { encoding: 'utf8' });
    assert.equal(out.trimEnd(), shown.trimEnd());
  } finally {
    rmSync(file, { force: true });
  }
});
