/**
 * What Mento's governance does to a running chain, done on a test's devnet by the account that owns Mento's contracts
 * there (the deployer): an exchange destroyed or created, a rate feed taken off the BreakerBox, a fixed-price pool
 * deployed and funded or moved to another oracle adapter, a market-hours breaker's checks turned on or off. Each returns
 * once its transaction is mined.
 */
import { type Address, type Hex, parseUnits } from 'viem';
import { devnetAccount } from '../../src/devnet/accounts.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import * as mento from '../../src/devnet/artifacts/mento-published.ts';
import { roles } from '../../src/devnet/world-spec.ts';
import type { DevnetFork } from './devnet.ts';

function mentoOf(fork: DevnetFork) {
  const world = fork.addressBook.mento;
  if (!world) throw new Error('the devnet has no Mento');
  return world;
}

const governance = (fork: DevnetFork) => fork.wallet(devnetAccount(roles.deployer).privateKey);

/** The exchange's id, by the address book's name ("cUSD/USDC"). */
export function exchangeIdOf(fork: DevnetFork, name: string): Hex {
  const exchange = mentoOf(fork).exchanges.find((entry) => entry.name === name);
  if (!exchange) throw new Error(`no Mento exchange ${name}`);
  return exchange.id;
}

/** `BiPoolManager.destroyExchange`, as MGP-14 did to the USD-collateral exchanges. */
export async function destroyExchange(fork: DevnetFork, exchangeId: Hex): Promise<void> {
  const { biPoolManager } = mentoOf(fork);
  const ids = await fork.publicClient.readContract({ address: biPoolManager, abi: mento.BiPoolManager.abi, functionName: 'getExchangeIds' });
  const index = ids.findIndex((id) => id.toLowerCase() === exchangeId.toLowerCase());
  if (index < 0) throw new Error(`exchange ${exchangeId} is not listed`);
  await fork.confirm(
    await governance(fork).writeContract({
      address: biPoolManager,
      abi: mento.BiPoolManager.abi,
      functionName: 'destroyExchange',
      args: [exchangeId, BigInt(index)],
    }),
  );
}

/** `BreakerBox.removeRateFeed`: every view of the feed's trading mode reverts from then on. */
export async function removeRateFeed(fork: DevnetFork, rateFeed: Address): Promise<void> {
  const { breakerBox } = mentoOf(fork);
  await fork.confirm(
    await governance(fork).writeContract({ address: breakerBox, abi: mento.BreakerBox.abi, functionName: 'removeRateFeed', args: [rateFeed] }),
  );
}

/**
 * A new constant-product exchange of two listed assets on the feed given, with no spread and deep buckets: the best
 * price for a small swap of the pair once it exists. Its id, as the BiPoolManager announces it.
 */
export async function createExchange(fork: DevnetFork, assets: { asset0: Address; asset1: Address; rateFeed: Address; stablePoolResetSize: string }) {
  const { biPoolManager, pricingModules } = mentoOf(fork);
  const receipt = await fork.confirm(
    await governance(fork).writeContract({
      address: biPoolManager,
      abi: mento.BiPoolManager.abi,
      functionName: 'createExchange',
      args: [
        {
          asset0: assets.asset0,
          asset1: assets.asset1,
          pricingModule: pricingModules.constantProduct,
          bucket0: 0n,
          bucket1: 0n,
          lastBucketUpdate: 0n,
          config: {
            spread: { value: 0n },
            referenceRateFeedID: assets.rateFeed,
            referenceRateResetFrequency: 300n,
            minimumReports: 1n,
            stablePoolResetSize: parseUnits(assets.stablePoolResetSize, 18),
          },
        },
      ],
    }),
  );
  const created = receipt.logs.find((log) => log.address.toLowerCase() === biPoolManager.toLowerCase());
  const id = created?.topics[1];
  if (!id) throw new Error('createExchange logged no ExchangeCreated');
  return { id, blockNumber: receipt.blockNumber };
}

/**
 * A new fixed-price pool of the factory (its rate feed not inverted: the feed prices token1 in token0), funded with
 * `reserve` whole tokens of each side: its address and the block of each step.
 */
export async function deployFixedPricePool(
  fork: DevnetFork,
  pool: { token0: Address; token1: Address; rateFeed: Address; invert: boolean; lpFeeBps: number; reserve: string; decimals: [number, number] },
) {
  const { fpmmFactory } = mentoOf(fork);
  const owner = governance(fork);
  const deployed = await fork.confirm(
    await owner.writeContract({
      address: fpmmFactory,
      abi: artifacts.DevnetFPMMFactory.abi,
      functionName: 'deployFPMM',
      args: [pool.token0, pool.token1, pool.rateFeed, pool.invert, BigInt(pool.lpFeeBps), 0n, devnetAccount(roles.deployer).address],
    }),
  );
  const pools = await fork.publicClient.readContract({ address: fpmmFactory, abi: artifacts.DevnetFPMMFactory.abi, functionName: 'deployedFPMMAddresses' });
  const address = pools.at(-1) as Address;
  for (const [token, decimals] of [
    [pool.token0, pool.decimals[0]],
    [pool.token1, pool.decimals[1]],
  ] as const) {
    await fork.confirm(
      await owner.writeContract({ address: token, abi: artifacts.TestToken.abi, functionName: 'mint', args: [address, parseUnits(pool.reserve, decimals)] }),
    );
  }
  const synced = await fork.confirm(await owner.writeContract({ address, abi: artifacts.DevnetFPMM.abi, functionName: 'sync', args: [] }));
  return { address, deployedAt: deployed.blockNumber, fundedAt: synced.blockNumber };
}

/** `FPMM.setOracleAdapter` by the pool's owner, as Celo's USD pools were moved on 2026-03-14. */
export async function setOracleAdapter(fork: DevnetFork, pool: Address, adapter: Address): Promise<void> {
  await fork.confirm(await governance(fork).writeContract({ address: pool, abi: artifacts.DevnetFPMM.abi, functionName: 'setOracleAdapter', args: [adapter] }));
}

/** `MarketHoursBreakerToggleable.setChecksEnabled` by its owner: the FX market's hours kept again, or not. */
export async function setMarketHoursChecks(fork: DevnetFork, enabled: boolean): Promise<void> {
  const breaker = mentoOf(fork).marketHoursBreakerToggleable;
  await fork.confirm(
    await governance(fork).writeContract({
      address: breaker,
      abi: artifacts.DevnetMarketHoursBreakerToggleable.abi,
      functionName: 'setChecksEnabled',
      args: [enabled],
    }),
  );
}

/** `BreakerBox.addRateFeed`: a feed taken off is back, its trading mode readable again. */
export async function addRateFeed(fork: DevnetFork, rateFeed: Address): Promise<void> {
  const { breakerBox } = mentoOf(fork);
  await fork.confirm(await governance(fork).writeContract({ address: breakerBox, abi: mento.BreakerBox.abi, functionName: 'addRateFeed', args: [rateFeed] }));
}
