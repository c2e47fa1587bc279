/**
 * A stored trade resumed before it was signed is decided again: the rule that compares what was asked then with what
 * the strategy decides now (the decisions themselves come from the real strategies in test/trade/rewritten-history).
 */
import { type Address, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { stillAskedBy } from '../../src/engine/still-asked.ts';
import type { CompoundStrategy, Decision, DcaStrategy, Strategy } from '../../src/strategy/types.ts';
import type { TradeRecord } from '../../src/model/trade.ts';

const cUSD = { address: '0x765DE816845861e75A25fCA122bb6898B8B1282a' as Address, symbol: 'cUSD', decimals: 18 };
const CELO = { address: '0x471EcE3750Da237f93B8E339c536989b8978a438' as Address, symbol: 'CELO', decimals: 18 };
const HOUR = 3_600_000;
const slotAt = Date.UTC(2026, 10, 26, 10);

const dca: DcaStrategy = {
  id: 'dca',
  kind: 'dca',
  wallet: 'main',
  schedule: { everyMs: HOUR, jitterMs: 0, catchUp: 'once', firstRun: 'now' },
  slippageBps: 50,
  sell: cUSD,
  amount: parseUnits('100', 18),
  buy: CELO,
};

function stored(strategy: Strategy, slot: string, amountIn = parseUnits('100', 18)): TradeRecord {
  return {
    id: `${strategy.id}:${slot}`,
    strategyId: strategy.id,
    slot,
    wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    chainId: 42220,
    kind: 'swap',
    tokenIn: cUSD.address,
    tokenOut: CELO.address,
    amountIn,
    slippageBps: 50,
    status: 'claimed',
    createdAt: slotAt,
    updatedAt: slotAt,
  } as TradeRecord;
}

const buying = (amountIn: bigint): Decision => ({
  trades: [{ key: 'buy', kind: 'swap', tokenIn: cUSD.address, tokenOut: CELO.address, amountIn }],
  note: 'buy',
});

describe('a stored trade decided again', () => {
  const slot = `${new Date(slotAt).toISOString()}#buy`;

  it('goes on while its slot is current and the strategy asks for it by the same amount, or a little less', async () => {
    const at = (minutes: number) => () => slotAt + minutes * 60_000;
    expect(await stillAskedBy([dca], async () => buying(parseUnits('100', 18)), at(5))(stored(dca, slot))).toBeUndefined();
    // Within the price tolerance (1% by default): prices moved between the claim and now.
    expect(await stillAskedBy([dca], async () => buying(parseUnits('99.01', 18)), at(5))(stored(dca, slot))).toBeUndefined();
  });

  it('is refused once its slot has passed, or the schedule has ended', async () => {
    const later = stillAskedBy(
      [dca],
      async () => buying(parseUnits('100', 18)),
      () => slotAt + HOUR + 1,
    );
    expect(await later(stored(dca, slot))).toBe(
      `its slot ${new Date(slotAt).toISOString()} has passed: the current one is ${new Date(slotAt + HOUR).toISOString()}`,
    );
    const ended = { ...dca, schedule: { ...dca.schedule, endMs: slotAt + 1 } };
    expect(
      await stillAskedBy(
        [ended],
        async () => buying(parseUnits('100', 18)),
        () => slotAt + HOUR + 1,
      )(stored(ended, slot)),
    ).toBe("its strategy's schedule has no slot now (it ended, or has not begun)");
  });

  it('is refused when the strategy decides otherwise now, with its words', async () => {
    const waiting = stillAskedBy(
      [dca],
      async () => ({ trades: [], note: 'waiting: worth 51 cUSD' }),
      () => slotAt,
    );
    expect(await waiting(stored(dca, slot))).toBe('strategy dca decides otherwise now: waiting: worth 51 cUSD');
    expect(
      await stillAskedBy(
        [],
        async () => buying(1n),
        () => slotAt,
      )(stored(dca, slot)),
    ).toBe("no strategy 'dca' is in the current strategy file");
  });

  it('is refused when the strategy now asks for less, beyond the tolerance (a rebalance no longer needed at that amount)', async () => {
    const less = stillAskedBy(
      [dca],
      async () => buying(parseUnits('98', 18)),
      () => slotAt,
    );
    expect(await less(stored(dca, slot))).toBe(
      `strategy dca now asks for ${parseUnits('98', 18)} of ${cUSD.address}, less than the ${parseUnits('100', 18)} asked when it was claimed (beyond 100 bps)`,
    );
    // A strategy's own price tolerance is its amount tolerance too.
    const loose = { ...dca, maxPriceDeviationBps: 300 };
    expect(
      await stillAskedBy(
        [loose],
        async () => buying(parseUnits('98', 18)),
        () => slotAt,
      )(stored(loose, slot)),
    ).toBeUndefined();
  });

  it("a run of once has no schedule to leave; a compound's deposit goes on once its claim is done", async () => {
    const once = stillAskedBy(
      [dca],
      async () => buying(parseUnits('100', 18)),
      () => slotAt + 10 * HOUR,
    );
    expect(await once(stored(dca, 'once-1795000000000#buy'))).toBeUndefined();
    const compound = { ...dca, id: 'farm', kind: 'compound', schedule: { ...dca.schedule } } as unknown as CompoundStrategy;
    const nothingLeft = stillAskedBy(
      [compound],
      async () => ({ trades: [], note: 'rewards worth 0 below 1' }),
      () => slotAt,
    );
    expect(await nothingLeft(stored(compound, `${new Date(slotAt).toISOString()}#deposit`))).toBeUndefined();
    expect(await nothingLeft(stored(compound, `${new Date(slotAt).toISOString()}#claim`))).toBe('strategy farm decides otherwise now: rewards worth 0 below 1');
  });
});
