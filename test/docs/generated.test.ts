/**
 * The reference pages generated from the code (commands, strategy file fields, metrics) are committed as they
 * are generated now: a change to a command's help, a schema description or a metric without `npm run docs`
 * fails here, with the page named. Every relative link in docs/ and the README leads to a file that exists.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generatedPages } from '../../scripts/docs.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? markdownFiles(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
  );
}

describe('the docs', () => {
  it('hold every generated page as the code generates it now (npm run docs rewrites them)', async () => {
    for (const page of await generatedPages()) {
      const file = join(root, 'docs', page.path);
      const committed = existsSync(file) ? readFileSync(file, 'utf8') : '(missing)';
      expect(committed, `docs/${page.path} is out of date: run npm run docs`).toBe(page.text);
    }
  });

  it('link only to files that exist', () => {
    const broken: string[] = [];
    for (const file of ['README.md', ...markdownFiles('docs')]) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s#]+)(#[^)]*)?\)/g)) {
        if (!target || /^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(root, dirname(file), target))) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
