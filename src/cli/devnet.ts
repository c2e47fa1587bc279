import { mineEvery, startDevnet, startDevnetRoutingService } from '../devnet/devnet.ts';
import { produceBlocksLikeCelo } from '../devnet/celo-blocks.ts';
import { describeDevnet } from '../devnet/describe.ts';
import { type CommandContext, parseCommandArgs, parseIntegerOption } from './command.ts';

/** `routekeeper devnet`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[], { shutdown }: CommandContext): Promise<number> {
  const { values } = parseCommandArgs('devnet', argv, {
    json: { type: 'boolean' },
    port: { type: 'string' },
    'chain-id': { type: 'string' },
    'service-port': { type: 'string' },
    'celo-blocks': { type: 'boolean' },
  });
  const port = parseIntegerOption('port', values.port, { max: 65535 });
  const chainId = parseIntegerOption('chain-id', values['chain-id'], { min: 1 });
  const servicePort = parseIntegerOption('service-port', values['service-port'], { max: 65535 });
  const devnet = await startDevnet({ port, chainId, signal: shutdown.signal });
  // Celo's production (a block a second, its base fee and floor), or a block per transaction and one every 5 s.
  const stopMining = values['celo-blocks'] ? await produceBlocksLikeCelo(devnet.node.rpcUrl) : mineEvery(devnet.node.rpcUrl, 5_000);
  let routing: Awaited<ReturnType<typeof startDevnetRoutingService>> | undefined;
  try {
    routing = await startDevnetRoutingService(devnet.addressBook, { port: servicePort });
    if (values.json) {
      process.stdout.write(`${JSON.stringify(routing.addressBook)}\n`);
    } else {
      console.log(await describeDevnet(routing.addressBook));
      console.log('\nPress Ctrl-C to stop.');
    }
    await shutdown.requested;
  } finally {
    stopMining();
    await routing?.service.close();
    await devnet.stop();
  }
  return 0;
}
