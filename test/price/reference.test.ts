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
    const book = {
      ...fork.addressBook,
      priceSources: {
        ...fork.addressBook.priceSources,
        CELO: [...(fork.addressBook.priceSources?.CELO ?? []), { kind: 'pool' as const, pool: pool('CELO/cUSD'), quote: 'cUSD' }],
      },
    };
    expect((await reference(book).usdPrice(fork.token('CELO'))).usdE18).toBe(parseUnits('0.5', 18));
    // ... until the oracle reports $0.60 while the pool still says $0.50.
    await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook, { CELO: 0.6 });
    await expect(reference(book).usdPrice(fork.token('CELO'))).rejects.toThrow(/disagree by more than 300 bps/);
  });

  it("reads Mento's SortedOracles as a second kind of source: CELO's rate in USD, whatever the dollar stable is worth", async () => {
    const oracles = fork.addressBook.priceSources?.CELO?.find((source) => source.kind === 'sorted-oracles');
    expect(oracles).toMatchObject({ kind: 'sorted-oracles', rateFeedId: fork.token('cUSD'), quote: 'USD' });
    // Alone (the feed left out), it gives CELO's world price: 0.5 USD per CELO.
    const alone = { ...fork.addressBook, priceSources: { ...fork.addressBook.priceSources, CELO: [oracles as NonNullable<typeof oracles>] } };
    expect(await reference(alone).usdPrice(fork.token('CELO'))).toMatchObject({
      usdE18: parseUnits('0.5', 18),
      source: expect.stringMatching(/^SortedOracles 0x\w+ rate feed 0x\w+ in USD$/),
    });
    // cUSD slipping to $0.98 leaves CELO's rate as it was: the feed id is cUSD's address, its rate is not in cUSD.
    await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook, { cUSD: 0.98 });
    expect((await reference(alone).usdPrice(fork.token('CELO'))).usdE18).toBe(parseUnits('0.5', 18));
    expect((await reference().usdPrice(fork.token('cUSD'))).usdE18).toBe(parseUnits('0.98', 18));
  });

  it('has no price when SortedOracles and the feed disagree, nor from a SortedOracles report past its age', async () => {
    const oracles = fork.addressBook.priceSources?.CELO?.find((source) => source.kind === 'sorted-oracles');
    // The feed says $0.60 while SortedOracles still says 0.5 cUSD per CELO: both are CELO's sources, and disagree.
    const feedOnly = {
      ...fork.addressBook,
      priceSources: { ...fork.addressBook.priceSources, CELO: fork.addressBook.priceSources?.CELO?.filter((source) => source.kind === 'feed') ?? [] },
    };
    await reportWorldPrices(fork.addressBook.rpcUrl, feedOnly, { CELO: 0.6 });
    await expect(reference().usdPrice(fork.token('CELO'))).rejects.toThrow(/disagree by more than 300 bps/);
    // With an age limit of a minute, a report two minutes old is stale and is no price.
    const strict = {
      ...fork.addressBook,
      priceSources: { ...fork.addressBook.priceSources, CELO: [{ ...(oracles as NonNullable<typeof oracles>), maxAgeSeconds: 60 }] },
    };
    await fork.testClient.increaseTime({ seconds: 120 });
    await fork.testClient.mine({ blocks: 1 });
    await expect(reference(strict).usdPrice(fork.token('CELO'))).rejects.toThrow(
      /is stale: its median was reported \d+ s before the chain's time, more than 60 s/,
    );
  });

  it('has no price for a token with no source', async () => {
    const stranger = '0x00000000000000000000000000000000000000aa' as Address;
    await expect(reference().usdPrice(stranger)).rejects.toThrow(/no price source is known/);
  });
});
