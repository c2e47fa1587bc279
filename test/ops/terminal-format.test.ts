/** A terminal shows one line per event: the headline; the fields only at debug (programs read the JSON lines). */
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { prettyFactory } from 'pino-pretty';
import { describe, expect, it } from 'vitest';
import { createLogger, terminalFormat } from '../../src/ops/logger.ts';

/** A fill as the daemon logs it: the headline and the fields it already says in words. */
function fillLine(): string {
  const out = new PassThrough();
  let line = '';
  out.on('data', (chunk) => (line += chunk));
  createLogger({ destination: out, pretty: false }).info(
    {
      strategy: 'dca-cusd-celo',
      intent: 'dca-cusd-celo:2026-11-23T20:00:00.000Z#buy',
      status: 'confirmed',
      amountIn: '10 cUSD',
      amountOut: '19.94 CELO',
      minOut: '19.84 CELO',
      raw: { amountIn: 10n ** 19n },
      txHash: `0x${'ab'.repeat(32)}`,
    },
    'dca-cusd-celo: filled: sold 10 cUSD for 19.94 CELO (at least 19.84 CELO)',
  );
  return line;
}

const strip = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

describe('the terminal format', () => {
  it('prints a fill as one line, its headline, at info', () => {
    const shown = strip(prettyFactory(terminalFormat('info'))(fillLine()));
    expect(shown.trimEnd().split('\n')).toHaveLength(1);
    expect(shown).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: dca-cusd-celo: filled: sold 10 cUSD for 19\.94 CELO \(at least 19\.84 CELO\)\n$/);
  });

  it('adds the fields on the same line at debug', () => {
    const shown = strip(prettyFactory(terminalFormat('debug'))(fillLine()));
    expect(shown.trimEnd().split('\n')).toHaveLength(1);
    expect(shown).toContain('filled: sold 10 cUSD');
    expect(shown).toContain(`"txHash":"0x${'ab'.repeat(32)}"`);
    expect(shown).toContain('"amountOut":"19.94 CELO"');
  });

  it('writes JSON lines, every field kept and amounts as strings, when not a terminal', () => {
    const parsed = JSON.parse(fillLine());
    expect(parsed).toMatchObject({
      level: 30,
      status: 'confirmed',
      raw: { amountIn: '10000000000000000000' },
      msg: 'dca-cusd-celo: filled: sold 10 cUSD for 19.94 CELO (at least 19.84 CELO)',
    });
    expect(pino.levels.labels[parsed.level]).toBe('info');
  });
});
