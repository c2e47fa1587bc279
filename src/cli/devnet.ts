import { mineEvery, startDevnet, startDevnetRoutingService } from '../devnet/devnet.ts';
import { produceBlocksLikeCelo } from '../devnet/celo-blocks.ts';
import { tradeInBusyPools } from '../devnet/busy-pools.ts';
import { describeDevnet } from '../devnet/describe.ts';
import { initialWorldPrices, reportEvery, reportWorldPrices, type WorldPrices } from '../devnet/oracle.ts';
import { priceSourceSpecs, type TokenSymbol } from '../devnet/world-spec.ts';
import { UsageError } from './errors.ts';
import { type CommandContext, hostOption, parseCommandArgs, parseIntegerOption } from './command.ts';
import { readEnv } from '../config/env.ts';

/** `routekeeper devnet`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[], { shutdown }: CommandContext): Promise<number> {
  const { values } = parseCommandArgs('devnet', argv, {
    json: { type: 'boolean' },
    port: { type: 'string' },
    'chain-id': { type: 'string' },
    'service-port': { type: 'string' },
    host: { type: 'string' },
    'celo-blocks': { type: 'boolean' },
    price: { type: 'string', multiple: true },
  });
  const port = parseIntegerOption('port', values.port, { max: 65535 });
  const chainId = parseIntegerOption('chain-id', values['chain-id'], { min: 1 });
  const servicePort = parseIntegerOption('service-port', values['service-port'], { max: 65535 });
  const host = hostOption(values.host);
  const prices = { ...initialWorldPrices, ...priceOptions(values.price ?? []) };
  const devnet = await startDevnet({ port, chainId, host, signal: shutdown.signal, uniswapV3: true, mento: true });
  // The world was deployed at its spec's prices; a price given on the command line is reported before anyone reads it.
  if (values.price?.length) await reportWorldPrices(devnet.node.rpcUrl, devnet.addressBook, prices);
  // Celo's production (a block a second, its base fee and floor), or a block per transaction and one every 5 s.
  const stopMining = values['celo-blocks'] ? await produceBlocksLikeCelo(devnet.node.rpcUrl) : mineEvery(devnet.node.rpcUrl, 5_000);
  // The oracle reports the world's prices again every minute, as real feeds do on a heartbeat (they never go stale).
  const stopReporting = reportEvery(devnet.node.rpcUrl, devnet.addressBook, 60_000, () => prices);
  // Its one-observation pools see swap volume every few blocks, as Celo's busy pools do.
  const stopTrading = tradeInBusyPools(devnet.node.rpcUrl, devnet.addressBook);
  let routing: Awaited<ReturnType<typeof startDevnetRoutingService>> | undefined;
  try {
    routing = await startDevnetRoutingService(devnet.addressBook, { port: servicePort, host, allowedHosts: readEnv().ROUTING_ALLOWED_HOSTS });
    if (values.json) {
      process.stdout.write(`${JSON.stringify(routing.addressBook)}\n`);
    } else {
      console.log(await describeDevnet(routing.addressBook));
      console.log('\nPress Ctrl-C to stop.');
    }
    await shutdown.requested;
  } finally {
    stopTrading();
    stopReporting();
    stopMining();
    await routing?.service.close();
    await devnet.stop();
  }
  return 0;
}

/**
 * --price SYMBOL=USD (repeatable): the world price the oracle reports for a token with a feed, instead of the world
 * spec's, so that the devnet can run with, say, its dollar stable off its peg (--price cUSD=0.95). The pools keep
 * the prices they were seeded at, as markets do until someone trades them back.
 */
function priceOptions(given: readonly string[]): WorldPrices {
  const prices: Record<string, number> = {};
  const feeds = Object.entries(priceSourceSpecs).flatMap(([symbol, source]) => (source.kind === 'feed' ? [symbol] : []));
  for (const option of given) {
    const match = /^([A-Za-z]+)=(\d+(?:\.\d+)?)$/.exec(option);
    const symbol = match?.[1] as TokenSymbol | undefined;
    const usd = Number(match?.[2]);
    if (!match || !symbol || !(usd > 0)) throw new UsageError(`--price must be SYMBOL=USD with a positive price, such as cUSD=0.95, got '${option}'`);
    if (!feeds.includes(symbol)) throw new UsageError(`--price: ${symbol} is not a devnet token with an oracle feed (those are ${feeds.join(', ')})`);
    prices[symbol] = usd;
  }
  return prices;
}
