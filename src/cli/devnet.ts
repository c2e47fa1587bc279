import { mineEvery, startDevnet, startDevnetRoutingService } from '../devnet/devnet.ts';
import { describeDevnet } from '../devnet/describe.ts';
import { createShutdown } from '../ops/shutdown.ts';
import { type Command, parseCommandArgs, parseIntegerOption } from './command.ts';

export const devnetCommand: Command = {
  name: 'devnet',
  summary: 'start the local devnet and its routing service, and keep them up until Ctrl-C',
  help: `Usage: routekeeper devnet [--json] [--port N] [--service-port N] [--chain-id N]

Starts anvil with the devnet world deployed (test tokens, Uniswap V2 pools, the router,
OneClickFarm, farms and a rewards gauge) and a local Token Routing Service quoting over it.
It mines a block every 5 s (as Celo does), and every transaction at once. Stays up until SIGINT or SIGTERM,
then stops both and exits 0.

Options:
  --json            print the address book as exactly one line of JSON on stdout once ready
  --port N          RPC port (default: a free port)
  --service-port N  routing service port (default: a free port)
  --chain-id N      chain id (default 42220, Celo mainnet's)
  -h, --help        this text`,
  async run(argv) {
    const { values } = parseCommandArgs('devnet', argv, {
      json: { type: 'boolean' },
      port: { type: 'string' },
      'chain-id': { type: 'string' },
      'service-port': { type: 'string' },
    });
    const port = parseIntegerOption('port', values.port, { max: 65535 });
    const chainId = parseIntegerOption('chain-id', values['chain-id'], { min: 1 });
    const servicePort = parseIntegerOption('service-port', values['service-port'], { max: 65535 });
    const shutdown = createShutdown();
    const devnet = await startDevnet({ port, chainId });
    const stopMining = mineEvery(devnet.node.rpcUrl, 5_000);
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
  },
};
