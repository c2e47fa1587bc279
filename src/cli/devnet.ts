import { mineEvery, startDevnet, startDevnetRoutingService } from '../devnet/devnet.ts';
import { produceBlocksLikeCelo } from '../devnet/celo-blocks.ts';
import { describeDevnet } from '../devnet/describe.ts';
import { reportEvery } from '../devnet/oracle.ts';
import { UsageError } from './errors.ts';
import { type CommandContext, parseCommandArgs, parseIntegerOption } from './command.ts';

/** `routekeeper devnet`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[], { shutdown }: CommandContext): Promise<number> {
  const { values } = parseCommandArgs('devnet', argv, {
    json: { type: 'boolean' },
    port: { type: 'string' },
    'chain-id': { type: 'string' },
    'service-port': { type: 'string' },
    host: { type: 'string' },
    'celo-blocks': { type: 'boolean' },
  });
  const port = parseIntegerOption('port', values.port, { max: 65535 });
  const chainId = parseIntegerOption('chain-id', values['chain-id'], { min: 1 });
  const servicePort = parseIntegerOption('service-port', values['service-port'], { max: 65535 });
  const host = hostOption(values.host);
  const devnet = await startDevnet({ port, chainId, host, signal: shutdown.signal });
  // Celo's production (a block a second, its base fee and floor), or a block per transaction and one every 5 s.
  const stopMining = values['celo-blocks'] ? await produceBlocksLikeCelo(devnet.node.rpcUrl) : mineEvery(devnet.node.rpcUrl, 5_000);
  // The oracle reports the world's prices again every minute, as real feeds do on a heartbeat (they never go stale).
  const stopReporting = reportEvery(devnet.node.rpcUrl, devnet.addressBook, 60_000);
  let routing: Awaited<ReturnType<typeof startDevnetRoutingService>> | undefined;
  try {
    routing = await startDevnetRoutingService(devnet.addressBook, { port: servicePort, host });
    if (values.json) {
      process.stdout.write(`${JSON.stringify(routing.addressBook)}\n`);
    } else {
      console.log(await describeDevnet(routing.addressBook));
      console.log('\nPress Ctrl-C to stop.');
    }
    await shutdown.requested;
  } finally {
    stopReporting();
    stopMining();
    await routing?.service.close();
    await devnet.stop();
  }
  return 0;
}

/** --host: an IP address to listen on (0.0.0.0 in a container, so other containers reach it). */
function hostOption(given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  if (!/^[\d.]+$|^[\da-fA-F:]+$/.test(given)) throw new UsageError(`--host must be an IP address to listen on, such as 127.0.0.1 or 0.0.0.0 (got ${given})`);
  return given;
}
