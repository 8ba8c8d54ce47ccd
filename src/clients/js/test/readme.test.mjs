// The READMEs' JavaScript examples run as shown: every ```js block after a
// "clients-test: javascript" marker of the project's README.md ("Clients")
// and of this package's README.md is run with node against the server, and
// what it prints must be the plain block after it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import pg from 'pg';

import { ensureExtension, serverSkip } from './helpers.mjs';

const readmes = [
  ['README.md', fileURLToPath(new URL('../../../../README.md', import.meta.url))],
  ['src/clients/js/README.md', fileURLToPath(new URL('../README.md', import.meta.url))],
];

function examples(name, path) {
  const lines = readFileSync(path, 'utf8').split('\n');
  const found = [];
  for (let at = 0; at < lines.length; at++) {
    if (!lines[at].startsWith('<!-- clients-test: javascript')) continue;
    assert.equal(lines[at + 1], '```js', `${name}:${at + 1}: the marker is not followed by a \`\`\`js block`);
    const end = lines.indexOf('```', at + 2);
    assert.equal(lines[end + 1], '```', `${name}:${at + 1}: the \`\`\`js block is not followed by its output`);
    const outEnd = lines.indexOf('```', end + 2);
    found.push({ line: at + 1, code: lines.slice(at + 2, end).join('\n'), shown: lines.slice(end + 2, outEnd).join('\n') });
  }
  assert.ok(found.length > 0, `${name} has no "clients-test: javascript" marker`);
  return found;
}

for (const [name, path] of readmes) {
  for (const { line, code, shown } of examples(name, path)) {
    test(`the example of ${name}:${line} prints what it shows`, { skip: serverSkip() }, async () => {
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
  }
}
