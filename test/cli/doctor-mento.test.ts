/**
 * `routekeeper doctor` against the devnet with Mento: the Broker lists the providers the address book names, their
 * exchanges are found, and Swappa's PairMentoV2 prices them as their state says; each Mento v3 pool is named with its
 * oracle adapter and market-hours breaker, as the chain has them; a provider the Broker does not list, and a contract
 * that runs another implementation than the chain data expects, are each named on a line of their own, with exit 1.
 */
import { type Address, pad } from 'viem';
import { describe, expect, it } from 'vitest';
import { bookFiles, runCli } from '../helpers/cli.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { adapterFindings } from '../../src/doctor/routing.ts';
import { mentoExchangeKey } from '../../src/pools/mento/kind.ts';
import { routingSetupFor } from '../../src/routing/setup.ts';
import { onAWeekend } from '../helpers/fx-clock.ts';
import { trader } from '../helpers/routing.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';

const fork = useDevnetFork({ mento: true });

function files(book: object) {
  const { doctor, env } = bookFiles(book, fork.addressBook.accounts[0]?.privateKey as string, 'doctor-mento');
  return { args: doctor, env };
}

describe('routekeeper doctor with Mento', () => {
  it("finds the Broker's exchanges, holds Swappa's PairMentoV2 to their state, and names each Mento v3 pool's adapter and breaker (on a Saturday: the collateral pool open, the FX pool closed)", async () => {
    await onAWeekend(fork);
    // A V3 pool left at Uniswap's default oracle (one observation), as most of Celo's are.
    const factory3 = fork.addressBook.contracts.uniswapV3Factory as Address;
    const { wallet } = trader(fork);
    await fork.confirm(
      await wallet.writeContract({
        address: factory3,
        abi: artifacts.UniswapV3Factory.abi,
        functionName: 'createPool',
        args: [fork.token('cUSD'), fork.token('CELO'), 10_000],
      }),
    );
    const young = await fork.publicClient.readContract({
      address: factory3,
      abi: artifacts.UniswapV3Factory.abi,
      functionName: 'getPool',
      args: [fork.token('cUSD'), fork.token('CELO'), 10_000],
    });
    await fork.confirm(await wallet.writeContract({ address: young, abi: artifacts.UniswapV3Pool.abi, functionName: 'initialize', args: [2n ** 96n] }));
    const { args, env } = files(fork.addressBook);
    const { code, stdout, stderr } = await runCli(args, env);
    expect(code, stdout + stderr).toBe(0);
    // Both its tokens have feeds: while it trades, a hop through it is held to them.
    expect(stdout).toContain(
      `ok   Uniswap V3 pool ${young} (1%): keeps 1 oracle observation: while it trades, a hop through it is held to the reference of its two tokens`,
    );
    // Without a price source for CELO, it is a pool the daemon cannot trade through while it trades.
    const { routingServiceUrl: _url, ...rest } = fork.addressBook;
    const unpricedCelo = { ...rest, priceSources: Object.fromEntries(Object.entries(rest.priceSources ?? {}).filter(([symbol]) => symbol !== 'CELO')) };
    const withoutCelo = files({ ...unpricedCelo, routingServiceUrl: _url });
    const second = await runCli(withoutCelo.args, withoutCelo.env);
    expect(second.stdout).toContain(
      `warn Uniswap V3 pool ${young} (1%): keeps 1 oracle observation, and will not grow: while it trades (within 10 minutes) a hop through it is refused, as nothing independent prices ${fork.token('CELO')}`,
    );
    // The devnet's cUSD/CELO pool was given room for 200: it keeps them from its first write after (Oracle.write grows
    // the ring at once from one slot), which its deployment's positions make unless they share the second it was
    // initialized in.
    expect(stdout).toMatch(
      /^ok {3}Uniswap V3 pool 0x[0-9a-fA-F]{40} \(0\.3%\): keeps (200 oracle observations|\d+ oracle observations?, growing to 200 as it trades)$/m,
    );
    const world = fork.addressBook.mento;
    const pool = (name: string) => world?.fixedPricePools.find((entry) => entry.name === name)?.address;
    const factory = world?.fpmmFactory;
    expect(stdout).toContain(
      `ok   Mento v3 pool ${pool('cUSD/USDC')} of factory ${factory}: oracle adapter ${world?.oracleAdapterCollateral}, market-hours breaker ${world?.marketHoursBreakerToggleable} has its checks off (open at any hour); open now`,
    );
    expect(stdout).toContain(
      `ok   Mento v3 pool ${pool('cUSD/cEUR')} of factory ${factory}: oracle adapter ${world?.oracleAdapter}, market-hours breaker ${world?.marketHoursBreaker} keeps the FX market's hours (closed at weekends and on holidays); takes no swap in the next block (market-closed)`,
    );
    const broker = fork.addressBook.contracts.mento?.broker;
    expect(stdout).toContain(`ok   Mento Broker ${broker}: 3 exchanges of 1 provider found`);
    expect(stdout).toMatch(
      new RegExp(
        `^ok {3}adapter ${fork.addressBook.contracts.adapters.mentoV2} \\(Mento v2, extras: broker \\(20\\), exchange provider \\(20\\), exchange id \\(32\\)\\) for mento: quotes 3 pools \\(0\\.05%, 0\\.15%, 0\\.25%\\) as their state says, both ways at (1\\d|2[0-4]) sizes`,
        'm',
      ),
    );
  });

  it('names an exchange provider the Broker does not list, and a contract that runs another implementation than the chain data expects; exits 1', async () => {
    const book = structuredClone(fork.addressBook);
    const stranger = book.contracts.router;
    const broker = book.contracts.mento?.broker as `0x${string}`;
    // The Broker's EIP-1967 slot names an implementation (the devnet deploys no proxies: the slot is set here).
    const implementation = book.contracts.mento?.exchangeProviders[0] as `0x${string}`;
    await fork.testClient.setStorageAt({
      address: broker,
      index: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
      value: pad(implementation),
    });
    book.contracts.mento = { broker, exchangeProviders: [stranger], implementations: { [broker]: implementation, [stranger]: broker } };
    const { args, env } = files(book);
    const { code, stdout } = await runCli(args, env);
    expect(code).toBe(1);
    expect(stdout).toContain(`FAIL Mento Broker ${broker}: does not list the exchange provider ${stranger} the chain data names`);
    expect(stdout).toContain(`ok   Mento Broker ${broker}: an EIP-1967 proxy running ${implementation}, as the chain data expects`);
    expect(stdout).toContain(`FAIL Mento exchange provider ${stranger}: is not an EIP-1967 proxy, not the implementation ${broker} the chain data expects`);
  });

  it("names a venue the model quotes nothing for while the chain's adapter quotes it: Mento's constant-product exchange once its median is stale", async () => {
    // Six minutes without a report: the model no longer routes the exchange (its buckets have no valid median to
    // vouch for them), while the Broker's own quote, which Swappa's adapter asks, still prices it.
    await fork.testClient.increaseTime({ seconds: 360 });
    await fork.testClient.mine({ blocks: 1 });
    const setup = routingSetupFor(fork.addressBook.chainId, fork.addressBook.rpcUrl, fork.addressBook);
    const findings = await adapterFindings(fork.publicClient as never, {
      ...setup,
      factories: setup.factories.filter((factory) => factory.kind === 'mento-v2'),
    });
    const line = findings.find((finding) => finding.message.startsWith(`adapter ${fork.addressBook.contracts.adapters.mentoV2}`));
    const celoExchange = mentoExchangeKey(
      fork.addressBook.mento?.biPoolManager as Address,
      fork.addressBook.mento?.exchanges.find((entry) => entry.name === 'cUSD/CELO')?.id as `0x${string}`,
    );
    expect(line?.level).toBe('warn');
    expect(line?.message).toMatch(
      new RegExp(`the model quotes nothing where the chain's adapter quotes \\d+ for \\d+ of 0x[0-9a-fA-F]{40} in pool ${celoExchange}`),
    );
  });
});
