/**
 * `docs/safety.md` lists each trade kind's checks by name, in the order they run: the list is the kind's declared
 * list in the code (src/trade/kinds/), so a check added, removed or moved without the page fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TradeKind } from '../../src/model/trade.ts';
import { tradeKinds } from '../../src/trade/kinds/registry.ts';

const page = readFileSync(new URL('../../docs/safety.md', import.meta.url), 'utf8');

/** The page's row of a kind: its checks, in the order written. */
function documented(kind: string): string[] | undefined {
  const row = page.split('\n').find((line) => line.startsWith(`| \`${kind}\` | `));
  return row
    ?.split('|')[2]
    ?.split('→')
    .map((name) => name.trim().replaceAll('`', ''));
}

describe('the checks of each kind', () => {
  it('are documented by name, in the order they run', () => {
    for (const kind of Object.keys(tradeKinds) as TradeKind[]) {
      expect(documented(kind), `docs/safety.md: the checks of a ${kind}`).toEqual(tradeKinds[kind].checks);
    }
    // Every kind has a list, and the swap's starts with its answer and ends with the pools its flows showed.
    expect(tradeKinds.swap.checks[0]).toBe('answer-is-ours');
    expect(tradeKinds.swap.checks.at(-1)).toBe('shown-pools-steady');
  });
});
