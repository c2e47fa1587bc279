/**
 * The flow accounting's rules on hand-made Transfer logs (the devnet tests run it on real simulations): each rule
 * accepts what it should and refuses, naming holder, token and amount, what it should not.
 */
import { type Address, encodeAbiParameters, getAddress, pad } from 'viem';
import { describe, expect, it } from 'vitest';
import { type FlowRules, type TokenFlow, accountFlows, flowsOf, partnerFeeDenominator } from '../../src/guard/flows.ts';

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address;
const wallet = address(0x1001);
const router = address(0x1002);
const adapter = address(0x1003);
const pool = address(0x1004);
const tokenIn = address(0x1005);
const tokenOut = address(0x1006);
const stranger = address(0x1007);
const partner = address(0x1008);
const positionPool = address(0x1009);
const farm = address(0x100a);
const feeTo = address(0x100b);
const flow = (token: Address, from: Address, to: Address, amount: bigint): TokenFlow => ({ token, from, to, amount });

/** An honest one-hop swap: wallet → adapter → pool; pool → router (gross), partner fee, router → wallet. */
const swap = (out = 990n, fee = 10n): TokenFlow[] => [
  flow(tokenIn, wallet, adapter, 1000n),
  flow(tokenIn, adapter, pool, 1000n),
  flow(tokenOut, pool, router, out + fee),
  ...(fee > 0n ? [flow(tokenOut, router, partner, fee)] : []),
  flow(tokenOut, router, wallet, out),
];
const rules = (overrides: Partial<FlowRules> = {}): FlowRules => ({
  wallet,
  pays: { token: tokenIn, amount: 1000n },
  receives: { token: tokenOut, minimum: 900n },
  venues: [],
  partnerFees: { router, recipients: [{ recipient: partner, feeNumerator: partnerFeeDenominator / 100n }] },
  ...overrides,
});
const knownPool = async (candidate: Address) => (candidate === pool ? 3000 : undefined);

describe('flow accounting', () => {
  it('accepts an honest swap with a partner fee within its numerator, and names the swap it proved', async () => {
    expect(await accountFlows(swap(), rules(), knownPool)).toEqual([{ pool, tokenIn, tokenOut, amountIn: 1000n, amountOut: 1000n, feePpm: 3000 }]);
  });

  it('refuses a wallet paying one wei more, or anything else', async () => {
    await expect(accountFlows([...swap(), flow(tokenIn, wallet, stranger, 1n)], rules(), knownPool)).rejects.toThrow(
      `the wallet ${wallet} would pay 1001 of ${tokenIn}, not the 1000 it trades`,
    );
    await expect(accountFlows([...swap(), flow(pool, wallet, stranger, 5n)], rules(), knownPool)).rejects.toThrow(
      `the wallet ${wallet} would also pay 5 of ${pool}`,
    );
  });

  it('refuses an output below the minimum, and a partner taking more than its fee', async () => {
    await expect(accountFlows(swap(), rules({ receives: { token: tokenOut, minimum: 991n } }), knownPool)).rejects.toThrow('below the minimum 991');
    await expect(accountFlows(swap(980n, 20n), rules(), knownPool)).rejects.toThrow(
      `the partner's recipient ${partner} would take 20 of ${tokenOut}, more than its fee of 10`,
    );
  });

  it('refuses an adapter or the router keeping a wei, and a pool no factory vouches for', async () => {
    const kept = [
      flow(tokenIn, wallet, adapter, 1000n),
      flow(tokenIn, adapter, pool, 999n),
      flow(tokenOut, pool, router, 990n),
      flow(tokenOut, router, wallet, 990n),
    ];
    await expect(accountFlows(kept, rules({ partnerFees: undefined }), knownPool)).rejects.toThrow(`${adapter} would keep 1 of ${tokenIn}`);
    await expect(accountFlows(swap(), rules(), async () => undefined)).rejects.toThrow(
      `${pool} would take 1000 of ${tokenIn} for 1000 of ${tokenOut}: a swap in a pool that no known factory made`,
    );
  });

  it("lets a deposit's pool take its tokens and its factory's fee recipient take that pool's LP, and nothing else", async () => {
    const deposit = [
      flow(tokenIn, wallet, farm, 1000n),
      flow(tokenIn, farm, positionPool, 1000n),
      flow(positionPool, address(0), feeTo, 3n),
      flow(positionPool, address(0), wallet, 950n),
    ];
    const depositRules = rules({
      receives: { token: positionPool, minimum: 900n },
      venues: [farm],
      positionPool: { address: positionPool, token0: tokenIn, token1: tokenOut, protocolFeeRecipient: feeTo },
    });
    expect(await accountFlows(deposit, depositRules, knownPool)).toEqual([]);
    await expect(accountFlows([...deposit, flow(tokenOut, address(0), feeTo, 1n)], depositRules, knownPool)).rejects.toThrow(
      `the protocol fee recipient ${feeTo} would receive 1 of ${tokenOut}, not the pool's own LP token`,
    );
    const noFeeTo = { ...depositRules, positionPool: { address: positionPool, token0: tokenIn, token1: tokenOut } };
    await expect(accountFlows(deposit, noFeeTo, knownPool)).rejects.toThrow(`${feeTo} would keep 3 of ${positionPool}`);
  });

  it("lets Mento's Reserve keep the collateral a Mento hop pays into it, and nothing else; a stable burned and minted shows no gain", async () => {
    const reserve = address(0x100c);
    const broker = address(0x100d);
    // Collateral in (tokenIn to the Reserve), a stable out (minted to the adapter): the Reserve gains, nobody pays it out.
    const collateralIn = [
      flow(tokenIn, wallet, adapter, 1000n),
      flow(tokenIn, adapter, reserve, 1000n),
      flow(tokenOut, address(0), adapter, 995n),
      flow(tokenOut, adapter, router, 995n),
      flow(tokenOut, router, wallet, 995n),
    ];
    const mento = rules({ partnerFees: undefined, mentoReserves: [{ address: reserve, token: tokenIn }] });
    expect(await accountFlows(collateralIn, mento, knownPool)).toEqual([]);
    await expect(accountFlows(collateralIn, rules({ partnerFees: undefined }), knownPool)).rejects.toThrow(
      `${getAddress(reserve)} would keep 1000 of ${tokenIn}`,
    );
    await expect(
      accountFlows(collateralIn, rules({ partnerFees: undefined, mentoReserves: [{ address: reserve, token: tokenOut }] }), knownPool),
    ).rejects.toThrow(`Mento's Reserve ${getAddress(reserve)} would receive 1000 of ${tokenIn}, which no Mento hop of the route pays into it`);
    // A stable in (to the Broker, burned), a stable out (minted): no holder but the wallet changes.
    const stables = [
      flow(tokenIn, wallet, adapter, 1000n),
      flow(tokenIn, adapter, broker, 1000n),
      flow(tokenIn, broker, address(0), 1000n),
      flow(tokenOut, address(0), adapter, 990n),
      flow(tokenOut, adapter, router, 990n),
      flow(tokenOut, router, wallet, 990n),
    ];
    expect(await accountFlows(stables, rules({ partnerFees: undefined }), knownPool)).toEqual([]);
  });

  it('lets a Mento v3 pool make its swap and its protocol fee recipient take at most the protocol fee of the input, and nothing else', async () => {
    const fpmm = address(0x100e);
    const recipient = address(0x100f);
    // 1,000,000 in; the pool keeps all but the protocol fee (3 bps: 300) and pays 999,200 out (8 bps less).
    const through = (fee: bigint, extra: TokenFlow[] = []) => [
      flow(tokenIn, wallet, adapter, 1_000_000n),
      flow(tokenIn, adapter, fpmm, 1_000_000n),
      flow(tokenIn, fpmm, recipient, fee),
      flow(tokenOut, fpmm, router, 999_200n),
      flow(tokenOut, router, wallet, 999_200n),
      ...extra,
    ];
    const v3 = rules({
      pays: { token: tokenIn, amount: 1_000_000n },
      receives: { token: tokenOut, minimum: 999_000n },
      partnerFees: undefined,
      fixedPricePools: [{ address: fpmm, tokenIn, feePpm: 800, protocolFeeRecipient: recipient, protocolFeeBps: 3n }],
    });
    expect(await accountFlows(through(300n), v3, async () => undefined)).toEqual([
      { pool: getAddress(fpmm), tokenIn: getAddress(tokenIn), tokenOut: getAddress(tokenOut), amountIn: 999_700n, amountOut: 999_200n, feePpm: 800 },
    ]);
    await expect(accountFlows(through(301n), v3, async () => undefined)).rejects.toThrow(
      `Mento v3's protocol fee recipient ${getAddress(recipient)} would take 301 of ${getAddress(tokenIn)}, more than the protocol fee of 300`,
    );
    await expect(accountFlows(through(300n, [flow(tokenOut, fpmm, recipient, 1n)]), v3, async () => undefined)).rejects.toThrow(
      `Mento v3's protocol fee recipient ${getAddress(recipient)} would receive 1 of ${getAddress(tokenOut)}, which no Mento v3 hop of the route pays its pool`,
    );
    // Without the rule, no factory vouches for the pool.
    await expect(accountFlows(through(300n), rules({ ...v3, fixedPricePools: undefined }), async () => undefined)).rejects.toThrow(
      `${getAddress(fpmm)} would take 999700 of ${getAddress(tokenIn)}`,
    );
  });

  it('reads ERC20 Transfer logs and refuses a non-fungible one', () => {
    const topic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
    const data = encodeAbiParameters([{ type: 'uint256' }], [7n]);
    expect(flowsOf([{ address: tokenIn, topics: [topic, pad(wallet), pad(pool)], data }])).toEqual([flow(tokenIn, wallet, pool, 7n)]);
    expect(() => flowsOf([{ address: tokenIn, topics: [topic, pad(wallet), pad(pool), pad('0x07')], data: '0x' }])).toThrow(
      'not an ERC20 (a Transfer log of 4 topics)',
    );
  });
});
