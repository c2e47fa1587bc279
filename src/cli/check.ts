import { redactUrl, scrub } from '../ops/secrets.ts';
import { erc20Abi, formatEther } from 'viem';
import { formatTokenAmount, type TokenInfo } from '../units.ts';
import { readEnv } from '../config/env.ts';
import { knownContractsFor } from '../config/chain-data.ts';
import { openRuntime } from '../engine/runtime.ts';
import { nextRuns, strategyInWords, tokensTraded } from '../strategy/plan.ts';
import type { Strategy } from '../strategy/types.ts';
import { commonOptions, parseCommandArgs } from './command.ts';

/** Per strategy: what it will do, in words, and its next 3 runs (UTC). */
function printPlan(strategies: readonly Strategy[], now: number): void {
  console.log('plan (times in UTC):');
  for (const strategy of strategies) {
    const { firstRun, times } = nextRuns(strategy, now);
    console.log(`  ${strategy.id} (${strategy.kind}, wallet ${strategy.wallet}): ${strategyInWords(strategy)}`);
    const first =
      firstRun === 'now' ? 'on a fresh ledger, runs at start (firstRun: now); then' : 'on a fresh ledger, waits for its first slot (firstRun: slot);';
    console.log(`    ${first} next runs ${times.length ? times.map((time) => new Date(time).toISOString()).join(', ') : 'none: its window has ended'}`);
  }
}

/** `routekeeper check`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('check', argv, { config: commonOptions.config, 'address-book': commonOptions['address-book'] });
  const runtime = await openRuntime({ env: readEnv(), configFile: values.config, addressBookFile: values['address-book'], inspectOnly: true });
  try {
    const block = await runtime.client.getBlock({ blockTag: 'latest' });
    console.log(
      `strategy file ${runtime.configFile}: ${runtime.config.strategies.length} strategies, ${runtime.config.wallets.size} wallets, all tokens and amounts resolve`,
    );
    printPlan(runtime.config.strategies, Date.now());
    console.log(
      `chain ${runtime.chainId} (${runtime.mode}) at ${runtime.rpcUrls.map(redactUrl).join(', ')}: block ${block.number}, ${new Date(Number(block.timestamp) * 1000).toISOString()}`,
    );
    let serviceOk = true;
    try {
      const health = await runtime.routing.health();
      console.log(`routing service ${redactUrl(runtime.serviceUrl)} (${runtime.serviceKind}): ${health.state}`);
    } catch (error) {
      serviceOk = false;
      console.log(
        `routing service ${redactUrl(runtime.serviceUrl)} (${runtime.serviceKind}): NOT reachable (${scrub((error as Error).message.split('\n')[0] ?? '')})`,
      );
    }
    // The chain data's routers and OneClickFarms (built in, and the address book's): what a trade approves.
    const known = knownContractsFor(runtime.chainId, runtime.book);
    const spenders = [...known.routers.map((router) => ['router', router] as const), ...known.oneClickFarms.map((farm) => ['OneClickFarm', farm] as const)];
    for (const wallet of runtime.config.wallets.values()) {
      const address = wallet.account.address;
      console.log(`wallet ${wallet.name} ${address}: ${formatEther(await runtime.client.getBalance({ address }))} native`);
      const tokens = new Map<string, TokenInfo>();
      for (const strategy of runtime.config.strategies.filter((s) => s.wallet === wallet.name))
        for (const token of tokensTraded(strategy)) tokens.set(token.address, token);
      for (const token of tokens.values()) {
        const balance = await runtime.client.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
        const allowances = await Promise.all(
          spenders.map(async ([name, spender]) => {
            const allowed = await runtime.client.readContract({ address: token.address, abi: erc20Abi, functionName: 'allowance', args: [address, spender] });
            return `${name} ${formatTokenAmount(allowed, token.decimals)}`;
          }),
        );
        console.log(
          `  ${token.symbol.padEnd(6)} ${formatTokenAmount(balance, token.decimals)}${allowances.length ? `  (allowance: ${allowances.join(', ')})` : ''}`,
        );
      }
    }
    return serviceOk ? 0 : 1;
  } finally {
    await runtime.close();
  }
}
