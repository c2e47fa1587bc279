import { chainTimingFor, knownContractsFor, priceSourcesFor, tokenDirectory } from '../config/chain-data.ts';
import { readEnv } from '../config/env.ts';
import {
  codeFindings,
  factoryFindings,
  positionManagerFindings,
  positionMoverFindings,
  feedFindings,
  type Finding,
  mentoFindings,
  nodeFindings,
  sequencerFindings,
  sortedOraclesFindings,
  strategyFindings,
  v3OracleFindings,
} from '../doctor/chain.ts';
import { ConfigError } from '../errors.ts';
import { type Runtime, openRuntime } from '../engine/runtime.ts';
import { forkSwapFindings } from '../doctor/fork-swaps.ts';
import { adapterFindings, hostedServiceFindings, serviceFindings } from '../doctor/routing.ts';
import { type RoutingSetup, routingSetupFor } from '../routing/setup.ts';
import { productionServiceUrl } from '../routing-api/endpoints.ts';
import { UsageError } from './errors.ts';
import { redactUrl } from '../ops/secrets.ts';
import { tokensTraded } from '../strategy/plan.ts';
import { chainChecks } from '../trade/check.ts';
import { commonOptions, parseCommandArgs } from './command.ts';

/** The chain's self-hosted routing, or why there is none to check. */
function routingSetupOrWhy(chainId: number, rpcUrl: string, book: Runtime['book']): RoutingSetup | Finding {
  try {
    return routingSetupFor(chainId, rpcUrl, book);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { level: 'warn', message: `self-hosted routing: ${error.message}` };
  }
}

/** The adapters and router fees of the chain's self-hosted routing, or why there are none to check. */
async function routingAdapterFindings(client: Runtime['client'], setup: RoutingSetup | Finding): Promise<Finding[]> {
  return 'level' in setup ? [setup] : adapterFindings(client, setup);
}

/** `--fork`: a swap through each venue on the fork, from the strategy file's wallets. */
async function forkFindings(runtime: Runtime, setup: RoutingSetup | Finding): Promise<Finding[]> {
  if ('level' in setup) return [];
  const wallets = [...runtime.config.wallets.values()].map((wallet) => wallet.account.address);
  return forkSwapFindings(runtime.client, setup, wallets);
}

function hostedServiceOption(given: string | undefined): string {
  if (given === undefined) return productionServiceUrl;
  if (!URL.canParse(given) || !/^https?:$/.test(new URL(given).protocol)) throw new UsageError(`--hosted-service must be an http(s) URL, got '${given}'`);
  return given;
}

const marks: Record<Finding['level'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

/** `routekeeper doctor`: one line per finding; exit 1 when anything fails (a strategy that cannot trade among them). */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('doctor', argv, {
    config: commonOptions.config,
    'address-book': commonOptions['address-book'],
    'hosted-service': { type: 'string' },
    fork: { type: 'boolean' },
  });
  const hostedUrl = hostedServiceOption(values['hosted-service']);
  const runtime = await openRuntime({
    env: readEnv(),
    configFile: values.config,
    addressBookFile: values['address-book'],
    inspectOnly: true,
    fork: values.fork,
  });
  try {
    const { client, chainId, book, config } = runtime;
    console.log(`doctor: chain ${chainId} (${runtime.mode}) at ${runtime.rpcUrls.map(redactUrl).join(', ')}`);
    const known = knownContractsFor(chainId, book);
    const sources = priceSourcesFor(chainId, book);
    const { sequencer } = chainTimingFor(chainId, book);
    const symbols = new Map(Object.entries(tokenDirectory(chainId, book).tokens).map(([symbol, token]) => [token.address.toLowerCase(), symbol]));
    const { prices } = chainChecks(client, chainId, book, runtime.partnerId);
    const strategies = config.strategies.map((strategy) => ({ id: strategy.id, tokens: tokensTraded(strategy) }));
    const setup = routingSetupOrWhy(chainId, runtime.rpcUrls[0] as string, book);
    const findings = [
      ...(await nodeFindings(client)),
      ...(await codeFindings(client, known, sources, sequencer)),
      ...(await feedFindings(client, sources, symbols)),
      ...(await sortedOraclesFindings(client, sources, symbols)),
      ...(await factoryFindings(client, known)),
      ...(await positionManagerFindings(client, known)),
      ...(await positionMoverFindings(client, known)),
      ...(await v3OracleFindings(client, known, sources)),
      ...(await mentoFindings(client, known)),
      ...(await sequencerFindings(client, sequencer)),
      ...(await strategyFindings(prices, strategies)),
      ...(await serviceFindings(runtime.routing, runtime.serviceUrl, runtime.serviceKind)),
      ...(await hostedServiceFindings(hostedUrl, new URL(runtime.serviceUrl).origin === new URL(hostedUrl).origin)),
      ...(await routingAdapterFindings(client, setup)),
      ...(values.fork ? await forkFindings(runtime, setup) : []),
    ];
    for (const finding of findings) console.log(`${marks[finding.level]} ${finding.message}`);
    const failed = findings.filter((finding) => finding.level === 'fail').length;
    console.log(failed === 0 ? 'doctor: nothing fails' : `doctor: ${failed} finding${failed === 1 ? '' : 's'} fail`);
    return failed === 0 ? 0 : 1;
  } finally {
    await runtime.close();
  }
}
