import { createPublicClient, http } from 'viem';
import { chainFor } from '../chains.ts';
import { parseTokenAmount, readNamedToken, readTokenInfo, resolveTokenAddress } from '../chain/tokens.ts';
import { type TokenInfo, formatTokenAmount } from '../units.ts';
import { type AddressBook, loadAddressBook } from '../config/address-book.ts';
import { ConfigError } from '../errors.ts';
import { readEnv } from '../config/env.ts';
import { createRoutingClient } from '../routing-client/client.ts';
import { startRoutingService } from '../routing/server.ts';
import { routingSetupFor } from '../routing/setup.ts';
import { parseCommandArgs, parseIntegerOption } from './command.ts';
import { UsageError } from './errors.ts';

/** `routekeeper quote`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('quote', argv, {
    'token-in': { type: 'string' },
    'token-out': { type: 'string' },
    amount: { type: 'string' },
    raw: { type: 'boolean' },
    'slippage-bps': { type: 'string' },
    'max-hops': { type: 'string' },
    json: { type: 'boolean' },
    'address-book': { type: 'string' },
  });
  for (const required of ['token-in', 'token-out', 'amount'] as const) {
    if (values[required] === undefined) throw new UsageError(`quote: --${required} is required. See 'routekeeper quote --help'.`);
  }
  const slippageBps = parseIntegerOption('slippage-bps', values['slippage-bps'], { max: 10_000 });
  const maxHops = parseIntegerOption('max-hops', values['max-hops'], { min: 1, max: 4 });
  const env = readEnv();
  const book: AddressBook | undefined = values['address-book'] ? loadAddressBook(values['address-book']) : undefined;
  const rpcUrl = env.RPC_URL?.[0] ?? book?.rpcUrl;
  if (!rpcUrl) throw new ConfigError('RPC_URL is not set: it is needed to read token decimals (or pass --address-book)');

  const probe = createPublicClient({ transport: http(rpcUrl, { batch: true }) });
  const chainId = await probe.getChainId();
  const client = createPublicClient({ chain: chainFor(chainId, rpcUrl), transport: http(rpcUrl, { batch: true }) });
  const tokenIn = await readNamedToken(client, resolveTokenAddress(values['token-in'] as string, book, '--token-in'), '--token-in', chainId);
  const tokenOut = await readNamedToken(client, resolveTokenAddress(values['token-out'] as string, book, '--token-out'), '--token-out', chainId);
  const amountIn = values.raw ? parseRawAmount(values.amount as string) : parseTokenAmount(values.amount as string, tokenIn, '--amount');

  // The service named, else one of our own for this quote (the hosted one has been offline since 2023).
  const named = env.ROUTING_SERVICE_URL ?? book?.routingServiceUrl;
  const embedded = named ? undefined : await startRoutingService(routingSetupFor(chainId, rpcUrl, book));
  const service = createRoutingClient({ baseUrl: named ?? embedded?.url, apiKey: env.ROUTING_API_KEY, chainId });
  const route = await service
    .getSwapRoute({ tokenIn: tokenIn.address, tokenOut: tokenOut.address, amountIn, slippageBps, maxHops })
    .finally(() => embedded?.close());
  const path = await Promise.all(route.details.path.map((address) => readTokenInfo(client, address)));

  const summary = {
    service: service.baseUrl,
    chainId,
    tokenIn,
    tokenOut,
    amountIn: amount(amountIn, tokenIn),
    expectedOut: amount(route.expectedOut, tokenOut),
    minimumExpectedOut: route.minimumExpectedOut === undefined ? undefined : amount(route.minimumExpectedOut, tokenOut),
    path: path.map(({ symbol, address }) => ({ symbol, address })),
    routerAddress: route.routerAddress,
    deadline: route.details.deadline,
    partner: route.details.partner,
  };
  if (values.json) {
    console.log(JSON.stringify(summary));
    return 0;
  }
  const price = Number(route.expectedOut) / 10 ** tokenOut.decimals / (Number(amountIn) / 10 ** tokenIn.decimals);
  const rows: [string, string][] = [
    ['sell', `${summary.amountIn.human} ${tokenIn.symbol}  (raw ${summary.amountIn.raw})`],
    ['expected', `${summary.expectedOut.human} ${tokenOut.symbol}  (raw ${summary.expectedOut.raw})`],
    ...(summary.minimumExpectedOut
      ? ([['minimum', `${summary.minimumExpectedOut.human} ${tokenOut.symbol}  (raw ${summary.minimumExpectedOut.raw})`]] as [string, string][])
      : []),
    ['price', `1 ${tokenIn.symbol} = ${price.toPrecision(6)} ${tokenOut.symbol}`],
    ['route', `${path.map((token) => token.symbol).join(' → ')}  (${route.details.pairs.length} hop${route.details.pairs.length === 1 ? '' : 's'})`],
    ['router', route.routerAddress],
    ['deadline', `${new Date(route.details.deadline * 1000).toISOString()}  (Unix ${route.details.deadline})`],
    ['partner', String(route.details.partner)],
  ];
  console.log(`Quote from ${service.baseUrl} on chain ${chainId}`);
  for (const [label, value] of rows) console.log(`  ${label.padEnd(9)} ${value}`);
  return 0;
}

function amount(raw: bigint, token: TokenInfo) {
  return { raw: raw.toString(), human: formatTokenAmount(raw, token.decimals) };
}

function parseRawAmount(value: string): bigint {
  if (!/^\d+$/.test(value) || BigInt(value) === 0n) throw new UsageError(`--amount with --raw must be a whole number above zero, got '${value}'`);
  return BigInt(value);
}
