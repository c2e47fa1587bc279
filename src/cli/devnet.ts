import { startDevnet } from '../devnet/devnet.ts';
import { describeDevnet } from '../devnet/describe.ts';
import { waitForShutdownSignal } from '../ops/shutdown.ts';
import { type Command, parseCommandArgs, parseIntegerOption } from './command.ts';

export const devnetCommand: Command = {
  name: 'devnet',
  summary: 'start the local devnet (anvil, pools, router, farms) and keep it up until Ctrl-C',
  help: `Usage: routekeeper devnet [--json] [--port N] [--chain-id N]

Starts anvil with the devnet world deployed: test tokens, Uniswap V2 pools, the router,
OneClickFarm, farms and a rewards gauge. Stays up until SIGINT or SIGTERM, then stops anvil and exits 0.

Options:
  --json          print the address book as exactly one line of JSON on stdout once ready
  --port N        RPC port (default: a free port)
  --chain-id N    chain id (default 42220, Celo mainnet's)
  -h, --help      this text`,
  async run(argv) {
    const { values } = parseCommandArgs('devnet', argv, {
      json: { type: 'boolean' },
      port: { type: 'string' },
      'chain-id': { type: 'string' },
    });
    const port = parseIntegerOption('port', values.port, { max: 65535 });
    const chainId = parseIntegerOption('chain-id', values['chain-id'], { min: 1 });
    const shutdown = waitForShutdownSignal();
    const devnet = await startDevnet({ port, chainId });
    try {
      if (values.json) {
        process.stdout.write(`${JSON.stringify(devnet.addressBook)}\n`);
      } else {
        console.log(await describeDevnet(devnet.addressBook));
        console.log('\nPress Ctrl-C to stop.');
      }
      await shutdown;
    } finally {
      await devnet.stop();
    }
    return 0;
  },
};
