import { type Address, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { priceSourcesFor } from '../../src/config/chain-data.ts';
import { reportWorldPrices } from '../../src/devnet/oracle.ts';
import { feedMaxAgeSeconds } from '../../src/devnet/world-spec.ts';
import { NoPriceError, PriceReference } from '../../src/price/reference.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork();
const reference = (book = fork.addressBook) => new PriceReference(fork.publicClient, priceSourcesFor(book.chainId, book));
const pool = (name: string) => fork.addressBook.pools.find((entry) => entry.name === name)?.address as Address;

describe('the independent price reference', () => {
  it('reads a feed, and prices a token without one through a known pool against a token with one', async () => {
    const prices = reference();
    expect(await prices.usdPrice(fork.token('CELO'))).toMatchObject({ usdE18: parseUnits('0.5', 18), source: expect.stringMatching(/^feed 0x/) });
    // RWD/CELO has held 1,000,000 RWD and 400,000 CELO all along: 0.4 CELO at $0.50 is $0.20 (its average is that
    // price, less the pair's UQ112x112 rounding, a few wei).
    const rwd = await prices.usdPrice(fork.token('RWD'));
    expect(rwd.source).toMatch(/^pool 0x.* \(10\.\d-minute average\) × feed 0x/);
    expect(rwd.usdE18).toBeLessThanOrEqual(parseUnits('0.2', 18));
    expect(rwd.usdE18).toBeGreaterThan(parseUnits('0.2', 18) - 10n);
    // 100 USDC (6 decimals) at $1 is 200 CELO (18 decimals) at $0.50.
    expect((await prices.convert(fork.token('USDC'), fork.token('CELO'), 100_000_000n)).amountOut).toBe(parseUnits('200', 18));
  });

  it('follows what the oracle reports, not the pools', async () => {
    await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook, { CELO: 0.44 });
    expect((await reference().usdPrice(fork.token('CELO'))).usdE18).toBe(parseUnits('0.44', 18));
  });

  it('has no price from a feed older than its source allows', async () => {
    await fork.testClient.increaseTime({ seconds: feedMaxAgeSeconds + 60 });
    await fork.testClient.mine({ blocks: 1 });
    await expect(reference().usdPrice(fork.token('CELO'))).rejects.toThrow(/stale: updated \d+ s before the chain's time/);
    await expect(reference().usdPrice(fork.token('CELO'))).rejects.toBeInstanceOf(NoPriceError);
  });

  it('has no price when two sources of a token disagree beyond the bound (a pool pushed off the market)', async () => {
    // CELO priced by its feed and by the CELO/cUSD pool: they agree at $0.50 ...
    const book = { ...fork.addressBook, priceSources: { ...fork.addressBook.priceSources, CELO: [...(fork.addressBook.priceSources?.CELO ?? []), { kind: 'pool' as const, pool: pool('CELO/cUSD'), quote: 'cUSD' }] } };
    expect((await reference(book).usdPrice(fork.token('CELO'))).usdE18).toBe(parseUnits('0.5', 18));
    // ... until the oracle reports $0.60 while the pool still says $0.50.
    await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook, { CELO: 0.6 });
    await expect(reference(book).usdPrice(fork.token('CELO'))).rejects.toThrow(/disagree by more than 300 bps/);
  });

  it('has no price for a token with no source', async () => {
    const stranger = '0x00000000000000000000000000000000000000aa' as Address;
    await expect(reference().usdPrice(stranger)).rejects.toThrow(/no price source is known/);
  });
});
